package checkpoint

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const resumeDB = "gl_checkpoint_resume"

// resumeOf is the Resume of a migration of resumeDB.t by ALTER alter, with its ghost _t_gho made
// by ghostAlter and its checkpoint table holding rec (no table when rec is nil).
func resumeOf(t *testing.T, alter, ghostAlter string, rec *Record) (Resume, *sql.DB) {
	t.Helper()
	db := testenv.Database(t, resumeDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT)", "CREATE TABLE _t_gho LIKE t", "ALTER TABLE _t_gho "+ghostAlter)
	if rec != nil {
		testenv.Exec(t, db, DDL(resumeDB, "_t_ghk"))
		if err := Write(context.Background(), db, resumeDB, "_t_ghk", *rec); err != nil {
			t.Fatal(err)
		}
	}
	return Resume{Primary: db, Source: db, SourceAddr: "the source", Alter: alter, Log: testenv.Logger(t, nil),
		Tables: Tables{Schema: resumeDB, Original: "t", Ghost: "_t_gho", Changelog: "_t_ghc", Checkpoint: "_t_ghk"}}, db
}

// currentLog is the last binary log db has.
func currentLog(t *testing.T, db *sql.DB) string {
	t.Helper()
	logs, err := BinaryLogs(context.Background(), db)
	if err != nil || len(logs) == 0 {
		t.Fatalf("binary logs: %v, %v", logs, err)
	}
	return logs[len(logs)-1]
}

// Checkpoint returns the stopped run's checkpoint when everything is in place, and refuses in one
// line, naming the way out, when anything is not.
func TestResumeCheckpoint(t *testing.T) {
	const alter = "ADD COLUMN `C` INT"
	_, db := resumeOf(t, alter, "ADD COLUMN c INT", nil)
	file := currentLog(t, db)
	good := Record{File: file, Pos: 4, Alter: &Alter{Alter: alter, CopiedFrom: map[string]string{"id": "id"}}}
	cases := []struct {
		name string
		rec  *Record
		tidy func(db *sql.DB) // after the tables are made
		says string           // "" when the checkpoint is accepted
	}{
		{"accepted", &good, nil, ""},
		{"no ghost", &good, func(db *sql.DB) { testenv.Exec(t, db, "DROP TABLE _t_gho") }, "the ghost table gl_checkpoint_resume._t_gho does not exist, so there is nothing to resume"},
		{"no checkpoint table", nil, nil, "the checkpoint table gl_checkpoint_resume._t_ghk does not exist (the earlier run had no --checkpoint): drop _t_gho and _t_ghc"},
		{"no checkpoint", &good, func(db *sql.DB) { testenv.Exec(t, db, "DELETE FROM _t_ghk") }, "holds no checkpoint"},
		{"another alter", &Record{File: file, Pos: 4, Alter: &Alter{Alter: "ADD COLUMN `D` INT"}}, nil, "is of another ALTER (ADD COLUMN `D` INT), not this one (ADD COLUMN `C` INT)"},
		{"no alter recorded", &Record{File: file, Pos: 4}, nil, "does not say which ALTER it is of"},
		{"purged", &Record{File: "nosuch-bin.000001", Pos: 4, Alter: good.Alter}, nil, "starts in binary log nosuch-bin.000001, which the source no longer has (purged): drop _t_gho, _t_ghc and _t_ghk and run without --resume"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, db := resumeOf(t, alter, "ADD COLUMN c INT", c.rec)
			if c.tidy != nil {
				c.tidy(db)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			rec, err := r.Checkpoint(ctx)
			if c.says == "" {
				if err != nil || rec.File != file || rec.Pos != 4 {
					t.Fatalf("got %+v (%v), want the checkpoint", rec, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.says) || !strings.HasPrefix(err.Error(), "--resume") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line saying %q", err, c.says)
			}
		})
	}
}

// CompareGhost accepts a ghost that is what build makes of the original now and refuses another;
// the scratch table is gone either way.
func TestResumeCompareGhost(t *testing.T) {
	for _, c := range []struct {
		name, ghostAlter string
		ok               bool
	}{
		{"the same ghost", "ADD COLUMN c INT, AUTO_INCREMENT=500", true},
		{"another ghost", "ADD COLUMN c BIGINT", false},
		// MySQL names the CHECK constraints of a table made LIKE another after the new table.
		{"the same ghost with a CHECK constraint", "ADD COLUMN c INT, ADD CHECK (v > 0)", true},
		{"another CHECK constraint", "ADD COLUMN c INT, ADD CHECK (v > 1)", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, db := resumeOf(t, "", c.ghostAlter, nil)
			testenv.Exec(t, db, "CREATE TABLE "+ScratchName("t")+" (leftover INT)") // an earlier run's
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err := r.CompareGhost(ctx, func(ctx context.Context, scratch string) (bool, error) {
				q := "CREATE TABLE " + table.Qualify(resumeDB, scratch) + " LIKE t"
				if _, err := db.ExecContext(ctx, q); err != nil {
					return false, err
				}
				add := "ADD COLUMN c INT"
				if strings.Contains(c.ghostAlter, "CHECK") {
					add += ", ADD CHECK (v > 0)"
				}
				_, err := db.ExecContext(ctx, "ALTER TABLE "+table.Qualify(resumeDB, scratch)+" "+add)
				return true, err
			})
			cancel()
			if c.ok && err != nil {
				t.Fatalf("got %v, want the ghost accepted", err)
			}
			if !c.ok && (err == nil || !strings.Contains(err.Error(), "the ghost table gl_checkpoint_resume._t_gho is not what this ALTER makes of t now")) {
				t.Fatalf("got %v, want the ghost refused", err)
			}
			if left := testenv.Existing(t, db, resumeDB, ScratchName("t")); left[ScratchName("t")] {
				t.Error("the scratch table was left behind")
			}
		})
	}
}

// SameCopy refuses another column mapping under the same ALTER; Rewalk asks for every key again
// only when a key is recorded and the ghost has another unique key or a shared key addressed by
// its bytes; StreamFrom needs a GTID set
// with --gtid.
func TestResumeCopyAndStream(t *testing.T) {
	tabs := Tables{Ghost: "_t_gho", Changelog: "_t_ghc", Checkpoint: "_t_ghk"}
	was := AlterOf("X", map[string]string{"b": "a"}, nil)
	if err := SameCopy(tabs, was, AlterOf("X", map[string]string{"B": "A"}, nil)); err != nil {
		t.Errorf("the same mapping in another case: %v", err)
	}
	if err := SameCopy(tabs, nil, AlterOf("X", nil, nil)); err != nil {
		t.Errorf("a checkpoint without its ALTER: %v, want nil (refused earlier)", err)
	}
	err := SameCopy(tabs, was, AlterOf("X", map[string]string{"b": "b"}, nil))
	if err == nil || !strings.Contains(err.Error(), "the stopped run copied b<-a, this one would copy b<-b") {
		t.Errorf("another mapping: %v", err)
	}

	ghost := &table.Table{UniqueKeys: []table.Key{{Name: "PRIMARY"}, {Name: "u"}}}
	withKey := Record{Key: []sql.RawBytes{sql.RawBytes("1")}}
	only := &table.Table{UniqueKeys: ghost.UniqueKeys[:1]}
	if !Rewalk(withKey, ghost, "primary", false) || Rewalk(Record{}, ghost, "PRIMARY", false) || Rewalk(withKey, only, "PRIMARY", false) {
		t.Error("Rewalk: want true only with a key and another unique key")
	}
	if !Rewalk(withKey, only, "PRIMARY", true) || Rewalk(Record{}, only, "PRIMARY", true) {
		t.Error("Rewalk: want true with a key whose rows are addressed by their bytes")
	}

	if _, err := (Record{File: "f", Pos: 4}).StreamFrom(true); err == nil {
		t.Error("--gtid without a GTID set: want a refusal")
	}
	if pos, err := (Record{File: "f", Pos: 4, GTID: "0-1-2"}).StreamFrom(true); err != nil || pos != (Position{File: "f", Pos: 4, GTID: "0-1-2"}) {
		t.Errorf("StreamFrom: %+v, %v", pos, err)
	}
}

// A checkpoint resumes in the same set of tables only (in any order): a part of a set, a set
// from a lone table's checkpoint, or another set is refused, naming what to resume with.
func TestSameSet(t *testing.T) {
	r := Resume{Tables: Tables{Original: "a", Checkpoint: "_a_ghk", Ghost: "_a_gho", Changelog: "_a_ghc"}}
	ab := AlterOf("X", nil, []string{"b", "a"}).Set
	for _, c := range []struct {
		was, now []string
		want     string
	}{
		{nil, nil, ""},
		{ab, []string{"a", "b"}, ""},
		{ab, []string{"b", "a"}, ""},
		{ab, nil, "is of the set of tables a, b, cut over together: resume them together, with the stopped run's --statement"},
		{nil, []string{"a", "b"}, "is of a migrated alone, not in the set of tables a, b: resume it alone"},
		{ab, []string{"a", "c"}, "is of the set of tables a, b, not a, c"},
	} {
		r.Set = c.now
		err := r.sameSet(c.was)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("was %v, now %v: got %v, want %q", c.was, c.now, err, c.want)
		}
	}
}
