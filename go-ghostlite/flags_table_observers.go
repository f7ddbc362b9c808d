package main

import (
	"strconv"
	"time"

	"github.com/go-ghostlite/go-ghostlite/hooks"
)

// The flag table (flagtable.go): what watches the run: interactive commands, hooks, logs and metrics.

var controlTopic = flagTopic{"Control (interactive commands, panic)", []flagSpec{
	{name: "serve-socket-file", ghost: ghostSame, own: func(v *flagValues) any { return &v.control.socketFile }, docDefault: "/tmp/gh-ost.<database>.<table>.sock",
		help: "unix socket serving interactive commands (default /tmp/gh-ost.<database>.<table>.sock; see doc/interactive-commands.md)"},
	{name: "serve-tcp-port", ghost: ghostDiffers, note: "listens on 127.0.0.1 only", own: func(v *flagValues) any { return &v.control.tcpPort }, rng: span(0, 65535),
		help: "also serve interactive commands on this TCP port of 127.0.0.1 (0: not at all)"},
	{name: "initially-drop-socket-file", ghost: ghostSame, to: "InitiallyDropSocketFile",
		help: "remove a socket file left by an earlier run before starting"},
	{name: "panic-flag-file", ghost: ghostSame, to: "PanicFlagFile",
		help: "when this file appears, abort the migration at once, leaving the original table untouched"},
	{name: "force-named-panic", ghost: ghostSame, own: func(v *flagValues) any { return &v.control.forceNamedPanic },
		help: "the panic command must name the table: panic=<table>"},
}}

var hooksTopic = flagTopic{"Hooks", []flagSpec{
	{name: "hooks-path", ghost: ghostSame, own: func(v *flagValues) any { return &v.hooks.path }, check: func(t flagTargets) error { return checkHooksPath(t.v.hooks.path) },
		help: "directory of hook scripts: each executable named gh-ost-on-<event>* runs at that event; as in gh-ost, a failing on-startup, on-validated, on-before-row-copy, on-row-copy-complete, on-before-cut-over or on-stop-replication hook aborts the migration (see doc/hooks.md); empty: no hooks"},
	{name: "hooks-hint", ghost: ghostSame, own: func(v *flagValues) any { return &v.hooks.hint },
		help: "free text passed to the hooks as GH_OST_HOOKS_HINT"},
	{name: "hooks-hint-owner", ghost: ghostSame, own: func(v *flagValues) any { return &v.hooks.hintOwner },
		help: "free text passed to the hooks as GH_OST_HOOKS_HINT_OWNER"},
	{name: "hooks-hint-token", ghost: ghostSame, own: func(v *flagValues) any { return &v.hooks.hintToken },
		help: "free text passed to the hooks as GH_OST_HOOKS_HINT_TOKEN"},
	{name: "hooks-status-interval", ghost: ghostSame, own: func(v *flagValues) any { return &v.hooks.statusInterval }, unit: seconds, rng: span(1, 86_400).below("must be positive"), def: strconv.FormatInt(int64(hooks.DefaultStatusInterval/time.Second), 10),
		help: "seconds between two runs of the gh-ost-on-status hook"},
}}

var outputTopic = flagTopic{"Output and metrics", []flagSpec{
	{name: "log-format", own: func(v *flagValues) any { return &v.logFormat }, def: "console",
		help: "log format on stderr: console or json"},
	{name: "verbose", ghost: ghostSame, own: func(v *flagValues) any { return &v.verbose },
		help: "log progress (the default level, info)"},
	{name: "debug", ghost: ghostSame, own: func(v *flagValues) any { return &v.debug },
		help: "log debug messages too"},
	{name: "quiet", ghost: ghostSame, own: func(v *flagValues) any { return &v.quiet },
		help: "log errors only"},
	{name: "stack", ghost: ghostSame, own: func(v *flagValues) any { return &v.stack },
		help: "on failure, also print the chain of wrapped errors"},
	{name: "metrics-addr", own: func(v *flagValues) any { return &v.metrics.addr },
		help: "serve Prometheus metrics on http://ADDR/metrics while the migration runs, e.g. 127.0.0.1:9100 (see doc/metrics.md); empty: off"},
	{name: "statsd-addr", ghost: ghostDiffers, note: "pushes every second over UDP (or a unix socket path) the gauges `gh_ost.row_copy.rows_copied`, `row_copy.rows_estimate`, `dml.events_applied`, `binlog.backlog_size`, `lag.heartbeat_seconds`, `throttle.active`; not gh-ost's histograms, counters and cut-over metrics (those are on `--metrics-addr`)", own: func(v *flagValues) any { return &v.metrics.statsdAddr },
		help: "push gh-ost's gauges (gh_ost.*) every second to this StatsD host:port (UDP) or unix socket path; empty: off"},
	{name: "statsd-tags", ghost: ghostSame, note: "repeatable `key:value`, sent in DogStatsD's `|#k:v` form", own: func(v *flagValues) any { return &v.metrics.statsdTags },
		help: "key:value tag added to every StatsD metric (repeat the flag for more)"},
	{name: "runtime-metrics-interval", ghost: ghostDiffers, note: "seconds between pushes of `gh_ost.go_runtime.goroutines`, `heap_alloc_bytes`, `gc_count` (a subset of gh-ost's)", own: func(v *flagValues) any { return &v.metrics.runtimeInterval }, unit: seconds, rng: span(0, 86_400), def: "10",
		help: "seconds between two pushes of the Go runtime's gauges to --statsd-addr (0: never)"},
	{name: "check-flag", ghost: ghostSame, note: "exit 1 (with one line naming the flag) when a flag does not exist", own: func(v *flagValues) any { return &v.checkFlag },
		help: "only check that every other flag given exists (and is supported): exit 0 if so, 1 if not; nothing else is done (for scripts that work with several versions)"},
	{name: "version", ghost: ghostSame, own: func(v *flagValues) any { return &v.version },
		help: "print the version and exit"},
	{name: "help", short: "h", ghost: ghostSame, own: func(v *flagValues) any { return &v.help },
		help: "print this help and exit"},
}}
