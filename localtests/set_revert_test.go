package localtests

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// --revert of a set (doc/revert.md): a set migrated with --checkpoint (judged like every set),
// then written to, is swapped back by one --revert run of the same --statement, under the load,
// with its cut-over postponed like a migration's: each table must have its original definition
// again and every row of the migrated table (the writes since the migration included), converted
// back as the server converts them; and the binary log holds one swap of the set.

// TestSetRevert migrates setResumeCase's tables, writes to them, and reverts the set.
func TestSetRevert(t *testing.T) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	r := &runner{t: t, c: setResumeCase(), admin: admin, schema: "glt_revert_set"}
	r.setup()
	originals := map[string]string{}
	for _, tbl := range r.tables() {
		originals[tbl] = withoutAutoIncrement(r.showCreate(tbl))
	}
	r.c.Flags = []string{"--checkpoint"}
	r.runFull()
	r.compare()
	if hint := "Done migrating the set a, b; to revert it together: the same --database and --statement with --revert --old-table=_a_del,_b_del --execute"; !strings.Contains(r.fullRunLog, hint) {
		t.Errorf("the migration did not log %q", hint)
	}
	for _, tbl := range r.tables() {
		testenv.Exec(t, admin, fmt.Sprintf("DROP TABLE %s.%s", quote(r.schema), quote(r.expectedName(tbl))))
	}

	l := startLoad(r.db, r.c.Load) // writes since the migration
	ran := l.waitMore(moreLoad, 30*time.Second)
	l.Stop()
	if err := l.Err(); err != nil || !ran {
		t.Fatalf("load after the migration: ran %v, %v (%s)", ran, err, l)
	}

	var olds []string
	for _, tbl := range r.tables() {
		olds = append(olds, "_"+tbl+"_del")
	}
	r.c.Flags = []string{"--revert", "--old-table=" + strings.Join(olds, ",")}
	r.runFull()
	r.compareReverted(originals)
	if !t.Failed() {
		testenv.Exec(t, admin, "DROP DATABASE IF EXISTS "+quote(r.schema))
	}
}

// reverting says whether the case's flags make the run a --revert.
func (r *runner) reverting() bool { return slices.Contains(r.c.Flags, "--revert") }

// swappedIn is the table a cut-over renames to tbl: its ghost, or for a --revert its old table.
func (r *runner) swappedIn(tbl string) string {
	if r.reverting() {
		return "_" + tbl + "_del"
	}
	return "_" + tbl + "_gho"
}

var autoIncrementTableOption = regexp.MustCompile(` AUTO_INCREMENT=\d+`)

// withoutAutoIncrement is a SHOW CREATE TABLE without its AUTO_INCREMENT counter.
func withoutAutoIncrement(ddl string) string {
	return autoIncrementTableOption.ReplaceAllString(ddl, "")
}

// compareReverted checks a finished revert of the case's tables: for each table t, t has its
// original definition (originals, without the counter) and the migrated table, now _t_rev_del,
// is gone from the name; t equals expected_t, a table of the original definition filled by the
// server from _t_rev_del (INSERT ... SELECT of the columns they share, in an application's
// session) with _t_rev_del's AUTO_INCREMENT counter.
func (r *runner) compareReverted(originals map[string]string) {
	t := r.t
	for _, tbl := range r.tables() {
		have := testenv.Existing(t, r.admin, r.schema, tbl, "_"+tbl+"_rev_del", "_"+tbl+"_del", "_"+tbl+"_ghc", "_"+tbl+"_gho")
		if !have[tbl] || !have["_"+tbl+"_rev_del"] || have["_"+tbl+"_del"] || have["_"+tbl+"_ghc"] || have["_"+tbl+"_gho"] {
			t.Fatalf("after the revert want %s and _%s_rev_del only, have %v", tbl, tbl, testenv.TableNames(t, r.admin, r.schema, ""))
		}
		if got := withoutAutoIncrement(r.showCreate(tbl)); got != originals[tbl] {
			t.Errorf("%s after the revert is not the original definition:\n--- original:\n%s\n--- reverted:\n%s", tbl, originals[tbl], got)
		}
		live, exp := "_"+tbl+"_rev_del", r.expectedName(tbl)
		inLive := map[string]bool{}
		for _, c := range r.columns(live) {
			inLive[strings.ToLower(c.name)] = true
		}
		var shared []string
		for _, c := range r.columns(tbl) {
			if !c.generated && inLive[strings.ToLower(c.name)] {
				shared = append(shared, quote(c.name))
			}
		}
		list := strings.Join(shared, ", ")
		testenv.Exec(t, r.admin, fmt.Sprintf("CREATE TABLE %s.%s LIKE %s.%s", quote(r.schema), quote(exp), quote(r.schema), quote(tbl)))
		stmts := []string{fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s", quote(exp), list, list, quote(live))}
		if n := r.autoIncrement(live); n != "" {
			stmts = append(stmts, fmt.Sprintf("ALTER TABLE %s AUTO_INCREMENT = %s", quote(exp), n))
		}
		db := r.appSession()
		for _, q := range stmts {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		r.compareDefinitions(tbl)
		r.compareRows(tbl, exp)
	}
}
