package main

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// --statement is read into --table and --alter right after the command line: with one statement
// the invocation is the one --table/--alter give, with several it holds one config per table.
func TestStatementFlag(t *testing.T) {
	got := mustParse(t, "--database=db", "--statement=ALTER TABLE db.tbl ADD COLUMN c INT;")
	want := mustParse(t, required...)
	if !reflect.DeepEqual(withoutLogger(got), withoutLogger(want)) {
		t.Errorf("--statement of one ALTER:\n got %+v\nwant %+v", withoutLogger(got), withoutLogger(want))
	}
	inv, err := parse(t, "--database=db", "--statement", "CREATE UNIQUE INDEX u ON t (v)", "--serve-socket-file=/tmp/x.sock")
	if err != nil || inv.Tables != nil || inv.Config.Table != "t" || inv.Config.Alter != "ADD UNIQUE INDEX u (v)" || inv.Config.Statement != "" {
		t.Errorf("CREATE UNIQUE INDEX: %v: tables %d, config table %q alter %q statement %q",
			err, len(inv.Tables), inv.Config.Table, inv.Config.Alter, inv.Config.Statement)
	}
	// The interactive commands' server is the table's, as with --table.
	inv, err = parse(t, "--database=db", "--statement=DROP INDEX i ON t")
	if err != nil || inv.Control.Table != "t" || !strings.Contains(inv.Control.SocketFile, "db.t") {
		t.Errorf("DROP INDEX: %v: control %+v", err, inv.Control)
	}

	inv, err = parse(t, "--database=db", "--statement=ALTER TABLE a ADD c INT; ALTER TABLE b ADD c INT", "--execute")
	if err != nil || len(inv.Tables) != 2 || inv.Tables[0].Table != "a" || inv.Tables[1].Table != "b" ||
		inv.Tables[1].Alter != "ADD c INT" || !inv.Tables[1].Execute {
		t.Errorf("two statements: %v: %+v", err, inv.Tables)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--database=db", "--table=t", "--statement=ALTER TABLE t ADD c INT"}, "--statement and --table contradict each other"},
		{[]string{"--database=db", "--alter=ADD c INT", "--statement=ALTER TABLE t ADD c INT"}, "--statement and --alter contradict each other"},
		{[]string{"--statement=ALTER TABLE t ADD c INT"}, "--statement needs --database"},
		{[]string{"--database=db", "--statement=CREATE TABLE u (id INT)"}, "needs no online migration: run it directly"},
		{[]string{"--database=db", "--statement="}, "--statement has no statement"},
		{[]string{"--database=db", "--statement", " -- nothing"}, "--statement has no statement"},
	} {
		if _, err := parse(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasSuffix(err.Error(), "(see go-ghostlite --help)") {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
}

// A --statement the tool cannot run ends before any server is asked, in one FATAL line, exit 2:
// a set with what a set cannot do (runTableSet), a statement refused, a table in two statements.
func TestStatementExitCodes(t *testing.T) {
	for _, c := range []struct {
		statement, stderr string
		flags             []string
	}{
		{"ALTER TABLE a ADD c INT; CREATE INDEX i ON b (v);",
			"FATAL usage: --cut-over=atomic cannot cut 2 tables over at once; use --cut-over=three-step or --cut-over=lock-rename (see go-ghostlite --help)\n",
			[]string{"--cut-over=atomic"}},
		{"ALTER TABLE a ADD c INT; CREATE INDEX i ON b (v);",
			"FATAL usage: --receipt with --statement naming 2 tables: not supported for several tables yet; migrate them one at a time to use it (see go-ghostlite --help)\n",
			[]string{"--receipt=" + filepath.Join(t.TempDir(), "r.json")}},
		{"ALTER TABLE a ADD c INT; DROP TABLE b",
			"FATAL usage: --statement: \"DROP TABLE b\" needs no online migration: run it directly; --statement takes ALTER TABLE, CREATE INDEX and DROP INDEX statements only (see go-ghostlite --help)\n", nil},
		{"ALTER TABLE a ADD c INT; ALTER TABLE a ADD d INT",
			"FATAL usage: --statement: table a appears in two statements; merge them into one ALTER TABLE (see go-ghostlite --help)\n", nil},
		// Each table's own rules, before the set is refused.
		{"ALTER TABLE a ADD c INT; ALTER TABLE " + strings.Repeat("x", 60) + " ADD c INT",
			"FATAL usage: table name \"" + strings.Repeat("x", 60) + "\" is too long for its ghost table name (64 characters at most) (see go-ghostlite --help)\n", nil},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"--database=db", "--statement=" + c.statement, "--execute"}, c.flags...), &stdout, &stderr)
		if code != exitUsage || stderr.String() != c.stderr {
			t.Errorf("--statement=%q: exit %d, stderr %q; want exit %d and %q", c.statement, code, stderr.String(), exitUsage, c.stderr)
		}
	}
}
