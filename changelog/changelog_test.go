package changelog

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const testSchema = "glr_changelog"

func TestName(t *testing.T) {
	if table.ChangelogName("t") != "_t_ghc" {
		t.Fatal("helper table names differ from gh-ost's")
	}
	if got := Of("s", "t"); got != (Table{Schema: "s", Name: "_t_ghc"}) {
		t.Fatalf("Of = %+v", got)
	}
}

// A row image is read by position; an image too short for the layout is refused.
func TestParseImage(t *testing.T) {
	row, err := ParseImage("_t_ghc", []any{uint64(1), "2026-01-02", []byte("sentinel"), "abc"})
	if err != nil || row != (Row{Hint: HintSentinel, Value: "abc"}) {
		t.Fatalf("ParseImage = %+v, %v", row, err)
	}
	_, err = ParseImage("_t_ghc", []any{uint64(1), "2026-01-02", "heartbeat"})
	if err == nil || err.Error() != "changelog _t_ghc has 3 columns, expected at least 4" {
		t.Fatalf("a short image: %v", err)
	}
}

func TestParseHeartbeat(t *testing.T) {
	at, err := ParseHeartbeat("2024-05-01T12:00:00.5+02:00")
	if err != nil || !at.Equal(time.Date(2024, 5, 1, 10, 0, 0, 500000000, time.UTC)) || at.Location() != time.UTC {
		t.Fatalf("ParseHeartbeat = %v, %v", at, err)
	}
	if _, err := ParseHeartbeat("yesterday"); err == nil || !strings.Contains(err.Error(), `heartbeat "yesterday" is not a time`) {
		t.Fatalf("a value that is not a time: %v", err)
	}
}

// The heartbeat is read back as written, on the primary and on the replica's copy; none written
// reads as ErrNoHeartbeat; a write to a dropped table is ErrGone, other failures go to warn.
func TestHeartbeat(t *testing.T) {
	db := testenv.Database(t, testSchema)
	ctx := context.Background()
	cl := Of(testSchema, "hb")
	if err := cl.Create(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.ReadHeartbeat(ctx, db); !errors.Is(err, ErrNoHeartbeat) || err.Error() != "no heartbeat yet" {
		t.Fatalf("before any heartbeat: %v", err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.FixedZone("x", 3600))
	noWarn := func(err error) { t.Errorf("warned: %v", err) }
	if err := cl.Heartbeat(ctx, db, now, noWarn); err != nil {
		t.Fatal(err)
	}
	if at, err := cl.ReadHeartbeat(ctx, db); err != nil || !at.Equal(now) {
		t.Fatalf("ReadHeartbeat = %v, %v; want %v", at, err, now)
	}
	testenv.WaitReplica(t)
	replica := testenv.Open(t, testenv.ReplicaConfig(), testSchema)
	if at, err := cl.ReadHeartbeat(ctx, replica); err != nil || !at.Equal(now) {
		t.Fatalf("ReadHeartbeat on the replica = %v, %v; want %v", at, err, now)
	}
	testenv.Exec(t, db, "DROP TABLE "+cl.qualified())
	err := cl.Heartbeat(ctx, db, now, noWarn)
	if !errors.Is(err, ErrGone) || !strings.HasPrefix(err.Error(), "the changelog table glr_changelog._hb_ghc no longer exists (heartbeat: ") {
		t.Fatalf("a heartbeat to a dropped table: %v", err)
	}
	testenv.Exec(t, db, "CREATE TABLE "+cl.qualified()+" (hint INT)") // not a changelog: the write fails
	var warned error
	if err := cl.Heartbeat(ctx, db, now, func(err error) { warned = err }); err != nil || warned == nil {
		t.Fatalf("a failed write: returned %v, warned %v", err, warned)
	}
}

// The sentinel row carries the token expect was given, written after expect was called.
func TestAwaitSentinel(t *testing.T) {
	db := testenv.Database(t, testSchema)
	ctx := context.Background()
	cl := Of(testSchema, "sent")
	if err := cl.Create(ctx, db); err != nil {
		t.Fatal(err)
	}
	var token string
	err := cl.AwaitSentinel(ctx, db, func(tok string) <-chan struct{} {
		token = tok
		if n := countHint(t, cl, db, HintSentinel); n != 0 {
			t.Errorf("the sentinel was written before expect: %d rows", n)
		}
		ch := make(chan struct{})
		close(ch)
		return ch
	})
	if err != nil || len(token) != 24 {
		t.Fatalf("AwaitSentinel = %v, token %q", err, token)
	}
	var value string
	if err := db.QueryRow("SELECT value FROM "+cl.qualified()+" WHERE hint = ?", HintSentinel).Scan(&value); err != nil || value != token {
		t.Fatalf("sentinel row %q (%v), want %q", value, err, token)
	}
	// Long enough for the sentinel's write on a busy server (50 ms was not, once, on MySQL 9.7
	// with three flavors' suites at once: "write sentinel: context deadline exceeded").
	tctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	err = cl.AwaitSentinel(tctx, db, func(string) <-chan struct{} { return make(chan struct{}) })
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "not applied") {
		t.Fatalf("a sentinel never applied: %v", err)
	}
}

func countHint(t *testing.T, cl Table, db *sql.DB, hint string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM "+cl.qualified()+" WHERE hint = ?", hint).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A revert's names are read back as written; no changelog, a changelog without them, or a table
// under the name that is not a changelog read as nil; a value that cannot be read is an error.
func TestRevertNames(t *testing.T) {
	db := testenv.Database(t, testSchema)
	ctx := context.Background()
	read := func(tbl string) (*RevertNames, error) { return ReadRevert(ctx, db, testSchema, tbl) }
	if rev, err := read("none"); rev != nil || err != nil {
		t.Fatalf("no changelog: %+v, %v", rev, err)
	}
	cl := Of(testSchema, "rev")
	if err := cl.Create(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := cl.WriteState(ctx, db, "copy"); err != nil {
		t.Fatal(err)
	}
	if rev, err := read("rev"); rev != nil || err != nil {
		t.Fatalf("a changelog without a revert: %+v, %v", rev, err)
	}
	want := RevertNames{Ghost: "_rev_del", Old: "_rev_rev_del"}
	if err := cl.WriteRevert(ctx, db, want); err != nil {
		t.Fatal(err)
	}
	if rev, err := read("rev"); err != nil || rev == nil || *rev != want {
		t.Fatalf("ReadRevert = %+v, %v; want %+v", rev, err, want)
	}
	if err := cl.write(ctx, db, HintRevert, `{"ghost": "_rev_del"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := read("rev"); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Fatalf("a revert row without the old name: %v", err)
	}
	testenv.Exec(t, db, "CREATE TABLE "+Of(testSchema, "other").qualified()+" (id INT PRIMARY KEY)")
	if rev, err := read("other"); rev != nil || err != nil {
		t.Fatalf("a table that is not a changelog: %+v, %v", rev, err)
	}
	if err := Of(testSchema, "gone").WriteRevert(ctx, db, want); err == nil || !strings.HasPrefix(err.Error(), "record its tables in _gone_ghc: ") {
		t.Fatalf("WriteRevert without a table: %v", err)
	}
}

// Adopt keeps a changelog that exists (its rows too) and creates a missing one; Create refuses a
// name that is taken.
func TestAdopt(t *testing.T) {
	db := testenv.Database(t, testSchema)
	ctx := context.Background()
	tbl := Of(testSchema, "a")
	if err := tbl.Adopt(ctx, db); err != nil {
		t.Fatalf("adopt a missing changelog: %v", err)
	}
	if err := tbl.WriteState(ctx, db, "copy"); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Adopt(ctx, db); err != nil {
		t.Fatalf("adopt an existing changelog: %v", err)
	}
	if n := testenv.CountRows(t, db, testSchema, tbl.Name); n != 1 {
		t.Errorf("the adopted changelog has %d rows, want its 1", n)
	}
	if err := tbl.Create(ctx, db); err == nil {
		t.Error("Create over an existing changelog succeeded")
	}
}
