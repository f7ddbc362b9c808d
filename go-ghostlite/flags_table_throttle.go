package main

import "github.com/go-ghostlite/go-ghostlite/cutover"

// The flag table (flagtable.go): the throttle and the cut-over.

var throttleTopic = flagTopic{"Throttle", []flagSpec{
	{name: "max-lag-millis", ghost: ghostSame, to: "MaxLag", unit: millis,
		help: "throttle the copy while the replication lag (the migration's heartbeat as seen on the inspected server and the control replicas) is above this, in milliseconds (100 at least)"},
	{name: "throttle-control-replicas", ghost: ghostSame, to: "ThrottleControlReplicas",
		help: "replicas whose lag also throttles the copy: host[:port],... (port 3306 when not given)"},
	{name: "max-load", ghost: ghostSame, to: "MaxLoad",
		help: "throttle the copy while a global status variable reaches its threshold: Var=N,... e.g. Threads_running=25"},
	{name: "critical-load", ghost: ghostSame, to: "CriticalLoad",
		help: "abort the migration when a global status variable reaches its threshold: Var=N,... (see the next two flags)"},
	{name: "critical-load-interval-millis", ghost: ghostSame, to: "CriticalLoadInterval", unit: millis,
		help: "when --critical-load is met, check again after this many milliseconds and abort only if it still is (0: abort at once)"},
	{name: "critical-load-hibernate-seconds", ghost: ghostSame, to: "CriticalLoadHibernate", unit: seconds,
		help: "when --critical-load is met, do not abort: hibernate (no copy, no heartbeat) for this many seconds, as often as it is met (0: abort)"},
	{name: "throttle-query", ghost: ghostDiffers, note: "one read-only `SELECT` only, run in a read-only transaction (gh-ost runs any statement)", to: "ThrottleQuery",
		help: "query run on the primary every second; a result above 0 throttles the copy (keep it light)"},
	{name: "throttle-http", ghost: ghostSame, to: "ThrottleHTTP",
		help: "URL sent a HEAD request every --throttle-http-interval-millis; any status but 200 throttles the copy"},
	{name: "throttle-http-interval-millis", ghost: ghostSame, to: "ThrottleHTTPInterval", unit: millis,
		help: "how often to check --throttle-http, in milliseconds"},
	{name: "throttle-http-timeout-millis", ghost: ghostSame, to: "ThrottleHTTPTimeout", unit: millis,
		help: "how long one --throttle-http check may take, in milliseconds"},
	{name: "ignore-http-errors", ghost: ghostSame, to: "IgnoreHTTPErrors",
		help: "a --throttle-http request that fails (no answer) does not throttle"},
	{name: "throttle-flag-file", ghost: ghostSame, to: "ThrottleFlagFile",
		help: "throttle the copy while this file exists"},
	{name: "throttle-additional-flag-file", ghost: ghostSame, to: "ThrottleAdditionalFlagFile",
		help: "throttle the copy while this file exists (a file shared by all migrations)"},
	{name: "nice-ratio", ghost: ghostSame, to: "NiceRatio",
		help: "after each chunk, rest this many times the chunk's copy time (0 to 100; 0.5: rest half as long as a chunk took)"},
	{name: "replication-lag-query", ghost: ghostIgnored, note: "deprecated in gh-ost, which ignores it too", to: "ReplicationLagQuery",
		help: "deprecated in gh-ost and ignored: lag is read from the migration's heartbeat"},
}}

var cutOverTopic = flagTopic{"Cut-over", []flagSpec{
	{name: "cut-over", ghost: ghostDiffers, note: "default `three-step` (gh-ost: `atomic`, also available)", to: "CutOver",
		help: "cut-over algorithm: " + cutover.Choices() + " (see doc/cut-over.md)"},
	{name: "cut-over-lock-timeout-seconds", ghost: ghostSame, to: "CutOverLockTimeout", unit: seconds, rng: span(1, 3600),
		help: "longest the cut-over may hold the table locked, in seconds"},
	{name: "cut-over-exponential-backoff", ghost: ghostSame, to: "CutOverExponentialBackoff",
		help: "wait exponentially longer between cut-over attempts (instead of a fixed interval)"},
	{name: "exponential-backoff-max-interval", ghost: ghostSame, to: "ExponentialBackoffMaxInterval", unit: seconds, rng: span(1, 86_400).below("must be positive"),
		help: "longest wait between cut-over attempts with --cut-over-exponential-backoff, in seconds"},
	{name: "postpone-cut-over-flag-file", ghost: ghostSame, to: "PostponeCutOverFlagFile",
		help: "while this file exists, the cut-over waits (the copy is done and the ghost kept in sync); delete it to cut over"},
	{name: "force-named-cut-over", ghost: ghostSame, own: func(v *flagValues) any { return &v.control.forceNamedCutOver },
		help: "the unpostpone and cut-over commands must name the table: cut-over=<table>"},
	{name: "recover-cut-over", to: "RecoverCutOver",
		help: "after a run (or a --revert) died during the cut-over: restore the table's name, then exit (see doc/cut-over.md)"},
}}
