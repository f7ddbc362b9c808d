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
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
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
func revertConfig(t *testing.T, serverID uint32, revert bool, logs *testenv.LogBuffer) Config {
	t.Helper()
	cfg := testConfig(t, revertDB, "t", revertAlter, logs)
	executing(&cfg, serverID)
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
func runPostponed(t *testing.T, db *sql.DB, load *loadgen.Load, cfg Config) error {
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
	return autoIncOption.ReplaceAllString(create, "")
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
	if err := runPostponed(t, db, load, revertConfig(t, 79311, false, &logs)); err != nil {
		t.Fatalf("migration: %v", err)
	}
	if !logs.Contains("--revert --old-table=_t_del") {
		t.Error("the migration's last line does not say how to revert")
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
	if err := runPostponed(t, db, load, revertConfig(t, 79312, true, &logs)); err != nil {
		t.Fatalf("revert: %v", err)
	}
	t.Logf("revert took %v (300 writes while postponed)", time.Since(start))
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
	if !strings.Contains(original, "`a` int(11)") {
		t.Fatalf("unexpected definition of t: %s", original)
	}
	cfg := revertConfig(t, 79313, false, nil)
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
			rc := revertConfig(t, 79314, true, nil)
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
	err = waitFailed(t, runMigration(t, revertConfig(t, 79315, true, nil)), "with a value the old table cannot hold")
	if !strings.Contains(err.Error(), "Out of range value for column 'a'") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q, want one line with the out-of-range value", err)
	}
	if after := revertState(t, db); !reflect.DeepEqual(after, before) {
		t.Errorf("the failed revert changed the tables:\nbefore %v\nafter  %v", before, after)
	}
	// The change stays in the binlog: widening the old table by hand lets a retry replay it.
	testenv.Exec(t, db, "DELETE FROM t WHERE id = 100000", "ALTER TABLE _t_del MODIFY a BIGINT NOT NULL")
	if err := testenv.WaitResult(t, runMigration(t, revertConfig(t, 79316, true, nil)), 60*time.Second); err != nil {
		t.Fatalf("revert once the old table can hold the change: %v", err)
	}
	if got, want := showCreate(t, db, "t"), strings.Replace(original, "`a` int(11)", "`a` bigint(20)", 1); got != want {
		t.Errorf("the reverted table's definition:\n%s\nwant:\n%s", got, want)
	}
	if n := testenv.CountRows(t, db, revertDB, "t"); n != 2000 {
		t.Errorf("the reverted table has %d rows, want 2000 (the row inserted then deleted is gone)", n)
	}
	if got := testenv.TableNames(t, db, revertDB, ""); !sameNames(got, "_t_rev_del", "t") {
		t.Errorf("tables after the revert: %v, want [_t_rev_del t]", got)
	}
}

// The revert flags' usage errors, before any server is asked.
func TestRevertUsage(t *testing.T) {
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.OldTableName, c.Alter = "_t_del", "ADD COLUMN c INT" }, "give --revert too"},
		{func(c *Config) { c.Revert = true }, "--revert must be called with --old-table"},
		{func(c *Config) { c.Revert, c.OldTableName, c.Resume = true, "_t_del", true }, "--revert cannot be used with --resume"},
		{func(c *Config) { c.Revert, c.OldTableName, c.Execute = true, "_t_del", false }, "it needs --execute"},
		{func(c *Config) { c.Revert, c.OldTableName = true, "_t_ghk" }, "names the table itself or one of its helper tables"},
		{func(c *Config) { c.Revert, c.OldTableName = true, "T" }, "names the table itself"},
	} {
		cfg := DefaultConfig()
		cfg.Database, cfg.Table, cfg.Execute = "db", "t", true
		c.set(&cfg)
		err := cfg.Validate()
		if err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate: %v, want a usage error with %q", err, c.want)
		}
	}
	cfg := DefaultConfig()
	cfg.Database, cfg.Table, cfg.Execute, cfg.Revert, cfg.OldTableName = "db", "t", true, true, "_t_del"
	if err := cfg.Validate(); err != nil {
		t.Errorf("--revert --old-table=_t_del --execute without --alter: %v", err)
	}
}
