package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// gh-ost compatibility (issue 16): a gh-ost command line runs unchanged. gh-ost parses its
// command line with Go's flag package, where a long flag takes one dash or two (-alter=x,
// --alter=x, -chunk-size 500); pflag reads one dash as a cluster of short flags. normalizeArgs
// rewrites the one-dash spelling to two dashes before pflag sees it, with Go's flag package's
// rules: a value argument (the one after a non-boolean flag written without '=') is never
// rewritten, and nothing after "--" is.

// normalizeArgs returns args with every one-dash long flag (-name, -name=value) spelled with two
// dashes. A one-dash word of two letters or more is a long flag, known or not (an unknown one is
// then reported as "unknown flag: --name"); "-h" and "-" stay as they are.
func normalizeArgs(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	takesValue := false // the previous argument was a non-boolean flag without '='
	for i, a := range args {
		if takesValue {
			out = append(out, a)
			takesValue = false
			continue
		}
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			a = "-" + a
		}
		if strings.HasPrefix(a, "--") {
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := fs.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				takesValue = true
			}
		}
		out = append(out, a)
	}
	return out
}

// checkFlagRequested says whether --check-flag is among the (normalized) arguments, before "--".
func checkFlagRequested(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--check-flag" || a == "--check-flag=true" || a == "--check-flag=1":
			return true
		}
	}
	return false
}

// checkFlagError is a parse error under --check-flag: the answer "no such flag" (exit 1).
type checkFlagError struct{ err error }

func (e *checkFlagError) Error() string { return "--check-flag: " + e.err.Error() }
func (e *checkFlagError) Unwrap() error { return e.err }

// compatFlags holds the values of the compatibility flags that are not Config fields.
type compatFlags struct {
	checkFlag       bool
	mysqlTimeout    float64
	ignored         map[string]*string // accepted-and-ignored flags' values, by name
	ignoredBools    map[string]*bool
	panicOnWarnings bool
}

// ignoredFlags are gh-ost flags that have no meaning for go-ghostlite: accepted, and one warning
// line says why they change nothing (doc/flags.md says the same).
var ignoredFlags = map[string]string{
	"charset":           "every connection uses the binary character set so that no value is converted on the way",
	"force-table-names": "the ghost, changelog and old tables are always named _<table>_gho, _ghc and _del: the crash recovery and the concurrent-run checks find them by these names",
}

// ignoredBoolFlags are the boolean ones.
var ignoredBoolFlags = map[string]string{
	"allow-master-master":  "go-ghostlite writes to the inspected server's direct source and never crawls further up, so a master-master cycle is not refused and there is nothing to allow",
	"skip-port-validation": "go-ghostlite does not compare @@port with --port, so there is nothing to skip",
	"aliyun-rds":           "go-ghostlite never reads @@port nor derives the server's identity from its host name, which is all gh-ost changes for Aliyun RDS",
	"gcp":                  "go-ghostlite never reads @@port nor derives the server's identity from its host name, which is all gh-ost changes for Cloud SQL",
	"azure":                "go-ghostlite never reads @@port nor derives the server's identity from its host name, which is all gh-ost changes for Azure (give --assume-rbr and --assume-master-host as gh-ost's docs say)",
}

// addCompatFlags registers the gh-ost flags of issue 16 (doc/flags.md, "gh-ost compatibility").
func addCompatFlags(fs *pflag.FlagSet, cfg *migrator.Config, f *compatFlags) {
	fs.BoolVar(&f.checkFlag, "check-flag", false, "only check that every other flag given exists (and is supported): exit 0 if so, 1 if not; nothing else is done (for scripts that work with several versions)")
	fs.BoolVar(&cfg.IncludeTriggers, "include-triggers", false, "migrate a table with triggers: at the cut-over, each trigger is created on the new table, named with --trigger-suffix")
	fs.StringVar(&cfg.TriggerSuffix, "trigger-suffix", "", "with --include-triggers: appended to each trigger's name on the new table (letters, digits, _)")
	fs.BoolVar(&cfg.RemoveTriggerSuffix, "remove-trigger-suffix-if-exists", false, "with --include-triggers: a trigger whose name ends with --trigger-suffix gets the name without it")
	fs.BoolVar(&cfg.AllowNullableUniqueKey, "allow-nullable-unique-key", false, "copy by a unique key with nullable columns when no shared key is NOT NULL; the run checks that those columns hold no NULL and refuses if they do")
	fs.BoolVar(&f.panicOnWarnings, "panic-on-warnings", false, "always on in go-ghostlite: a copy or apply statement whose warnings could mean a lost or changed row fails the migration")
	fs.BoolVar(&cfg.SwitchToRBR, "switch-to-rbr", false, "when the inspected replica's binlog_format is not ROW, set it to ROW and restart its replication (refused if it has replicas)")
	fs.BoolVar(&cfg.Tungsten, "tungsten", false, "the inspected replica is fed by Tungsten: do not require log_slave_updates (use with --assume-master-host)")
	fs.Float64Var(&f.mysqlTimeout, "mysql-timeout", 0, "bound of the connect and the MySQL handshake of every connection, in seconds (0: 10 seconds); unlike gh-ost, reads and writes have no driver timeout")
	fs.IntVar(&cfg.BinlogReconnectAttempts, "binlogsyncer-max-reconnect-attempts", 0, "consecutive failed reconnections of the binary log reader before the migration fails (0: 10; gh-ost's 0 means no limit)")
	f.ignored, f.ignoredBools = map[string]*string{}, map[string]*bool{}
	for name, why := range ignoredFlags {
		f.ignored[name] = fs.String(name, "", "accepted for gh-ost command lines and ignored: "+why)
	}
	for name, why := range ignoredBoolFlags {
		f.ignoredBools[name] = fs.Bool(name, false, "accepted for gh-ost command lines and ignored: "+why)
	}
}

// apply finishes the compatibility flags once parsed: the timeout into the connection settings,
// and one warning line per ignored flag given.
func (f *compatFlags) apply(fs *pflag.FlagSet, cfg *migrator.Config) error {
	if f.mysqlTimeout < 0 {
		return fmt.Errorf("--mysql-timeout must not be negative (got %v)", f.mysqlTimeout)
	}
	cfg.Conn.Timeout = time.Duration(f.mysqlTimeout * float64(time.Second))
	if cfg.BinlogReconnectAttempts < 0 {
		return fmt.Errorf("--binlogsyncer-max-reconnect-attempts must not be negative (got %d)", cfg.BinlogReconnectAttempts)
	}
	names := make([]string, 0, len(ignoredFlags)+len(ignoredBoolFlags))
	for name := range ignoredFlags {
		names = append(names, name)
	}
	for name := range ignoredBoolFlags {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if fs.Changed(name) {
			why := ignoredFlags[name] + ignoredBoolFlags[name]
			cfg.Logger.Warn().Msgf("--%s is ignored: %s", name, why)
		}
	}
	return nil
}
