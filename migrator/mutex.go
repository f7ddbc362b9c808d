package migrator

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// The per-table mutex is a named user lock (GET_LOCK) held on a dedicated connection to the
// primary for the whole run. The server frees it with the connection, so a migration that dies
// never leaves it behind; two migrations of one table, even started through different replicas,
// meet on the primary and the second one refuses. The connection can still die under a live run
// (an idle-connection killer): the lock is then free and a second run may start. So the run
// checks it still holds the lock before every destructive step and stops when it does not, and
// it drops only tables it created itself (owned.go).

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
		return nil, "", fmt.Errorf("another process is already migrating `%s`.`%s`: migration lock %s held on %s; wait for it to finish", schema, tbl, name, addr)
	}
	who := "connection id unknown"
	if holder.Valid {
		who = fmt.Sprintf("connection id %d", holder.Int64)
	}
	return nil, "", fmt.Errorf("another process is already migrating `%s`.`%s`: migration lock %s held by %s on %s; wait for it to finish, or if that session is an abandoned migration, KILL it",
		schema, tbl, name, who, addr)
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

// checkMutex returns an error wrapping ErrMutexLost unless the session still holds its
// migration lock, checked on the lock's own connection: call it before every destructive step
// (the cut-over, dropping a table). A dead connection means the lock is gone with it.
func (s *session) checkMutex(ctx context.Context) error {
	if s.mutex == nil {
		return fmt.Errorf("%w: it is not held", ErrMutexLost)
	}
	cctx, cancel := context.WithTimeout(ctx, mutexCheckTimeout)
	defer cancel()
	var mine sql.NullBool
	err := s.mutex.QueryRowContext(cctx, "SELECT IS_USED_LOCK(?) = CONNECTION_ID()", s.mutexName).Scan(&mine)
	if err == nil && mine.Valid && mine.Bool {
		return nil
	}
	why := "another session holds it or it was released"
	if err != nil {
		why = fmt.Sprintf("its connection is gone: %v", err)
	}
	return fmt.Errorf("%w: %q is no longer held by this run (%s); another migration may be working on the table now, so this run stops and drops nothing",
		ErrMutexLost, s.mutexName, why)
}

// mutexCheckTimeout bounds one check of the lock (a silently cut connection would hang).
const mutexCheckTimeout = 10 * time.Second

// ErrMutexLost is returned (wrapped) when the run no longer holds its migration lock at a
// destructive step: another migration may own the table's helper tables by now.
var ErrMutexLost = errors.New("the migration lock was lost")
