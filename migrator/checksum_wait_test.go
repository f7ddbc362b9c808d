package migrator

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// A session holding a row of the original with SELECT ... FOR UPDATE in an open transaction keeps
// the checksum's read lock waiting (issue 34.2). The checksum tries again, --default-retries
// attempts of --cut-over-lock-timeout-seconds each, naming the blocking session: with a bound
// shorter than the hold the run fails (the original intact), with a longer one it waits for the
// blocker to commit and migrates.
func TestChecksumWaitsForABlockingSession(t *testing.T) {
	t.Parallel() // a database of its own
	for _, c := range []struct {
		name    string
		retries int
		ok      bool
	}{{"short bound", 2, false}, {"long bound", 30, true}} {
		t.Run(c.name, func(t *testing.T) {
			logs := &testenv.LogBuffer{}
			db, cfg := checksumSetup(t, "ADD COLUMN c INT NULL", logs)
			cfg.CutOverLockTimeout, cfg.DefaultRetries = time.Second, c.retries
			var id int64
			var release *time.Timer
			defer func() {
				if release != nil {
					release.Stop()
				}
			}()
			// Taken once the copy is done (it would hold the copy up instead), held 12 s.
			beforeSnapshot := func(ctx context.Context, _ int) error {
				if release == nil {
					held := context.WithoutCancel(ctx) // the blocker outlives the attempt
					var blocker *sql.Conn
					blocker, id = holdRow(held, t, db)
					release = time.AfterFunc(12*time.Second, func() { _, _ = blocker.ExecContext(held, "COMMIT") })
				}
				return nil
			}
			err := testenv.WaitResult(t, runWithSeams(t, cfg, seams{beforeSnapshot: beforeSnapshot}), 120*time.Second)
			if !logs.Contains("blocked by session " + strconv.FormatInt(id, 10)) {
				t.Errorf("the log does not name the blocking session %d", id)
			}
			if c.ok {
				if err != nil {
					t.Fatalf("migration: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "--default-retries") {
				t.Fatalf("want a failure naming --default-retries, got %v", err)
			}
			if !testenv.Existing(t, db, cfg.Database, "t")["t"] {
				t.Fatal("the original is not in place")
			}
		})
	}
}

// holdRow opens a transaction that holds row 1 of t with SELECT ... FOR UPDATE, and returns its
// session and connection id (the session ends with the test).
func holdRow(ctx context.Context, t *testing.T, db *sql.DB) (*sql.Conn, int64) {
	t.Helper()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // never back to the pool
		conn.Close()
	})
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"BEGIN", "SELECT * FROM t WHERE id = 1 FOR UPDATE"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return conn, id
}
