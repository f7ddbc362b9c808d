package binlogapply

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Repeated changes to one key inside a batch merge into one DELETE and one INSERT holding the
// key's last image: no flush (which would need w.tx, nil here).
func TestWriterMergesRepeatedKeys(t *testing.T) {
	w := idValueWriter()
	k := func(id int64) []any { return []any{id} }
	changes := []*change{
		{kind: chInsert, newKey: k(1), values: []any{int64(1), int64(1)}},
		{kind: chInsert, newKey: k(2), values: []any{int64(2), int64(1)}},
		{kind: chUpdate, oldKey: k(1), newKey: k(1), values: []any{int64(1), int64(5)}},
		{kind: chDelete, oldKey: k(2)},
		{kind: chInsert, newKey: k(3), values: []any{int64(3), int64(1)}},
		{kind: chUpdate, oldKey: k(3), newKey: k(4), values: []any{int64(4), int64(7)}},
		{kind: chUpdate, oldKey: k(1), newKey: k(1), values: []any{int64(1), int64(6)}},
	}
	for _, ch := range changes {
		if err := w.add(context.Background(), ch); err != nil {
			t.Fatal(err)
		}
	}
	w.compact()
	q, args := w.p.deleteSQL(w.dels)
	if q != "DELETE FROM `s`.`g` WHERE `id` IN (?, ?, ?, ?)" || len(args) != 4 {
		t.Errorf("delete: %s %v", q, args)
	}
	q, args = w.p.insertSQL(w.ins)
	want := []any{int64(4), int64(7), int64(1), int64(6)} // a replaced row goes last
	if q != "INSERT INTO `s`.`g` (`id`, `v`) VALUES (?, ?), (?, ?)" || len(args) != len(want) {
		t.Fatalf("insert: %s %v", q, args)
	}
	for i := range want {
		if args[i] != want[i] {
			t.Errorf("insert args %v, want %v", args, want)
			break
		}
	}
}

// On the server: many changes to the same keys in one batch, with a unique key whose values
// move between rows (the displaced-row path), end with the ghost equal to the original, by one
// round trip and statement by statement.
func TestApplyMergedBatch(t *testing.T) {
	for _, sbs := range []bool{false, true} {
		name := "merged"
		if sbs {
			name = "merged_sbs"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, name, `CREATE TABLE %s (id INT NOT NULL PRIMARY KEY, u INT, v INT, UNIQUE KEY u (u))`,
				fixtureOpts{batch: 100, statementByStatement: sbs})
			f.exec(`INSERT INTO {T} VALUES (1, 10, 0), (2, 20, 0), (3, 30, 0)`)
			f.sentinel(20 * time.Second)
			txn(t, f,
				`UPDATE {T} SET v = v + 1 WHERE id IN (1, 2)`,
				`UPDATE {T} SET u = NULL WHERE id = 1`,
				`UPDATE {T} SET u = 10 WHERE id = 2`,
				`UPDATE {T} SET u = 20 WHERE id = 1`,
				`DELETE FROM {T} WHERE id = 3`,
				`INSERT INTO {T} VALUES (3, 30, 9)`,
				`UPDATE {T} SET id = 4 WHERE id = 3`,
				`INSERT INTO {T} VALUES (3, 31, 1)`,
				`DELETE FROM {T} WHERE id = 3`,
				`UPDATE {T} SET v = v + 1`)
			f.exec(`UPDATE {T} SET v = v * 2 WHERE id = 4`,
				`UPDATE {T} SET v = v * 2 WHERE id = 4`,
			)
			f.sentinel(20 * time.Second)
			cols := []string{"id", "u", "v"}
			f.compare(cols, cols, "id", "id")
			if d := f.app.Displaced(); d.Err() != nil {
				t.Errorf("rows left displaced: %v", d.Err())
			}
		})
	}
}

// txn runs stmts in one transaction on one connection.
func txn(t *testing.T, f *fixture, stmts ...string) {
	t.Helper()
	tx, err := f.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		s = strings.ReplaceAll(s, "{T}", table.Qualify(testSchema, f.orig))
		if _, err := tx.Exec(s); err != nil {
			_ = tx.Rollback()
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// A batch grows with the backlog, up to ten times --dml-batch-size.
func TestBatchLimit(t *testing.T) {
	for _, c := range []struct{ size, waiting, want int }{
		{10, 0, 10}, {10, 5, 10}, {10, 50, 50}, {10, 5000, 100}, {1, 3, 3}, {100, 2048, 1000},
	} {
		if got := batchLimit(c.size, c.waiting); got != c.want {
			t.Errorf("batchLimit(%d, %d) = %d, want %d", c.size, c.waiting, got, c.want)
		}
	}
}
