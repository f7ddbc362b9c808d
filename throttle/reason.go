package throttle

import "strings"

// ReasonKinds are the kinds of throttle reasons, a bounded set for labels (metrics) where the
// reason's text (a path, a URL, an error, a host) would not be.
var ReasonKinds = []string{"critical_load", "user", "flag_file", "max_load", "query", "http", "lag", "replica_lag", "backlog", "other"}

// ReasonKind is the kind of a reason this package's rules give (one of ReasonKinds): "flag-file
// /tmp/x" is flag_file, "lag=2.1s" is lag, "10.0.0.2:3306 replica-lag=3s" is replica_lag.
func ReasonKind(reason string) string {
	prefixes := []struct{ prefix, kind string }{
		{"critical-load", "critical_load"},
		{"commanded by user", "user"},
		{"flag-file", "flag_file"},
		{"max-load", "max_load"},
		{"throttle-query", "query"},
		{"throttle-http", "http"},
		{"lag", "lag"},
		{"applier backlog", "backlog"},
	}
	for _, p := range prefixes {
		if strings.HasPrefix(reason, p.prefix) {
			return p.kind
		}
	}
	if strings.Contains(reason, " replica-lag") {
		return "replica_lag"
	}
	return "other"
}
