package main

import (
	"bytes"
	"io"
	"reflect"
	"slices"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
)

// gh-ost's spelling: Go's flag package takes -flag, -flag=value and -flag value (non-boolean).
func TestSingleDashSpelling(t *testing.T) {
	two := mustParse(t, "--database=db", "--table", "tbl", "--alter=ADD COLUMN c INT", "--execute",
		"--chunk-size", "500", "--exact-rowcount=false", "--max-lag-millis=2000", "--throttle-query", "-1")
	one := mustParse(t, "-database=db", "-table", "tbl", "-alter=ADD COLUMN c INT", "-execute",
		"-chunk-size", "500", "-exact-rowcount=false", "-max-lag-millis=2000", "-throttle-query", "-1")
	mixed := mustParse(t, "-database", "db", "--table=tbl", "-alter", "ADD COLUMN c INT", "--execute",
		"-chunk-size=500", "--exact-rowcount=false", "-max-lag-millis", "2000", "--throttle-query=-1")
	for name, got := range map[string]config.Config{"one dash": one, "mixed": mixed} {
		if !equalConfigs(got, two) {
			t.Errorf("%s: %+v\nwant %+v", name, withoutLogger(got), withoutLogger(two))
		}
	}
	if !two.Execute || two.ChunkSize != 500 || two.Table != "tbl" || two.ThrottleQuery != "-1" {
		t.Fatalf("two dashes: %+v", withoutLogger(two))
	}

	// A value is never rewritten, even when it looks like a flag: it belongs to the flag before.
	cfg := mustParse(t, "-database=db", "-table=tbl", "-alter", "-execute")
	if cfg.Alter != "-execute" || cfg.Execute {
		t.Errorf("-alter -execute: alter %q, execute %v; want the value \"-execute\"", cfg.Alter, cfg.Execute)
	}
	// A boolean flag takes no value argument, as in Go's flag package.
	if _, err := parse(t, append(slices.Clone(required), "-execute", "false")...); err == nil {
		t.Error("-execute false: accepted; Go's flag package reads false as an argument")
	}
	// An unknown one-dash flag is reported by its long name.
	if _, err := parse(t, append(slices.Clone(required), "-nope=1")...); err == nil || err.Error() != "unknown flag: --nope (see go-ghostlite --help)" {
		t.Errorf("-nope: %v", err)
	}
	// Nothing after "--" is rewritten; -h stays the short help flag.
	if got := normalizeArgs(newFlagSet(new(config.Config), &flagValues{}), []string{"-h", "-", "--", "-alter"}); !slices.Equal(got, []string{"-h", "-", "--", "-alter"}) {
		t.Errorf("normalizeArgs: %q", got)
	}
}

func equalConfigs(a, b config.Config) bool {
	return reflect.DeepEqual(withoutLogger(a), withoutLogger(b))
}

// --check-flag answers whether every other flag exists: exit 0, or 1 with one line; nothing runs.
func TestCheckFlag(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--check-flag", "--alter=x", "--execute", "-chunk-size", "500"}, 0, ""},
		{[]string{"-check-flag", "-throttle-http", "http://x", "-ok-to-drop-table"}, 0, ""},
		{[]string{"--check-flag"}, 0, ""},
		{[]string{"-check-flag", "-no-such-flag"}, 1, "FATAL --check-flag: unknown flag: --no-such-flag (see go-ghostlite --help)\n"},
		{[]string{"--no-such-flag", "--check-flag"}, 1, "FATAL --check-flag: unknown flag: --no-such-flag (see go-ghostlite --help)\n"},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, &stdout, &stderr); code != c.code || stderr.String() != c.stderr || stdout.Len() != 0 {
			t.Errorf("run(%q) = %d, stderr %q, stdout %q; want %d, %q, nothing", c.args, code, stderr.String(), stdout.String(), c.code, c.stderr)
		}
	}
	inv, err := parseArgs([]string{"--check-flag", "--help"}, io.Discard, io.Discard)
	if err != nil || inv.Action != actionCheckFlag {
		t.Errorf("--check-flag --help: action %v, err %v; want the check only", inv.Action, err)
	}
}
