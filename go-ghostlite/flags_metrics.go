package main

import "github.com/spf13/pflag"

// metricsFlags configure package metrics, an observer of the run.
type metricsFlags struct {
	addr string
	// gh-ost's StatsD push (issue 16): --statsd-addr, --statsd-tags, --runtime-metrics-interval.
	statsdAddr             string
	statsdTags             []string
	runtimeIntervalSeconds int
}

// addMetricsFlags registers the metrics' flags: the Prometheus endpoint, and gh-ost's StatsD push.
func addMetricsFlags(fs *pflag.FlagSet, f *metricsFlags) {
	fs.StringVar(&f.addr, "metrics-addr", "", "serve Prometheus metrics on http://ADDR/metrics while the migration runs, e.g. 127.0.0.1:9100 (see doc/metrics.md); empty: off")
	fs.StringVar(&f.statsdAddr, "statsd-addr", "", "push gh-ost's gauges (gh_ost.*) every second to this StatsD host:port (UDP) or unix socket path; empty: off")
	fs.StringArrayVar(&f.statsdTags, "statsd-tags", nil, "key:value tag added to every StatsD metric (repeat the flag for more)")
	fs.IntVar(&f.runtimeIntervalSeconds, "runtime-metrics-interval", 10, "seconds between two pushes of the Go runtime's gauges to --statsd-addr (0: never)")
}
