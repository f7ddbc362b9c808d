package binlogapply

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// lockedSession opens a session of its own that holds the original and the ghost write-locked with
// autocommit off, as lock-rename's C1 does, and returns it with its connection id.
func (f *fixture) lockedSession(ctx context.Context) (*sql.Conn, int64) {
	f.t.Helper()
	conn, err := f.db.Conn(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { conn.Close() })
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		f.t.Fatal(err)
	}
	f.execOn(ctx, conn, "SET SESSION autocommit = 0", "LOCK TABLES {T} WRITE, {G} WRITE")
	return conn, id
}

func (f *fixture) execOn(ctx context.Context, conn *sql.Conn, stmts ...string) {
	f.t.Helper()
	for _, s := range stmts {
		s = f.names(s)
		if _, err := conn.ExecContext(ctx, s); err != nil {
			f.t.Fatalf("%s: %v", s, err)
		}
	}
}

// heldWithChanges starts an applier on a fresh table, holds it, and writes three changes (an insert
// of 100, an update of 2, a delete of 3) that only a job on a locking session can apply now.
func heldWithChanges(t *testing.T, name string) (*fixture, context.Context, func()) {
	f := newLateFixture(t, name)
	f.start()
	f.sentinel(10 * time.Second)
	ctx := context.Background()
	release, err := f.app.Hold(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f.exec("INSERT INTO {T} (id, v) VALUES (100, 'held')", "UPDATE {T} SET v = 'upd' WHERE id = 2", "DELETE FROM {T} WHERE id = 3")
	return f, ctx, release
}

// The tail applied on the cut-over's locking session: every change up to the sentinel is in the
// ghost before that session unlocks (read through it, under its lock), and once released the
// applier goes on with its own session.
func TestApplyOnLockingSession(t *testing.T) {
	f, ctx, release := heldWithChanges(t, "locked_apply")
	conn, _ := f.lockedSession(ctx)
	token := "locked-" + time.Now().Format("150405.000000000")
	if err := changelog.Of(testSchema, f.orig).WriteSentinel(ctx, f.db, token); err != nil {
		t.Fatal(err)
	}
	if err := f.app.ApplyOn(ctx, conn, token); err != nil {
		t.Fatalf("ApplyOn: %v", err)
	}
	var n int
	if err := conn.QueryRowContext(ctx, f.names("SELECT COUNT(*) FROM {G} WHERE (id = 100 AND v = 'held') OR (id = 2 AND v = 'upd') OR id = 3")).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("under the lock the ghost has %d of the 2 expected rows (and no id 3)", n)
	}
	f.execOn(ctx, conn, "UNLOCK TABLES", "SET SESSION autocommit = 1")
	release()
	f.exec("INSERT INTO {T} (id, v) VALUES (101, 'after')")
	f.sentinel(10 * time.Second)
	f.compare([]string{"id", "v"}, []string{"id", "v"}, "id", "id")
}

// The locking session dies while the tail is applied on it: ApplyOn fails, and after release the
// applier applies again what that session did not commit, so nothing is missing.
func TestApplyOnLockingSessionThatDies(t *testing.T) {
	f, ctx, release := heldWithChanges(t, "locked_dies")
	conn, id := f.lockedSession(ctx)
	if err := testenv.KillAndWait(ctx, f.db, id); err != nil {
		t.Fatal(err)
	}
	token := "dies-" + time.Now().Format("150405.000000000")
	if err := changelog.Of(testSchema, f.orig).WriteSentinel(ctx, f.db, token); err != nil {
		t.Fatal(err)
	}
	actx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := f.app.ApplyOn(actx, conn, token); err == nil {
		t.Fatal("ApplyOn on a dead session succeeded")
	}
	release()
	f.sentinel(10 * time.Second)
	f.compare([]string{"id", "v"}, []string{"id", "v"}, "id", "id")
}
