package main

import "github.com/spf13/pflag"

// metricsFlags configure package metrics, an observer of the run.
type metricsFlags struct {
	addr string
}

// addMetricsFlags registers the metrics' flags. gh-ost's --statsd-addr and --statsd-tags are not
// among them (refused by name: unsupportedFlags).
func addMetricsFlags(fs *pflag.FlagSet, f *metricsFlags) {
	fs.StringVar(&f.addr, "metrics-addr", "", "serve Prometheus metrics on http://ADDR/metrics while the migration runs, e.g. 127.0.0.1:9100 (see doc/metrics.md); empty: off")
}
