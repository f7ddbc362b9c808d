package binlogapply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	sqldriver "github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Displaced rows (displaced.go): the ghost has a unique key the original does not enforce, the
// ghost is filled the way a late row copy would fill it, and real binlog events are replayed from
// a position recorded before the changes.

// newDisplaceFixture creates the trio without starting the applier. seed runs before the
// applier's start position: those rows exist before the changes the test then makes.
func newDisplaceFixture(t *testing.T, name, origDDL, ghostDDL string, batch int, seed ...string) *fixture {
	t.Helper()
	f := newFixture(t, name, origDDL, fixtureOpts{ghostDDL: ghostDDL, batch: batch, noStart: true})
	f.exec(seed...)
	pos, err := CurrentPosition(context.Background(), f.db, f.flavor)
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Start = pos
	return f
}

// copyNow fills the ghost the way the row copy does when it runs now, ahead of the applier:
// INSERT IGNORE of the original's current rows.
func (f *fixture) copyNow(cols string) {
	f.t.Helper()
	f.exec(fmt.Sprintf("INSERT IGNORE INTO %s (%s) SELECT %s FROM {T}", table.Qualify(testSchema, f.ghost), cols, cols))
}

func (f *fixture) ghostCount() int {
	f.t.Helper()
	var n int
	if err := f.db.QueryRow("SELECT COUNT(*) FROM " + table.Qualify(testSchema, f.ghost)).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// The example of the design: the copy read A(1,5) "from the future" while the applier replays the
// insert of B(2,5). A is displaced, then rewritten by its own later event, never put back stale;
// when A is deleted afterwards its saved image must not bring it back. Batch size 1 makes every
// event its own transaction; 50 lets them share one, where B's insert and update merge into its
// last image (2,7) and the clash never happens (whether they share one depends on how fast the
// reader queues them: the applier never waits for a batch to fill). The ghost ends the same.
func TestDisplacedRowRewrittenByItsOwnEvent(t *testing.T) {
	for i, c := range []struct {
		batch   int
		deleteA bool
	}{{1, false}, {50, false}, {1, true}, {50, true}} {
		t.Run(fmt.Sprintf("batch=%d,deleteA=%v", c.batch, c.deleteA), func(t *testing.T) {
			f := newDisplaceFixture(t, fmt.Sprintf("future%d", i),
				`CREATE TABLE %s (id INT PRIMARY KEY, u INT)`,
				`CREATE TABLE %s (id INT PRIMARY KEY, u INT, UNIQUE KEY u (u))`,
				c.batch,
				`INSERT INTO {T} VALUES (1, 4)`)
			f.exec(
				`INSERT INTO {T} VALUES (2, 5)`,     // T1
				`UPDATE {T} SET u = 7 WHERE id = 2`, // T2
				`UPDATE {T} SET u = 5 WHERE id = 1`, // T3
			)
			f.copyNow("id, u") // A(1,5), B(2,7)
			if c.deleteA {
				f.exec(`DELETE FROM {T} WHERE id = 1`, `INSERT INTO {T} VALUES (3, 3)`)
			}
			f.start()
			f.sentinel(20 * time.Second)
			f.compare([]string{"id", "u"}, []string{"id", "u"}, "id", "id")
			if moved := f.app.displaced.moved.Load(); c.batch == 1 && moved == 0 {
				t.Error("no row was displaced: the test did not reproduce the clash")
			}
			if d := f.app.Displaced(); d.Count != 0 || f.app.Stats().Displaced != 0 {
				t.Errorf("rows still displaced: %+v, stats %+v", d, f.app.Stats())
			}
		})
	}
}

// The original legitimately holds a duplicate for a while: A(1,'a',1), then B(2,'A',1) is
// inserted (a duplicate under the ghost's case-insensitive key) and deleted again. A is
// displaced by B's insert and put back by the repair, with every value exact (FLOAT, BIT,
// DATETIME(6)). A row with a NULL in the key never clashes and stays where it is. When B's insert
// and delete share a batch (batch=50, timing permitting) they merge into the delete alone:
// nothing clashes.
func TestDisplacedRowPutBack(t *testing.T) {
	for i, batch := range []int{1, 50} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) {
			cols := "id, u, v, f, b, t"
			f := newDisplaceFixture(t, fmt.Sprintf("putback%d", i),
				`CREATE TABLE %s (id INT PRIMARY KEY, u VARCHAR(20) COLLATE utf8mb4_general_ci, v INT,
				  f FLOAT, b BIT(5), t DATETIME(6)) DEFAULT CHARSET=utf8mb4`,
				`CREATE TABLE %s (id INT PRIMARY KEY, u VARCHAR(20) COLLATE utf8mb4_general_ci, v INT,
				  f FLOAT, b BIT(5), t DATETIME(6), UNIQUE KEY uv (u, v)) DEFAULT CHARSET=utf8mb4`,
				batch,
				`INSERT INTO {T} VALUES (1, 'a', 1, 16777217, b'10101', '2024-02-29 23:59:59.999999'),
				   (3, 'a', NULL, 0.1, b'1', NULL)`)
			f.copyNow(cols)
			f.exec(
				`INSERT INTO {T} VALUES (2, 'A', 1, 1.5, b'0', NULL), (4, 'a', NULL, 2.5, NULL, NULL)`,
				`DELETE FROM {T} WHERE id = 2`,
			)
			f.start()
			f.sentinel(20 * time.Second)
			f.compare(strings.Split(cols, ", "), strings.Split(cols, ", "), "id", "id")
			if moved := f.app.displaced.moved.Load(); moved > 1 || (batch == 1 && moved != 1) {
				t.Errorf("%d rows displaced, want 1 (A only: NULLs never clash; 0 when merged)", moved)
			}
			if d := f.app.Displaced(); d.Count != 0 {
				t.Errorf("rows still displaced: %+v", d)
			}
		})
	}
}

// A genuine clash: the final original holds two rows with u=5. The displaced row is kept (not
// dropped), reported with the key and the value, and put back once the original loses the
// duplicate.
func TestDisplacedGenuineClashReported(t *testing.T) {
	f := newDisplaceFixture(t, "genuine",
		`CREATE TABLE %s (id INT PRIMARY KEY, u INT, w VARCHAR(10))`,
		`CREATE TABLE %s (id INT PRIMARY KEY, u INT, w VARCHAR(10), UNIQUE KEY u (u))`,
		50,
		`INSERT INTO {T} VALUES (1, 5, 'a')`)
	f.copyNow("id, u, w") // the copy ran before the changes
	f.exec(`INSERT INTO {T} VALUES (2, 5, 'b'), (3, 6, 'c')`)
	f.start()
	f.sentinel(20 * time.Second)
	d := f.app.Displaced()
	if d.Count != 1 || len(d.Keys) != 1 || d.Keys[0].Key != "u" || d.Oldest.IsZero() {
		t.Fatalf("displaced %+v, want 1 row on key u", d)
	}
	msg := fmt.Sprint(d.Err())
	for _, want := range []string{"unique key `u` would drop rows", "1 row of the original", "'5'", "original table is untouched"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	// gh-ost's words with the server's own warning, as the server words it for this clash.
	_, err := f.db.Exec("INSERT INTO " + table.Qualify(testSchema, f.ghost) + " (id, u, w) VALUES (99, 5, 'dup')")
	var server *sqldriver.MySQLError
	if !errors.As(err, &server) || server.Number != 1062 {
		t.Fatalf("a duplicate insert into the ghost gave %v, want error 1062", err)
	}
	if want := "warnings detected in statement 1 of 1: [Warning: " + server.Message + " (1062)]: "; !strings.HasPrefix(msg, want) {
		t.Errorf("error %q does not start with %q", msg, want)
	}
	// Nothing dropped: ghost rows plus displaced rows are the original's rows.
	if n := f.ghostCount(); n+d.Count != 3 {
		t.Errorf("ghost has %d rows and %d are displaced; the original has 3", n, d.Count)
	}
	if s := f.app.Stats(); s.Displaced != 1 {
		t.Errorf("stats %+v, want Displaced 1", s)
	}
	// The application resolves the duplicate: the saved row goes back.
	f.exec(`UPDATE {T} SET u = 8 WHERE id = 2`)
	f.sentinel(20 * time.Second)
	if d := f.app.Displaced(); d.Count != 0 || d.Err() != nil {
		t.Errorf("still displaced after the duplicate was resolved: %+v", d)
	}
	f.compare([]string{"id", "u", "w"}, []string{"id", "u", "w"}, "id", "id")
}

// More displaced rows than MaxDisplaced stop Run with a clear message.
func TestDisplacedLimit(t *testing.T) {
	f := newDisplaceFixture(t, "limit",
		`CREATE TABLE %s (id INT PRIMARY KEY, u INT)`,
		`CREATE TABLE %s (id INT PRIMARY KEY, u INT, UNIQUE KEY u (u))`,
		50,
		`INSERT INTO {T} VALUES (1, 1), (2, 2), (3, 3)`)
	f.copyNow("id, u")
	f.exec(`INSERT INTO {T} VALUES (11, 1), (12, 2), (13, 3)`)
	f.cfg.MaxDisplaced = 2
	f.start()
	err := f.runError(20 * time.Second)
	if !strings.Contains(err.Error(), "more than the limit of 2") || !strings.Contains(err.Error(), "`u`") {
		t.Fatalf("unexpected error: %v", err)
	}
}

// The repair drops a saved image whose row is back in the ghost (copied again meanwhile), even
// when the server reports the clash on the other unique key first. Driven by hand on one session,
// without the binlog, so the copy can come between displacement and repair.
func TestRepairDropsImageOfRecopiedRow(t *testing.T) {
	// No primary key: InnoDB clusters on the first unique NOT NULL key, so a duplicate may be
	// reported on u although the shared key k clashes too.
	f := newDisplaceFixture(t, "recopy",
		`CREATE TABLE %s (k INT NOT NULL PRIMARY KEY, u INT NOT NULL)`,
		`CREATE TABLE %s (k INT NOT NULL, u INT NOT NULL, UNIQUE KEY a_u (u), UNIQUE KEY k (k))`,
		50)
	f.cfg.SharedKey = []string{"k"}
	app, err := New(f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := f.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	defer app.discardSession(conn)
	ghost := table.Qualify(testSchema, f.ghost)
	f.exec("INSERT INTO " + ghost + " VALUES (1, 5), (3, 9)")
	insert := func(k, u int64) item {
		return item{kind: itemChange, ch: &change{kind: chInsert, newKey: []any{k}, values: []any{k, u}}}
	}
	apply := func(items ...item) {
		t.Helper()
		if err := app.writeChanges(ctx, conn, items); err != nil {
			t.Fatal(err)
		}
	}
	repair := func() DisplacedRows {
		t.Helper()
		r, err := app.repairDisplaced(ctx, conn)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	apply(insert(2, 5), insert(4, 9)) // displaces (1,5) and (3,9)
	if app.displaced.count != 2 {
		t.Fatalf("displaced %d rows, want 2", app.displaced.count)
	}
	// The copy brings k=1 back in a newer state; u=9 is still held by k=4, so k=3 stays out.
	f.exec("INSERT INTO " + ghost + " VALUES (1, 7)")
	if r := repair(); r.Count != 1 || r.Keys[0].Key != "a_u" || r.Keys[0].Sample != "9" {
		t.Fatalf("after repair: %+v, want k=3 displaced on a_u", r)
	}
	// k=3's image clashes on a_u while a newer k=3 is in the ghost too: dropped, not kept.
	f.exec("DELETE FROM "+ghost+" WHERE k = 4", "INSERT INTO "+ghost+" VALUES (3, 10), (4, 9)")
	if r := repair(); r.Count != 0 {
		t.Fatalf("after repair: %+v, want nothing displaced", r)
	}
	var got string
	if err := f.db.QueryRow("SELECT GROUP_CONCAT(k, ':', u ORDER BY k) FROM " + ghost).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != "1:7,2:5,3:10,4:9" {
		t.Errorf("ghost %s, want the newer rows 1:7,2:5,3:10,4:9", got)
	}
}

func TestAsDuplicate(t *testing.T) {
	for _, c := range []struct{ msg, key, entry string }{
		{"Duplicate entry '5' for key 'u'", "u", "5"},
		{"Duplicate entry 'a-1' for key '_t_gho.uv'", "uv", "a-1"},
		{"Duplicate entry 'it's' for key 'PRIMARY'", "PRIMARY", "it's"},
	} {
		d, ok := asDuplicate(fmt.Errorf("wrapped: %w", &sqldriver.MySQLError{Number: 1062, Message: c.msg}), "_t_gho")
		if !ok || d.key != c.key || d.entry != c.entry {
			t.Errorf("%q: %+v %v", c.msg, d, ok)
		}
	}
	if _, ok := asDuplicate(&sqldriver.MySQLError{Number: 1213}, "t"); ok {
		t.Error("1213 taken for a duplicate")
	}
	if _, ok := asDuplicate(errors.New("Duplicate entry"), "t"); ok {
		t.Error("a plain error taken for a duplicate")
	}
}

func TestDisplacedRowsErr(t *testing.T) {
	if err := (DisplacedRows{}).Err(); err != nil {
		t.Fatalf("no rows, error %v", err)
	}
	d := DisplacedRows{Count: 3, Keys: []KeyClash{{Key: "u", Rows: 2, Sample: "5"}, {Key: "v", Rows: 1}}}
	want := "the ALTER's unique key `u` would drop rows: 2 rows of the original clash on it (e.g. duplicate entry '5'); " +
		"the ALTER's unique key `v` would drop rows: 1 row of the original clashes on it; the original table is untouched"
	if got := d.Err().Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
