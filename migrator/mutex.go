package migrator

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
)

// The per-table mutex is a named user lock (GET_LOCK) held on a dedicated connection to the
// primary for the whole run. The server frees it with the connection, so a migration that dies
// never leaves it behind; two migrations of one table, even started through different replicas,
// meet on the primary and the second one refuses.

// maxLockNameLength is the longest user-lock name MySQL accepts.
const maxLockNameLength = 64

// mutexName is the lock name of a table's migration: go-ghostlite.<schema>.<table>, or a hash of it
// when that is longer than a lock name may be.
func mutexName(schema, tbl string) string {
	name := "go-ghostlite." + schema + "." + tbl
	if len(name) <= maxLockNameLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return "go-ghostlite." + hex.EncodeToString(sum[:])[:40]
}

// acquireMutex takes the table's lock without waiting, on a dedicated connection of db which the
// caller keeps open (and closes) for as long as the lock must be held.
func acquireMutex(ctx context.Context, db *sql.DB, addr, schema, tbl string) (*sql.Conn, string, error) {
	name := mutexName(schema, tbl)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("open the mutex connection to %s: %w", addr, err)
	}
	// The connection idles for the whole run: keep the server from closing it (and freeing the
	// lock) after the default 8 hours. A dead client still frees it when its socket closes.
	if _, err := conn.ExecContext(ctx, "SET SESSION wait_timeout = 31536000"); err != nil {
		conn.Close()
		return nil, "", fmt.Errorf("set up the mutex connection to %s: %w", addr, err)
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", name).Scan(&got); err != nil {
		conn.Close()
		return nil, "", fmt.Errorf("take the migration lock %q on %s: %w", name, addr, err)
	}
	if got.Valid && got.Int64 == 1 {
		return conn, name, nil
	}
	defer conn.Close()
	var holder sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", name).Scan(&holder); err != nil {
		return nil, "", fmt.Errorf("another migration holds the lock on %s.%s (on %s): wait for it to finish", schema, tbl, addr)
	}
	who := "connection id unknown"
	if holder.Valid {
		who = fmt.Sprintf("connection id %d", holder.Int64)
	}
	return nil, "", fmt.Errorf("another migration holds the lock on %s.%s (%s on %s): wait for it to finish, or if that session is an abandoned migration, KILL it",
		schema, tbl, who, addr)
}

// releaseMutex releases the lock held by conn. Closing conn releases it too; releasing first makes
// it free at once even if closing is slow.
func releaseMutex(ctx context.Context, conn *sql.Conn, name string) error {
	var released sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT RELEASE_LOCK(?)", name).Scan(&released); err != nil {
		return fmt.Errorf("release the migration lock %q: %w", name, err)
	}
	if !released.Valid || released.Int64 != 1 {
		return fmt.Errorf("release the migration lock %q: it was not held by this session", name)
	}
	return nil
}

// checkMutex returns an error unless the session still holds its migration lock: call it before
// any step that relies on being the only migration of the table (the cut-over).
func (s *session) checkMutex(ctx context.Context) error {
	if s.mutex == nil {
		return errors.New("the migration lock is not held")
	}
	var mine sql.NullBool
	if err := s.mutex.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?) = CONNECTION_ID()", s.mutexName).Scan(&mine); err != nil {
		return fmt.Errorf("check the migration lock %q: %w", s.mutexName, err)
	}
	if !mine.Valid || !mine.Bool {
		return fmt.Errorf("the migration lock %q is no longer held by this migration", s.mutexName)
	}
	return nil
}
