package tablelock

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const testDB = "gl_tablelock"

// A second taker is refused with the holder named; a released lock is not held any more, and
// another session can take it at once.
func TestLockRefusesSecondTakerAndReleases(t *testing.T) {
	db := testenv.Database(t, testDB)
	ctx := context.Background()
	first, err := Acquire(ctx, db, "primary", testDB, "t")
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Check(ctx); err != nil {
		t.Fatalf("check of a held lock: %v", err)
	}
	if _, err := Acquire(ctx, db, "primary", testDB, "t"); err == nil ||
		!strings.Contains(err.Error(), "another process is already migrating `gl_tablelock`.`t`: migration lock go-ghostlite.gl_tablelock.t held by connection id") {
		t.Fatalf("second taker: %v", err)
	}
	if err := first.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := first.Check(ctx); !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), "it is not held") {
		t.Fatalf("check after release: %v", err)
	}
	if err := first.Release(ctx); err != nil {
		t.Fatalf("second release: %v", err)
	}
	second, err := Acquire(ctx, db, "primary", testDB, "t")
	if err != nil {
		t.Fatalf("take after release: %v", err)
	}
	if err := second.Release(ctx); err != nil {
		t.Fatal(err)
	}
	var none *Lock
	if err := none.Check(ctx); !errors.Is(err, ErrLost) {
		t.Fatalf("check of no lock: %v", err)
	}
}

// A lock whose connection is killed is lost: with the server up since the lock was taken the
// error says the connection alone is gone; when the server numbers connections below the lock's
// own (a restart a moment after the lock, which Uptime, in whole seconds, cannot show) it names
// the restart.
func TestLostLockNamesARestart(t *testing.T) {
	db := testenv.Database(t, testDB)
	ctx := context.Background()
	for _, restarted := range []bool{false, true} {
		l, err := Acquire(ctx, db, "primary", testDB, "restart")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("KILL ?", l.connID); err != nil {
			t.Fatal(err)
		}
		if restarted {
			l.connID = 1 << 62 // as if this server had started after the lock was taken
		}
		err = l.Check(ctx)
		if !errors.Is(err, ErrLost) {
			t.Fatalf("check after KILL: %v", err)
		}
		if got := strings.Contains(err.Error(), "the server restarted"); got != restarted {
			t.Errorf("restarted=%v: %v", restarted, err)
		}
		_ = l.Release(ctx)
	}
}

// Only a recorded table is dropped, and only while it is the table recorded and the lock is held.
func TestOwnedDropsOnlyWhatItRecorded(t *testing.T) {
	db := testenv.Database(t, testDB)
	ctx := context.Background()
	testenv.Exec(t, db, "CREATE TABLE mine (id INT PRIMARY KEY)", "CREATE TABLE other (id INT PRIMARY KEY)")
	lock, err := Acquire(ctx, db, "primary", testDB, "t")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release(ctx) //nolint:errcheck // the test's end
	var owned Owned
	if ok, err := owned.Record(ctx, db, testDB, "mine", "mine"); !ok || err != nil {
		t.Fatalf("record: %v %v", ok, err)
	}
	if ok, err := owned.Record(ctx, db, testDB, "gone", "gone"); ok || err != nil {
		t.Fatalf("record of a missing table: %v %v", ok, err)
	}
	if !owned.Has("mine") || owned.Has("other") {
		t.Fatal("Has")
	}
	if err := owned.Drop(ctx, db, lock, testDB, "other"); err == nil || !strings.Contains(err.Error(), "this run did not record creating it") {
		t.Fatalf("drop of another's table: %v", err)
	}
	// Re-created under the name: another table now.
	testenv.Exec(t, db, "DROP TABLE mine", "CREATE TABLE mine (id INT PRIMARY KEY, v INT)")
	if err := owned.Drop(ctx, db, lock, testDB, "mine"); err == nil || !strings.Contains(err.Error(), "it is not the table this run created") {
		t.Fatalf("drop of a replaced table: %v", err)
	}
	if ok, err := owned.Record(ctx, db, testDB, "mine", "mine"); !ok || err != nil {
		t.Fatalf("record again: %v %v", ok, err)
	}
	if err := owned.Drop(ctx, db, nil, testDB, "mine"); !errors.Is(err, ErrLost) {
		t.Fatalf("drop without the lock: %v", err)
	}
	if err := owned.Drop(ctx, db, lock, testDB, "mine"); err != nil {
		t.Fatal(err)
	}
	if got := testenv.TableNames(t, db, testDB, ""); len(got) != 1 || got[0] != "other" {
		t.Fatalf("tables left: %v", got)
	}
	if err := owned.Drop(ctx, db, lock, testDB, "mine"); err != nil {
		t.Fatalf("drop of a missing table: %v", err)
	}
}
