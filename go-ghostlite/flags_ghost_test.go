package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// ghostFlags is every flag of gh-ost 1.1.10 (GHOST-REFERENCE.md, section 1: the 108 flags of
// main.go), with a valid value ("" for a boolean flag). The one list of gh-ost's flags.
var ghostFlags = []struct{ name, value string }{
	// connection and credentials
	{"host", "db1"}, {"port", "3307"}, {"user", "u"}, {"password", "p"}, {"ask-pass", ""},
	{"conf", "@conf"}, {"master-user", "mu"}, {"master-password", "mp"},
	{"assume-master-host", "primary:3306"}, {"mysql-timeout", "5"}, {"charset", "utf8mb4"},
	{"ssl", ""}, {"ssl-ca", "@dir/ca.pem"}, {"ssl-cert", "@dir/client.pem"}, {"ssl-key", "@dir/client-key.pem"},
	{"ssl-allow-insecure", ""}, {"skip-port-validation", ""}, {"replica-server-id", "4242"},
	// migration target and DDL
	{"database", "db"}, {"table", "tbl"}, {"alter", "ADD COLUMN c INT"}, {"execute", ""},
	{"storage-engine", "innodb"}, {"attempt-instant-ddl", ""}, {"approve-renamed-columns", ""},
	{"skip-renamed-columns", ""}, {"allow-nullable-unique-key", ""}, {"discard-foreign-keys", ""},
	{"skip-foreign-key-checks", ""}, {"include-triggers", ""}, {"trigger-suffix", "_new"},
	{"remove-trigger-suffix-if-exists", ""}, {"force-table-names", "tmp"},
	{"timestamp-old-table", ""}, {"skip-strict-mode", ""}, {"allow-zero-in-date", ""},
	{"revert", ""}, {"old-table", "_tbl_del"},
	// topology
	{"allow-on-master", ""}, {"allow-master-master", ""}, {"tungsten", ""}, {"test-on-replica", ""},
	{"test-on-replica-skip-replica-stop", ""}, {"migrate-on-replica", ""}, {"switch-to-rbr", ""},
	{"assume-rbr", ""},
	// row copy
	{"chunk-size", "500"}, {"nice-ratio", "0.5"}, {"exact-rowcount", ""}, {"concurrent-rowcount", ""},
	{"default-retries", "7"}, {"panic-on-warnings", ""}, {"checkpoint", ""}, {"checkpoint-seconds", "60"},
	{"resume", ""},
	// binlog
	{"dml-batch-size", "20"}, {"gtid", ""}, {"binlogsyncer-max-reconnect-attempts", "5"},
	{"heartbeat-interval-millis", "200"},
	// throttling
	{"max-lag-millis", "2000"}, {"throttle-control-replicas", "r1,r2:3307"}, {"throttle-query", "select 0"},
	{"throttle-http", "http://freno/check"}, {"throttle-http-interval-millis", "200"},
	{"throttle-http-timeout-millis", "500"}, {"ignore-http-errors", ""}, {"throttle-flag-file", "/tmp/th"},
	{"throttle-additional-flag-file", "/tmp/th2"}, {"max-load", "Threads_running=25"},
	{"critical-load", "Threads_running=1000"}, {"critical-load-interval-millis", "500"},
	{"critical-load-hibernate-seconds", "30"}, {"replication-lag-query", "select 1"},
	// cut-over
	{"cut-over", "atomic"}, {"cut-over-lock-timeout-seconds", "5"}, {"cut-over-exponential-backoff", ""},
	{"exponential-backoff-max-interval", "16"}, {"postpone-cut-over-flag-file", "/tmp/postpone"},
	{"force-named-cut-over", ""}, {"analyze-ghost-table-before-cutover", ""},
	{"allow-setup-metadata-lock-instruments", ""}, {"skip-metadata-lock-check", ""},
	// table lifecycle
	{"initially-drop-ghost-table", ""}, {"initially-drop-old-table", ""}, {"ok-to-drop-table", ""},
	// hooks
	{"hooks-path", "@dir"}, {"hooks-hint", "h"}, {"hooks-hint-owner", "o"}, {"hooks-hint-token", "t"},
	{"hooks-status-interval", "30"},
	// interactive, emergency
	{"serve-socket-file", "/tmp/x.sock"}, {"serve-tcp-port", "10001"}, {"initially-drop-socket-file", ""},
	{"panic-flag-file", "/tmp/panic"}, {"force-named-panic", ""},
	// platforms
	{"aliyun-rds", ""}, {"gcp", ""}, {"azure", ""},
	// observability and misc
	{"statsd-addr", "127.0.0.1:8125"}, {"statsd-tags", "env:test"}, {"runtime-metrics-interval", "5"},
	{"verbose", ""}, {"debug", ""}, {"quiet", ""}, {"stack", ""}, {"help", ""}, {"version", ""},
	{"check-flag", ""},
}

// companionFlags are what a flag needs beside it to be valid (--ssl-ca needs --ssl).
var companionFlags = map[string][]string{
	"ssl-ca": {"--ssl"}, "ssl-allow-insecure": {"--ssl"},
	"ssl-cert": {"--ssl", "--ssl-key=@dir/client-key.pem"}, "ssl-key": {"--ssl", "--ssl-cert=@dir/client.pem"},
}

// readsTheTerminal are flags whose parsing reads standard input (empty in tests): their error
// must be the one about the missing input, which proves the flag was recognized.
var readsTheTerminal = map[string]string{"ask-pass": "no password read from standard input"}

// TestEveryGhostFlagIsAccepted parses every gh-ost flag, in both spellings (one dash and two; with
// '=' and, for a flag with a value, as the next argument): none may be refused.
func TestEveryGhostFlagIsAccepted(t *testing.T) {
	if len(ghostFlags) != 108 {
		t.Fatalf("ghostFlags has %d flags; gh-ost 1.1.10 has 108", len(ghostFlags))
	}
	dir := t.TempDir()
	testenv.WriteTestCertificates(t, dir)
	conf := filepath.Join(dir, "my.cnf")
	if err := os.WriteFile(conf, []byte("[client]\nuser = u\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range ghostFlags {
		if seen[f.name] {
			t.Errorf("--%s is twice in ghostFlags", f.name)
		}
		seen[f.name] = true
		value := strings.NewReplacer("@conf", conf, "@dir", dir).Replace(f.value)
		for _, dash := range []string{"-", "--"} {
			forms := [][]string{{dash + f.name}}
			if value != "" {
				forms = [][]string{{dash + f.name + "=" + value}, {dash + f.name, value}}
			}
			for _, form := range forms {
				args := append(slices.Clone(form), "-database=db", "--table=tbl", "-alter", "ADD COLUMN d INT")
				if f.name == "quiet" {
					args = append(args, "--verbose=false")
				}
				for _, c := range companionFlags[f.name] {
					args = append(args, strings.ReplaceAll(c, "@dir", dir))
				}
				_, err := parse(t, args...)
				switch {
				case readsTheTerminal[f.name] != "":
					if err == nil || !strings.Contains(err.Error(), readsTheTerminal[f.name]) {
						t.Errorf("%q: %v; want %q", form, err, readsTheTerminal[f.name])
					}
				case err != nil:
					t.Errorf("%q: %v", form, err)
				}
			}
		}
	}
}

// --help names every gh-ost flag.
func TestHelpNamesEveryGhostFlag(t *testing.T) {
	var out bytes.Buffer
	if _, err := parseArgs([]string{"--help"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, f := range ghostFlags {
		if !strings.Contains(out.String(), "--"+f.name+" ") && !strings.Contains(out.String(), "--"+f.name+",") && !strings.Contains(out.String(), "--"+f.name+".") {
			t.Errorf("--help does not name --%s", f.name)
		}
	}
}

// The flag table marks exactly gh-ost's flags as gh-ost's (as in gh-ost, with a difference, or
// accepted and ignored), with a note for each difference and each ignored flag; the others are ours.
func TestFlagTableKnowsGhostFlags(t *testing.T) {
	isGhost := map[string]bool{}
	for _, f := range ghostFlags {
		isGhost[f.name] = true
	}
	inTable := map[string]bool{}
	eachFlag(func(s *flagSpec) {
		inTable[s.name] = true
		switch {
		case isGhost[s.name] && s.ghost == ours:
			t.Errorf("--%s is gh-ost's: the flag table says it is ours", s.name)
		case !isGhost[s.name] && s.ghost != ours:
			t.Errorf("--%s is not gh-ost's: the flag table maps it to gh-ost's", s.name)
		case (s.ghost == ghostDiffers || s.ghost == ghostIgnored) && s.note == "":
			t.Errorf("--%s: the flag table says neither what differs from gh-ost nor why it is ignored", s.name)
		}
	})
	for name := range isGhost {
		if !inTable[name] {
			t.Errorf("gh-ost's --%s is not in the flag table", name)
		}
	}
}
