package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// addThrottleFlags registers the throttle's flags (gh-ost's names and defaults; doc/throttle.md).
func addThrottleFlags(fs *pflag.FlagSet, cfg *migrator.Config, d migrator.Config) {
	millis := func(p *time.Duration, def time.Duration, name, usage string) {
		*p = def
		fs.Var(&durationFlag{p: p, unit: time.Millisecond}, name, usage)
	}
	millis(&cfg.MaxLag, d.MaxLag, "max-lag-millis", "throttle the copy while the replication lag (the migration's heartbeat as seen on the inspected server and the control replicas) is above this, in milliseconds (100 at least)")
	fs.StringVar(&cfg.ThrottleControlReplicas, "throttle-control-replicas", "", "replicas whose lag also throttles the copy: host[:port],... (port 3306 when not given)")
	fs.StringVar(&cfg.ReplicationLagQuery, "replication-lag-query", "", "deprecated in gh-ost and ignored: lag is read from the migration's heartbeat")
	fs.StringVar(&cfg.ThrottleQuery, "throttle-query", "", "query run on the primary every second; a result above 0 throttles the copy (keep it light)")
	fs.StringVar(&cfg.ThrottleHTTP, "throttle-http", "", "URL sent a HEAD request every --throttle-http-interval-millis; any status but 200 throttles the copy")
	millis(&cfg.ThrottleHTTPInterval, d.ThrottleHTTPInterval, "throttle-http-interval-millis", "how often to check --throttle-http, in milliseconds")
	millis(&cfg.ThrottleHTTPTimeout, d.ThrottleHTTPTimeout, "throttle-http-timeout-millis", "how long one --throttle-http check may take, in milliseconds")
	fs.BoolVar(&cfg.IgnoreHTTPErrors, "ignore-http-errors", false, "a --throttle-http request that fails (no answer) does not throttle")
	fs.StringVar(&cfg.ThrottleFlagFile, "throttle-flag-file", "", "throttle the copy while this file exists")
	fs.StringVar(&cfg.ThrottleAdditionalFlagFile, "throttle-additional-flag-file", d.ThrottleAdditionalFlagFile, "throttle the copy while this file exists (a file shared by all migrations)")
	fs.StringVar(&cfg.MaxLoad, "max-load", "", "throttle the copy while a global status variable reaches its threshold: Var=N,... e.g. Threads_running=25")
	fs.StringVar(&cfg.CriticalLoad, "critical-load", "", "abort the migration when a global status variable reaches its threshold: Var=N,... (see the next two flags)")
	millis(&cfg.CriticalLoadInterval, d.CriticalLoadInterval, "critical-load-interval-millis", "when --critical-load is met, check again after this many milliseconds and abort only if it still is (0: abort at once)")
	fs.Var(&durationFlag{p: &cfg.CriticalLoadHibernate, unit: time.Second}, "critical-load-hibernate-seconds", "when --critical-load is met, do not abort: hibernate (no copy, no heartbeat) for this many seconds, as often as it is met (0: abort)")
	fs.Float64Var(&cfg.NiceRatio, "nice-ratio", d.NiceRatio, "after each chunk, rest this many times the chunk's copy time (0 to 100; 0.5: rest half as long as a chunk took)")
}

// durationFlag is a duration given on the command line as a whole number of unit.
type durationFlag struct {
	p    *time.Duration
	unit time.Duration
}

func (f *durationFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.FormatInt(int64(*f.p/f.unit), 10)
}

func (f *durationFlag) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return err
	}
	if limit := int64(maxFlagDuration / f.unit); n < 0 || n > limit { // flags_ranges.go
		return fmt.Errorf("must be from 0 to %d (a day)", limit)
	}
	*f.p = time.Duration(n) * f.unit
	return nil
}

func (f *durationFlag) Type() string { return "int" }
