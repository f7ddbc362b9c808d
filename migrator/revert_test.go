package migrator

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const revertDB = "gl_mig_revert"

// revertSeed is the original of the revert tests: the ALTER drops b and adds c, so a revert maps
// columns back both ways (c dropped, b given its default).
var revertSeed = []string{
	"CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, a INT NOT NULL, b VARCHAR(10) NOT NULL DEFAULT 'b', KEY (a))",
	"INSERT INTO t (a, b) SELECT seq * 10, 's' FROM seq_1_to_2000",
}

const revertAlter = "ADD COLUMN c INT NOT NULL DEFAULT 7, DROP COLUMN b"

// revertConfig is a --checkpoint migration (or, with revert, the --revert of it) of t.
func revertConfig(t *testing.T, revert bool, logs *testenv.LogBuffer) config.Config {
	t.Helper()
	cfg := configtest.Config(t, revertDB, "t", revertAlter, logs)
	cfg.Checkpoint, cfg.CheckpointInterval = true, 200*time.Millisecond
	if revert {
		cfg.Checkpoint, cfg.Alter = false, ""
		cfg.Revert, cfg.OldTableName = true, "_t_del"
	}
	return cfg
}

// revertLoad writes to t through the migration and the revert: inserts, increments and deletes,
// whose acknowledged effects commute, so the journal alone says what t must hold.
func revertLoad(db *sql.DB) *loadgen.Load {
	return loadgen.Start(context.Background(), loadgen.Config{DB: db, Rate: 300, Workers: 3, Ops: []loadgen.Op{
		func(r *rand.Rand) (string, []any) { return "INSERT INTO t (a) VALUES (?)", []any{r.Intn(1000000)} },
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET a = a + 1 WHERE id = ?", []any{1 + r.Intn(2600)}
		},
		func(r *rand.Rand) (string, []any) { return "DELETE FROM t WHERE id = ?", []any{1 + r.Intn(2600)} },
	}})
}

// expectedRows is t's id -> a as the seed and the acknowledged writes of the journal make it.
func expectedRows(writes []loadgen.Write) map[int64]int64 {
	want := map[int64]int64{}
	for id := int64(1); id <= 2000; id++ {
		want[id] = id * 10
	}
	deleted := map[int64]bool{}
	for _, w := range writes {
		if !w.Acked() {
			continue
		}
		switch w.Op {
		case 0:
			want[w.InsertID] += int64(w.Args[0].(int))
		case 1:
			if w.RowsAffected == 1 {
				want[int64(w.Args[0].(int))]++
			}
		case 2:
			if w.RowsAffected == 1 {
				deleted[int64(w.Args[0].(int))] = true
			}
		}
	}
	for id := range deleted {
		delete(want, id)
	}
	return want
}

// runPostponed runs cfg with its cut-over postponed until the load has acknowledged 300 more
// writes, and returns its result.
func runPostponed(t *testing.T, db *sql.DB, load *loadgen.Load, cfg config.Config) error {
	t.Helper()
	flag := postpone(t, &cfg)
	done := runMigration(t, cfg)
	waitPostponed(t, db, done)
	if !load.WaitAcked(load.Acked()+300, 30*time.Second) {
		t.Fatalf("the load did not write: %v", load.Err())
	}
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	return testenv.WaitResult(t, done, 60*time.Second)
}

// sameNames tells whether names are want, in any order.
func sameNames(names []string, want ...string) bool {
	names, want = slices.Clone(names), slices.Clone(want)
	slices.Sort(names)
	slices.Sort(want)
	return slices.Equal(names, want)
}

// showCreate is tbl's SHOW CREATE TABLE without its name and AUTO_INCREMENT counter.
func showCreate(t *testing.T, db *sql.DB, tbl string) string {
	t.Helper()
	var n, create string
	if err := db.QueryRow("SHOW CREATE TABLE "+tbl).Scan(&n, &create); err != nil {
		t.Fatal(err)
	}
	if i := strings.IndexByte(create, '\n'); i >= 0 {
		create = create[i:]
	}
	return table.WithoutAutoIncrement(create)
}

// A --checkpoint migration under a write load, then its --revert under the same load: the
// reverted table holds every acknowledged write (the journal says what, increments and deletes
// commute), has the original's definition, and the migrated table is kept as _t_rev_del.
func TestRevertUnderLoad(t *testing.T) {
	db := testenv.Database(t, revertDB)
	testenv.Exec(t, db, revertSeed...)
	original := showCreate(t, db, "t")
	load := revertLoad(db)
	defer load.Stop()

	var logs testenv.LogBuffer
	if err := runPostponed(t, db, load, revertConfig(t, false, &logs)); err != nil {
		t.Fatalf("migration: %v", err)
	}
	if !logs.Contains("--revert --old-table=_t_del") {
		t.Error("the migration's last line does not say how to revert")
	}
	// gh-ost's words, which wrappers wait for, each at its moment (a checkpoint while the cut-over
	// is postponed: the load keeps the run checkpointing).
	if missing := logs.InOrder(`"message":"Migrating `, `"message":"Waiting for ghost table to be migrated. Current lag is `,
		`"message":"Row copy complete"`, `"message":"starting checkpoint at `, `"message":"checkpoint success at coords=`,
		`"message":"Waiting for events up to lock"`, `"message":"Done waiting for events up to lock; duration=`,
		`"message":"checkpoint success after cutover at coords=`,
		`"message":"Lock & rename duration: `, ". During mgtr time, queries on `t` were blocked\"",
		`"message":"Am not dropping old table because I want this operation to be as live as possible.`,
		`"message":"-- drop table `+"`"+revertDB+"`.`_t_del`"+`"`,
		`"message":"Done migrating `+revertDB+`.t; to revert it`); missing != "" {
		t.Errorf("the migration's log lacks %s at its moment", missing)
	}
	if !logs.Contains(`"message":"Writing changelog state: `) {
		t.Error("the migration's log lacks gh-ost's Writing changelog state line")
	}
	rec, err := checkpoint.Last(context.Background(), db, revertDB, "_t_ghk")
	if err != nil || !rec.CutOver {
		t.Fatalf("after the cut-over _t_ghk holds %+v (%v), want a cut-over checkpoint", rec, err)
	}
	// The load writes to the migrated table before and during the revert.
	if !load.WaitAcked(load.Acked()+300, 30*time.Second) {
		t.Fatalf("the load did not write: %v", load.Err())
	}
	start := time.Now()
	if err := runPostponed(t, db, load, revertConfig(t, true, &logs)); err != nil {
		t.Fatalf("revert: %v", err)
	}
	if n := strings.Count(logs.String(), `"message":"Migrating `+"`"+revertDB+"`.`t`"+`"`); n != 1 {
		t.Errorf("the migration and its revert logged gh-ost's start line %d times, want once (the migration's)", n)
	}
	t.Logf("revert took %v (300 writes while postponed)", time.Since(start))
	if missing := logs.InOrder("\"message\":\"Reverting `"+revertDB+"`.`t` from `"+revertDB+"`.`_t_del`\"",
		`"message":"Done reverting `+revertDB+`.t: `); missing != "" {
		t.Errorf("the revert's log lacks %s at its moment", missing)
	}
	if !load.WaitAcked(load.Acked()+100, 30*time.Second) {
		t.Fatalf("the load did not write after the revert: %v", load.Err())
	}
	st := load.Stop()
	if err := load.Err(); err != nil {
		t.Fatalf("a write failed: %v", err)
	}
	t.Logf("load: %+v", st)

	if got := showCreate(t, db, "t"); got != original {
		t.Errorf("the reverted table's definition:\n%s\nwant the original's:\n%s", got, original)
	}
	if got := testenv.TableNames(t, db, revertDB, ""); !sameNames(got, "_t_rev_del", "t") {
		t.Errorf("tables after the revert: %v, want [_t_rev_del t]", got)
	}
	want := expectedRows(load.Writes())
	got := testenv.Int64s(t, db, revertDB, "t", "id", "a")
	if len(got) != len(want) {
		t.Errorf("t has %d rows, the journal says %d", len(got), len(want))
	}
	for id, a := range want {
		if g, ok := got[id]; !ok || g != a {
			t.Errorf("row %d: a = %d (present %v), the journal says %d", id, g, ok, a)
		}
	}
	var odd int
	if err := db.QueryRow("SELECT COUNT(*) FROM t WHERE b NOT IN ('s', 'b')").Scan(&odd); err != nil || odd != 0 {
		t.Errorf("%d rows of t have a b that is neither the seed's nor the default (%v)", odd, err)
	}
}

// revertState is what a refused or failed revert must leave as it was: the tables, each one's
// definition and rows.
func revertState(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	st := map[string]string{}
	for _, name := range testenv.TableNames(t, db, revertDB, "") {
		cols := testenv.Columns(t, db, revertDB, name)
		n, sum := testenv.Checksum(t, db, revertDB, name, cols, "`"+cols[0]+"`")
		st[name] = fmt.Sprintf("%s\n%d rows %s", showCreate(t, db, "`"+name+"`"), n, sum)
	}
	return st
}

// Refusals: each is one line naming the problem, and nothing changes. A change the old table
// cannot hold fails the revert before the swap, leaving the old table and the checkpoint for a
// retry, which succeeds once the change is gone.
func TestRevertRefusals(t *testing.T) {
	db := testenv.Database(t, revertDB)
	testenv.Exec(t, db, revertSeed...)
	original := showCreate(t, db, "t")
	intType, bigType := "`a` int(11)", "`a` bigint(20)"
	if !testenv.Flavor(t).MariaDB { // MySQL prints no display widths
		intType, bigType = "`a` int", "`a` bigint"
	}
	if !strings.Contains(original, intType) {
		t.Fatalf("unexpected definition of t: %s", original)
	}
	cfg := revertConfig(t, false, nil)
	cfg.Alter = revertAlter + ", MODIFY a BIGINT NOT NULL"
	if err := testenv.WaitResult(t, runMigration(t, cfg), 60*time.Second); err != nil {
		t.Fatalf("migration: %v", err)
	}
	ctx := context.Background()
	rec, err := checkpoint.Last(ctx, db, revertDB, "_t_ghk")
	if err != nil {
		t.Fatal(err)
	}
	bogus := func(r checkpoint.Record) func() {
		return func() {
			if err := checkpoint.Write(ctx, db, revertDB, "_t_ghk", r); err != nil {
				t.Fatal(err)
			}
		}
	}
	notCutOver, purged := rec, rec
	notCutOver.CutOver, purged.File = false, "binlog.999999"
	restore := bogus(rec)
	for _, c := range []struct {
		name, oldTable, want string
		before, after        func()
	}{
		{"no old table", "_t_gone", "the old table gl_mig_revert._t_gone does not exist", nil, nil},
		{"no checkpoint table", "_t_del", "the checkpoint table gl_mig_revert._t_ghk does not exist",
			func() { testenv.Exec(t, db, "RENAME TABLE _t_ghk TO kept_ghk") }, func() { testenv.Exec(t, db, "RENAME TABLE kept_ghk TO _t_ghk") }},
		{"not a cut-over checkpoint", "_t_del", "holds no cut-over checkpoint", bogus(notCutOver), restore},
		{"purged binlog", "_t_del", "binary log binlog.999999, which 127.0.0.1", bogus(purged), restore},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.before != nil {
				c.before()
				defer c.after()
			}
			before := revertState(t, db)
			rc := revertConfig(t, true, nil)
			rc.OldTableName = c.oldTable
			err := waitFailed(t, runMigration(t, rc), "despite "+c.name)
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line with %q", err, c.want)
			}
			if after := revertState(t, db); !reflect.DeepEqual(after, before) {
				t.Errorf("the refused revert changed the tables:\nbefore %v\nafter  %v", before, after)
			}
		})
	}

	testenv.Exec(t, db, "INSERT INTO t (id, a) VALUES (100000, 1099511627776)") // 2^40: too big for the old INT
	before := revertState(t, db)
	err = waitFailed(t, runMigration(t, revertConfig(t, true, nil)), "with a value the old table cannot hold")
	if !strings.Contains(err.Error(), "Out of range value for column 'a'") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q, want one line with the out-of-range value", err)
	}
	if after := revertState(t, db); !reflect.DeepEqual(after, before) {
		t.Errorf("the failed revert changed the tables:\nbefore %v\nafter  %v", before, after)
	}
	// The change stays in the binlog: widening the old table by hand lets a retry replay it.
	testenv.Exec(t, db, "DELETE FROM t WHERE id = 100000", "ALTER TABLE _t_del MODIFY a BIGINT NOT NULL")
	if err := testenv.WaitResult(t, runMigration(t, revertConfig(t, true, nil)), 60*time.Second); err != nil {
		t.Fatalf("revert once the old table can hold the change: %v", err)
	}
	if got, want := showCreate(t, db, "t"), strings.Replace(original, intType, bigType, 1); got != want {
		t.Errorf("the reverted table's definition:\n%s\nwant:\n%s", got, want)
	}
	if n := testenv.CountRows(t, db, revertDB, "t"); n != 2000 {
		t.Errorf("the reverted table has %d rows, want 2000 (the row inserted then deleted is gone)", n)
	}
	if got := testenv.TableNames(t, db, revertDB, ""); !sameNames(got, "_t_rev_del", "t") {
		t.Errorf("tables after the revert: %v, want [_t_rev_del t]", got)
	}
}

// renameSeed and renameAlter: the migration renames two columns (CHANGE and RENAME COLUMN) and
// keeps their order and types, so the reverted table and the migrated one it replaces can be
// compared row by row, column by column.
var renameSeed = []string{
	"CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, a INT NOT NULL, b VARCHAR(20) NOT NULL DEFAULT 'b', n INT NOT NULL DEFAULT 0)",
	"INSERT INTO t (a, b, n) SELECT seq * 10, CONCAT('s', seq), seq FROM seq_1_to_1000",
}

const renameAlter = "CHANGE b label VARCHAR(20) NOT NULL DEFAULT 'b', RENAME COLUMN n TO qty"

// renameConfig is the --checkpoint migration of renameAlter (--approve-renamed-columns), or the
// --revert of it with --old-table=oldTable.
func renameConfig(t *testing.T, oldTable string) config.Config {
	t.Helper()
	return checkpointConfig(t, renameAlter, oldTable)
}

// checkpointConfig is the --checkpoint migration of t in revertDB with alter
// (--approve-renamed-columns), or, when oldTable is given, the --revert of it with
// --old-table=oldTable.
func checkpointConfig(t *testing.T, alter, oldTable string) config.Config {
	t.Helper()
	cfg := configtest.Config(t, revertDB, "t", alter, nil)
	cfg.Checkpoint, cfg.CheckpointInterval, cfg.ApproveRenamedColumns = true, 200*time.Millisecond, true
	if oldTable != "" {
		cfg.Alter, cfg.ApproveRenamedColumns = "", false
		cfg.Revert, cfg.OldTableName = true, oldTable
	}
	return cfg
}

// revertWriting runs cfg (a revert) with its cut-over postponed, runs during the postponement
// the statements of during, then lets it cut over and returns its result.
func runWriting(t *testing.T, db *sql.DB, cfg config.Config, during ...string) error {
	t.Helper()
	flag := postpone(t, &cfg)
	done := runMigration(t, cfg)
	waitPostponed(t, db, done)
	testenv.Exec(t, db, during...)
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	return testenv.WaitResult(t, done, 60*time.Second)
}

// A migration renaming columns, writes to the renamed columns after its cut-over and during the
// revert, then the revert: the old table holds the written values under the old names, and
// every row of the reverted table equals the row of the migrated table it replaced. The revert
// (with --checkpoint) is reverted in turn, with writes to the old names, and maps them forward
// again. Before that, the refusals: a revert that cannot map the columns safely changes nothing.
func TestRevertMapsRenamedColumns(t *testing.T) {
	db := testenv.Database(t, revertDB)
	testenv.Exec(t, db, renameSeed...)
	original := showCreate(t, db, "t")
	if err := testenv.WaitResult(t, runMigration(t, renameConfig(t, "")), 60*time.Second); err != nil {
		t.Fatalf("migration: %v", err)
	}
	migrated := showCreate(t, db, "t")
	rec, err := checkpoint.Last(context.Background(), db, revertDB, "_t_ghk")
	if err != nil || rec.Swap == nil || !reflect.DeepEqual(*rec.Swap, checkpoint.Swap{Ghost: "_t_gho", Old: "_t_del", Renames: map[string]string{"b": "label", "n": "qty"}}) {
		t.Fatalf("the cut-over checkpoint's swap: %+v (%v), want _t_gho in place of t, kept as _t_del, b -> label, n -> qty", rec.Swap, err)
	}
	checkRenameRefusals(t, db)

	testenv.Exec(t, db, "UPDATE t SET label = CONCAT('after-', id), qty = id * 3 WHERE id % 7 = 0",
		"INSERT INTO t (id, a, label, qty) VALUES (5001, 1, 'new-1', 11), (5002, 2, 'new-2', 22)",
		"DELETE FROM t WHERE id % 11 = 0")
	err = runWriting(t, db, renameConfig(t, "_t_del"),
		"UPDATE t SET label = 'during', qty = qty + 1000 WHERE id % 13 = 0",
		"INSERT INTO t (id, a, label, qty) VALUES (5003, 3, 'new-3', 33)")
	if err != nil {
		t.Fatalf("revert: %v", err)
	}
	if got := showCreate(t, db, "t"); got != original {
		t.Errorf("the reverted table's definition:\n%s\nwant the original's:\n%s", got, original)
	}
	sameRowsAs(t, db, "t", "_t_rev_del")
	var b string
	var n int
	if err := db.QueryRow("SELECT b, n FROM t WHERE id = 14").Scan(&b, &n); err != nil || b != "after-14" || n != 42 {
		t.Errorf("row 14 of the reverted table: b = %q, n = %d (%v), want the values written to label and qty after the cut-over (after-14, 42)", b, n, err)
	}
	if err := db.QueryRow("SELECT b, n FROM t WHERE id = 5003").Scan(&b, &n); err != nil || b != "new-3" || n != 33 {
		t.Errorf("row 5003 of the reverted table: b = %q, n = %d (%v), want the values inserted during the revert (new-3, 33)", b, n, err)
	}

	// The revert kept its own cut-over checkpoint (--checkpoint): reverting it maps b and n to
	// label and qty again.
	testenv.Exec(t, db, "UPDATE t SET b = 'old-name', n = -1 WHERE id % 5 = 0")
	if err := runWriting(t, db, renameConfig(t, "_t_rev_del"), "UPDATE t SET b = 'old-during' WHERE id = 2"); err != nil {
		t.Fatalf("revert of the revert: %v", err)
	}
	if got := showCreate(t, db, "t"); got != migrated {
		t.Errorf("the table after reverting the revert:\n%s\nwant the migrated definition:\n%s", got, migrated)
	}
	sameRowsAs(t, db, "t", "_t_del")
	if err := db.QueryRow("SELECT label, qty FROM t WHERE id = 10").Scan(&b, &n); err != nil || b != "old-name" || n != -1 {
		t.Errorf("row 10: label = %q, qty = %d (%v), want the values written to b and n (old-name, -1)", b, n, err)
	}
}

// sameRowsAs fails the test unless a and b hold the same rows, value for value, in the same
// column order (names aside).
func sameRowsAs(t *testing.T, db *sql.DB, a, b string) {
	t.Helper()
	rowsA, rowsB := testenv.RowsText(t, db, revertDB, a, "id"), testenv.RowsText(t, db, revertDB, b, "id")
	if len(rowsA) != len(rowsB) {
		t.Errorf("%s has %d rows, %s has %d", a, len(rowsA), b, len(rowsB))
	}
	for i := range min(len(rowsA), len(rowsB)) {
		if rowsA[i] != rowsB[i] {
			t.Errorf("row %d: %s has %q, %s has %q", i, a, rowsA[i], b, rowsB[i])
			return
		}
	}
}

// checkRenameRefusals: after the migration of renameAlter, a revert that cannot map the
// renamed columns back is refused in one line and changes nothing.
func checkRenameRefusals(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, c := range []struct {
		name, oldTable, want string
		before, after        []string
	}{
		{"a checkpoint table of an older version", "_t_del", "was written by an older go-ghostlite",
			[]string{"CREATE TABLE kept_ghk LIKE _t_ghk", "INSERT INTO kept_ghk SELECT * FROM _t_ghk", "ALTER TABLE _t_ghk DROP COLUMN cut_over_swap"},
			[]string{"DROP TABLE _t_ghk", "RENAME TABLE kept_ghk TO _t_ghk"}},
		{"another old table", "_t_other", "is of the swap that renamed the replaced table to _t_del, not to _t_other: give --old-table=_t_del",
			[]string{"CREATE TABLE _t_other LIKE _t_del"}, []string{"DROP TABLE _t_other"}},
		{"a renamed column gone from the old table", "_t_del", "column label of t holds what column b of _t_del held, but _t_del has no column b",
			[]string{"ALTER TABLE _t_del RENAME COLUMN b TO bb"}, []string{"ALTER TABLE _t_del RENAME COLUMN bb TO b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			testenv.Exec(t, db, c.before...)
			defer testenv.Exec(t, db, c.after...)
			before := revertState(t, db)
			err := waitFailed(t, runMigration(t, renameConfig(t, c.oldTable)), "despite "+c.name)
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q, want one line with %q", err, c.want)
			}
			if after := revertState(t, db); !reflect.DeepEqual(after, before) {
				t.Errorf("the refused revert changed the tables:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// A revert that died between its two renames left t missing, _t_rev_del (the live table) and
// _t_del (the old table). A run refuses, naming --recover-cut-over; --recover-cut-over reads the
// revert's names from its changelog, refuses an --old-table that is not the revert's, and renames
// _t_rev_del back, keeping the old table and the checkpoint: the revert then runs again, from the
// cut-over checkpoint it wrote under its lock, and every write survives.
func TestRecoverRevertCutOver(t *testing.T) {
	db := testenv.Database(t, revertDB)
	testenv.Exec(t, db, renameSeed...)
	if err := testenv.WaitResult(t, runMigration(t, renameConfig(t, "")), 60*time.Second); err != nil {
		t.Fatalf("migration: %v", err)
	}
	testenv.Exec(t, db, "UPDATE t SET label = 'before-crash', qty = -7 WHERE id = 3")
	dieBetweenRenames(t, db, renameConfig(t, "_t_del"))
	if got := testenv.TableNames(t, db, revertDB, ""); !sameNames(got, "_t_rev_del", "_t_del", "_t_ghc", "_t_ghk") {
		t.Fatalf("tables after the revert died: %v, want _t_rev_del, _t_del, _t_ghc and _t_ghk", got)
	}

	before := revertState(t, db)
	err := waitFailed(t, runMigration(t, renameConfig(t, "_t_del")), "with t missing")
	want := revertDB + ".t is missing but _t_rev_del and _t_del exist: a previous --revert died during its cut-over; run again with --recover-cut-over to restore t (nothing was changed)"
	if err.Error() != want {
		t.Errorf("revert on a died revert: %v, want %q", err, want)
	}
	recoverCfg := func(oldTable string) config.Config {
		c := renameConfig(t, oldTable)
		c.RecoverCutOver, c.Alter, c.ApproveRenamedColumns = true, "", false
		return c
	}
	err = mustNew(t, recoverCfg("_t_rev_del")).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "swaps back _t_del, not --old-table=_t_rev_del (nothing was changed)") {
		t.Errorf("--recover-cut-over with another --old-table: %v, want a refusal", err)
	}
	if after := revertState(t, db); !reflect.DeepEqual(after, before) {
		t.Fatalf("the refusals changed the tables:\nbefore %v\nafter  %v", before, after)
	}

	if err := mustNew(t, recoverCfg("")).Run(context.Background()); err != nil {
		t.Fatalf("--recover-cut-over: %v", err)
	}
	if got := testenv.TableNames(t, db, revertDB, ""); !sameNames(got, "t", "_t_del", "_t_ghk") {
		t.Fatalf("tables after the recovery: %v, want t, _t_del and _t_ghk (the changelog dropped)", got)
	}
	if !testenv.HasColumn(t, db, revertDB, "t", "label") {
		t.Fatal("t is not the live (migrated) table after the recovery")
	}
	if err := mustNew(t, recoverCfg("")).Run(context.Background()); err != nil {
		t.Fatalf("a second --recover-cut-over: %v, want nothing to do", err)
	}

	testenv.Exec(t, db, "UPDATE t SET label = 'after-recovery' WHERE id = 4")
	if err := testenv.WaitResult(t, runMigration(t, renameConfig(t, "_t_del")), 60*time.Second); err != nil {
		t.Fatalf("the revert after the recovery: %v", err)
	}
	sameRowsAs(t, db, "t", "_t_rev_del")
	var b string
	var n int
	if err := db.QueryRow("SELECT b, n FROM t WHERE id = 3").Scan(&b, &n); err != nil || b != "before-crash" || n != -7 {
		t.Errorf("row 3: b = %q, n = %d (%v), want the values written before the revert died (before-crash, -7)", b, n, err)
	}
}

// dieBetweenRenames runs cfg (without --checkpoint: the revert's cut-over checkpoint is written
// all the same) and leaves the tables as a process killed between the two renames would: before
// rename 2 is queued, C1 is killed, so the queued rename 1 runs, and a transaction reading the
// renamed table keeps the attempt's own recovery from renaming it back until the run has failed
// (its clean-up touches nothing once the table is missing).
func dieBetweenRenames(t *testing.T, db *sql.DB, cfg config.Config) {
	t.Helper()
	cfg.Checkpoint, cfg.DefaultRetries, cfg.CutOverLockTimeout = false, 1, time.Second
	holder, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	var s seams
	s.cutOver.BeforeStep = func(ctx context.Context, step cutover.Step, info cutover.StepInfo) error {
		if step != cutover.StepRename2 {
			return nil
		}
		if err := testenv.KillAndWait(ctx, db, info.Lock); err != nil {
			return err
		}
		if err := testenv.Poll(ctx, 10*time.Second, 10*time.Millisecond, "rename 1 run", func() (bool, error) {
			found, err := testenv.ReadExisting(ctx, db, revertDB, "_t_rev_del")
			return found["_t_rev_del"], err
		}); err != nil {
			return err
		}
		for _, q := range []string{"BEGIN", "SELECT COUNT(*) FROM _t_rev_del"} {
			if _, err := holder.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return errors.New("test: the process dies between the renames")
	}
	// The attempt's own recovery could not rename the table back: the run says the tables need a look.
	if err := waitFailed(t, runWithSeams(t, cfg, s), "although it died between its renames"); !errors.Is(err, cutover.ErrUnknownState) {
		t.Fatalf("the revert failed with %v, want the cut-over's unknown state", err)
	}
	if _, err := holder.ExecContext(context.Background(), "COMMIT"); err != nil {
		t.Fatal(err)
	}
}
