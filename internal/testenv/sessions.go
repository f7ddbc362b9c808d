package testenv

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// InProcesslist reports whether the connection id is in the server's processlist (read where
// dbconn.ProcesslistTable says: on MySQL, information_schema's fails while any session runs a
// statement holding a 4-byte character, and the tests run beside others that do).
func InProcesslist(ctx context.Context, db *sql.DB, id int64) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+dbconn.ProcesslistTable(ctx, db)+" WHERE ID = ?", id).Scan(&n)
	return n > 0, err
}

// KillAndWait kills the connection id from db and waits (at most 5 s) until the processlist no
// longer shows it. The error of the KILL itself is wrapped, so a caller can tell "unknown thread
// id" (1094: already gone) from a real failure.
func KillAndWait(ctx context.Context, db *sql.DB, id int64) error {
	if id == 0 {
		return errors.New("no connection id")
	}
	if _, err := db.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", id)); err != nil {
		return fmt.Errorf("kill %d: %w", id, err)
	}
	return Poll(ctx, 5*time.Second, 2*time.Millisecond, fmt.Sprintf("connection %d gone after KILL", id), func() (bool, error) {
		alive, err := InProcesslist(ctx, db, id)
		return !alive, err
	})
}

// WaitQueuedWriters waits (at most 5 s) until at least n sessions wait on a lock with a statement
// that writes schema.tbl (an INSERT, UPDATE, DELETE or REPLACE naming it): application writes
// queued behind a lock on the table, the moment a kill of the lock holder is most dangerous.
func WaitQueuedWriters(ctx context.Context, db *sql.DB, schema, tbl string, n int) error {
	like := "%" + tbl + "%"
	return Poll(ctx, 5*time.Second, 2*time.Millisecond, fmt.Sprintf("%d writers of %s.%s queued behind a lock", n, schema, tbl), func() (bool, error) {
		var got int
		err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+dbconn.ProcesslistTable(ctx, db)+`
			WHERE DB = ? AND STATE LIKE 'Waiting for table%lock' AND INFO LIKE ?
			AND (INFO LIKE 'INSERT%' OR INFO LIKE 'UPDATE%' OR INFO LIKE 'DELETE%' OR INFO LIKE 'REPLACE%')`, schema, like).Scan(&got)
		return got >= n, err
	})
}
