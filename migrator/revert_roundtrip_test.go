package migrator

import (
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// roundTripSeed is the original table of the round-trip test: a few hundred rows, an INT, a
// VARCHAR(20), a second INT and a latin1 VARCHAR (with text latin1 can hold) beside the key.
var roundTripSeed = []string{
	"CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, a INT NOT NULL, b VARCHAR(20) NOT NULL DEFAULT 'b'," +
		" n INT NOT NULL DEFAULT 0, s VARCHAR(20) CHARACTER SET latin1 NOT NULL DEFAULT '') DEFAULT CHARSET=utf8mb4",
	"INSERT INTO t (a, b, n, s) SELECT seq * 10, CONCAT('s', seq), seq, CONCAT('café ', seq) FROM seq_1_to_300",
}

// Writes to the live (migrated) table after the cut-over and during the revert: inserts, deletes
// and updates of every column but the key. {b}, {n} and {s} stand for the live names of b, n and
// s, which the ALTER may have renamed.
var (
	roundTripAfter = []string{
		"UPDATE t SET a = a + 1, {b} = CONCAT('after-', id), {n} = id * 3, {s} = CONCAT('Ærø ', id) WHERE id % 7 = 0",
		"INSERT INTO t (id, a, {b}, {n}, {s}) VALUES (1001, 1, 'new-1', 11, 'Ñandú'), (1002, 2, 'new-2', 22, '£ ÿ')",
		"DELETE FROM t WHERE id % 11 = 0",
	}
	roundTripDuring = []string{
		"UPDATE t SET a = -a, {b} = 'during', {n} = {n} + 1000, {s} = 'während' WHERE id % 13 = 0",
		"INSERT INTO t (id, a, {b}, {n}, {s}) VALUES (1003, 3, 'new-3', 33, 'ø')",
		"DELETE FROM t WHERE id IN (2, 1002)",
	}
)

// roundTrip is one lossless ALTER of TestRevertRoundTrip: the ALTER, its reverse (exact: the
// server's own reverse ALTER of a table the ALTER made gives the original's definition and, row
// for row, the values the original would hold), the live names of b, n and s after it (empty:
// not renamed), and writes of the columns it adds.
type roundTrip struct {
	name, alter, reverse string
	b, n, s              string
	extra                []string
}

var roundTrips = []roundTrip{
	{name: "add column with a default", alter: "ADD COLUMN c INT NOT NULL DEFAULT 7", reverse: "DROP COLUMN c",
		extra: []string{"UPDATE t SET c = id WHERE id % 5 = 0", "INSERT INTO t (id, a, c) VALUES (1004, 4, 44)"}},
	{name: "add index", alter: "ADD INDEX a_idx (a)", reverse: "DROP INDEX a_idx"},
	{name: "int to bigint", alter: "MODIFY a BIGINT NOT NULL", reverse: "MODIFY a INT NOT NULL"},
	{name: "change to a new name", alter: "CHANGE b label VARCHAR(20) NOT NULL DEFAULT 'b'",
		reverse: "CHANGE label b VARCHAR(20) NOT NULL DEFAULT 'b'", b: "label"},
	{name: "rename column and widen a varchar", alter: "RENAME COLUMN n TO qty, MODIFY b VARCHAR(40) NOT NULL DEFAULT 'b'",
		reverse: "RENAME COLUMN qty TO n, MODIFY b VARCHAR(20) NOT NULL DEFAULT 'b'", n: "qty"},
	{name: "rename and widen one column", alter: "CHANGE b label VARCHAR(40) NOT NULL DEFAULT 'b'",
		reverse: "CHANGE label b VARCHAR(20) NOT NULL DEFAULT 'b'", b: "label"},
	{name: "latin1 to utf8mb4", alter: "MODIFY s VARCHAR(20) CHARACTER SET utf8mb4 NOT NULL DEFAULT ''",
		reverse: "MODIFY s VARCHAR(20) CHARACTER SET latin1 NOT NULL DEFAULT ''"},
	{name: "all renamed", b: "label", n: "qty", s: "txt",
		alter:   "CHANGE b label VARCHAR(20) NOT NULL DEFAULT 'b', RENAME COLUMN n TO qty, RENAME COLUMN s TO txt",
		reverse: "CHANGE label b VARCHAR(20) NOT NULL DEFAULT 'b', RENAME COLUMN qty TO n, RENAME COLUMN txt TO s"},
}

// writes are stmts with the live column names of c.
func (c roundTrip) writes(stmts []string) []string {
	name := func(live, orig string) string {
		if live != "" {
			return live
		}
		return orig
	}
	r := strings.NewReplacer("{b}", name(c.b, "b"), "{n}", name(c.n, "n"), "{s}", name(c.s, "s"))
	out := make([]string, len(stmts))
	for i, q := range stmts {
		out[i] = r.Replace(q)
	}
	return out
}

// For each lossless ALTER: a --checkpoint migration, writes to every column of the live table
// (renamed ones under their new names) after the cut-over and during the revert, then the
// revert. The reverted table has the original's definition and holds every write: each of its
// rows equals the row of the table it replaced (_t_rev_del) taken through the server's own
// reverse ALTER (oracle, a copy of _t_rev_del altered with ALGORITHM=COPY).
func TestRevertRoundTrip(t *testing.T) {
	for _, c := range roundTrips {
		t.Run(c.name, func(t *testing.T) {
			db := testenv.Database(t, revertDB)
			testenv.Exec(t, db, roundTripSeed...)
			original := showCreate(t, db, "t")
			if err := testenv.WaitResult(t, runMigration(t, checkpointConfig(t, c.alter, "")), 60*time.Second); err != nil {
				t.Fatalf("migration: %v", err)
			}
			if showCreate(t, db, "t") == original {
				t.Fatalf("the migration did not change t's definition")
			}
			testenv.Exec(t, db, c.writes(roundTripAfter)...)
			testenv.Exec(t, db, c.extra...)
			if err := runWriting(t, db, checkpointConfig(t, "", "_t_del"), c.writes(roundTripDuring)...); err != nil {
				t.Fatalf("revert: %v", err)
			}
			if got := showCreate(t, db, "t"); got != original {
				t.Errorf("the reverted table's definition:\n%s\nwant the original's:\n%s", got, original)
			}
			testenv.Exec(t, db, "CREATE TABLE oracle LIKE _t_rev_del", "INSERT INTO oracle SELECT * FROM _t_rev_del",
				"ALTER TABLE oracle "+c.reverse+", ALGORITHM=COPY")
			if got := showCreate(t, db, "oracle"); got != original {
				t.Fatalf("the reverse ALTER is not exact: it makes\n%s\nnot the original's\n%s", got, original)
			}
			sameRowsAs(t, db, "t", "oracle")
		})
	}
}
