package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/pflag"
)

// helpGroup is one topic of --help and the flags under it, in the order shown.
type helpGroup struct {
	title string
	flags []string
}

// helpGroups sort every flag under one topic (TestHelpGroupsCoverEveryFlag keeps it so).
var helpGroups = []helpGroup{
	{"Connection and topology", []string{"host", "port", "user", "password", "ask-pass", "conf", "master-user", "master-password",
		"assume-master-host", "allow-on-master", "migrate-on-replica", "test-on-replica", "test-on-replica-skip-replica-stop",
		"assume-rbr", "switch-to-rbr", "gtid", "replica-server-id", "binlogsyncer-max-reconnect-attempts", "mysql-timeout", "charset",
		"skip-port-validation", "allow-master-master", "tungsten", "aliyun-rds", "gcp", "azure"}},
	{"Migration", []string{"database", "table", "alter", "execute", "approve-renamed-columns", "skip-renamed-columns",
		"storage-engine", "chunk-size", "chunk-time", "copy-threads", "dml-batch-size", "default-retries", "exact-rowcount",
		"concurrent-rowcount", "heartbeat-interval-millis", "panic-on-warnings", "checksum", "attempt-instant-ddl",
		"analyze-ghost-table-before-cutover", "include-triggers", "trigger-suffix", "remove-trigger-suffix-if-exists",
		"initially-drop-ghost-table", "initially-drop-old-table", "ok-to-drop-table", "timestamp-old-table", "force-table-names",
		"checkpoint", "checkpoint-seconds", "resume", "revert", "old-table"}},
	{"Throttle", []string{"max-lag-millis", "throttle-control-replicas", "max-load", "critical-load",
		"critical-load-interval-millis", "critical-load-hibernate-seconds", "throttle-query", "throttle-http",
		"throttle-http-interval-millis", "throttle-http-timeout-millis", "ignore-http-errors", "throttle-flag-file",
		"throttle-additional-flag-file", "nice-ratio", "replication-lag-query"}},
	{"Cut-over", []string{"cut-over", "cut-over-lock-timeout-seconds", "cut-over-exponential-backoff",
		"exponential-backoff-max-interval", "postpone-cut-over-flag-file", "force-named-cut-over", "recover-cut-over"}},
	{"Control (interactive commands, panic)", []string{"serve-socket-file", "serve-tcp-port", "initially-drop-socket-file",
		"panic-flag-file", "force-named-panic"}},
	{"Hooks", []string{"hooks-path", "hooks-hint", "hooks-hint-owner", "hooks-hint-token", "hooks-status-interval"}},
	{"Trust (checks you may relax)", []string{"allow-nullable-unique-key", "discard-foreign-keys", "skip-foreign-key-checks",
		"allow-cascading-foreign-keys-data-loss", "allow-zero-in-date", "skip-strict-mode", "skip-metadata-lock-check",
		"allow-setup-metadata-lock-instruments", "allow-lock-bypassing-plugins"}},
	{"Security (TLS)", []string{"ssl", "ssl-ca", "ssl-cert", "ssl-key", "ssl-allow-insecure"}},
	{"Output and metrics", []string{"log-format", "verbose", "debug", "quiet", "stack", "metrics-addr", "statsd-addr",
		"statsd-tags", "runtime-metrics-interval", "check-flag", "version", "help"}},
}

// writeHelp prints the usage paragraph and every supported flag with its default, by topic (to
// the terminal: a failed write has nowhere to be reported).
func writeHelp(w io.Writer, fs *pflag.FlagSet) {
	_, _ = fmt.Fprint(w, helpIntro)
	for _, g := range helpGroups {
		sub := pflag.NewFlagSet(g.title, pflag.ContinueOnError)
		sub.SortFlags = false
		for _, name := range g.flags {
			if f := fs.Lookup(name); f != nil && !f.Hidden {
				sub.AddFlag(f)
			}
		}
		_, _ = fmt.Fprintf(w, "\n%s:\n%s", g.title, sub.FlagUsagesWrapped(100))
	}
}

// versionText is what --version prints: the version set at build time (script/build:
// -ldflags "-X main.version=$(git describe --tags --always --dirty)"), else the module's version
// when built by go install module@version, else "dev" with the commit Go recorded, if any.
func versionText() string {
	if version != "dev" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		return version
	}
	return fmt.Sprintf("dev (commit %s%s)", rev[:min(12, len(rev))], modified)
}
