package tablelock

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// maxLockNameLength is the longest user-lock name MySQL accepts.
const maxLockNameLength = 64

// Name is the lock name of a table's migration: go-ghostlite.<schema>.<table>, or a hash of it
// when that is longer than a lock name may be.
func Name(schema, tbl string) string {
	name := "go-ghostlite." + schema + "." + tbl
	if len(name) <= maxLockNameLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return "go-ghostlite." + hex.EncodeToString(sum[:])[:40]
}

// Lock is a held migration lock: the dedicated connection holding it and its name. A nil *Lock,
// or one released, is not held.
type Lock struct {
	conn     *sql.Conn
	name     string
	db       *sql.DB   // for a fresh look at the server when conn is gone (serverGone)
	acquired time.Time // when the lock was taken
	connID   int64     // the server's id of conn: a restarted server numbers connections from 1 again
}

// Acquire takes the table's lock without waiting, on a dedicated connection of db which the Lock
// keeps open until Release. addr names the server in messages.
func Acquire(ctx context.Context, db *sql.DB, addr, schema, tbl string) (*Lock, error) {
	name := Name(schema, tbl)
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("open the mutex connection to %s: %w", addr, err)
	}
	// The connection idles for the whole run: keep the server from closing it (and freeing the
	// lock) after the default 8 hours. A dead client still frees it when its socket closes.
	if _, err := conn.ExecContext(ctx, "SET SESSION wait_timeout = 31536000"); err != nil {
		conn.Close()
		return nil, fmt.Errorf("set up the mutex connection to %s: %w", addr, err)
	}
	var got sql.NullInt64
	var connID int64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0), CONNECTION_ID()", name).Scan(&got, &connID); err != nil {
		conn.Close()
		return nil, fmt.Errorf("take the migration lock %q on %s: %w", name, addr, err)
	}
	if got.Valid && got.Int64 == 1 {
		return &Lock{conn: conn, name: name, db: db, acquired: time.Now(), connID: connID}, nil
	}
	defer conn.Close()
	var holder sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", name).Scan(&holder); err != nil {
		return nil, fmt.Errorf("another process is already migrating `%s`.`%s`: migration lock %s held on %s; wait for it to finish", schema, tbl, name, addr)
	}
	who := "connection id unknown"
	if holder.Valid {
		who = fmt.Sprintf("connection id %d", holder.Int64)
	}
	return nil, fmt.Errorf("another process is already migrating `%s`.`%s`: migration lock %s held by %s on %s; wait for it to finish, or if that session is an abandoned migration, KILL it",
		schema, tbl, name, who, addr)
}

// Release releases the lock (RELEASE_LOCK) and closes its connection, which would release it
// too; releasing first makes it free at once even if closing is slow. The error says why the
// release itself failed (the connection is closed anyway). Releasing a nil or released Lock does
// nothing.
func (l *Lock) Release(ctx context.Context) error {
	if l == nil || l.conn == nil {
		return nil
	}
	conn := l.conn
	l.conn = nil
	defer conn.Close()
	var released sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT RELEASE_LOCK(?)", l.name).Scan(&released); err != nil {
		return fmt.Errorf("release the migration lock %q: %w", l.name, err)
	}
	if !released.Valid || released.Int64 != 1 {
		return fmt.Errorf("release the migration lock %q: it was not held by this session", l.name)
	}
	return nil
}

// Check returns an error wrapping ErrLost unless the lock is still held, checked on the lock's
// own connection: call it before every destructive step (the cut-over, dropping a table). A dead
// connection means the lock is gone with it.
func (l *Lock) Check(ctx context.Context) error {
	if l == nil || l.conn == nil {
		return fmt.Errorf("%w: it is not held", ErrLost)
	}
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	var mine sql.NullBool
	err := l.conn.QueryRowContext(cctx, "SELECT IS_USED_LOCK(?) = CONNECTION_ID()", l.name).Scan(&mine)
	if err == nil && mine.Valid && mine.Bool {
		return nil
	}
	why := "another session holds it or it was released"
	if err != nil {
		why = fmt.Sprintf("its connection is gone: %v", err)
		if cause := l.serverGone(ctx); cause != "" {
			return fmt.Errorf("%w: %s, so %q went with its connection (%v); nothing was swapped or dropped",
				ErrLost, cause, l.name, err)
		}
	}
	return fmt.Errorf("%w: %q is no longer held by this run (%s); another migration may be working on the table now, so this run stops and drops nothing",
		ErrLost, l.name, why)
}

// serverGone names what happened to the server when the lock's connection died with it: a restart
// since the lock was taken, or no answer at all. It returns "" when the server answers and did not
// restart (the connection alone was lost). A restart shows as a connection id below the lock's (a
// server numbers its connections from 1 again) or an Uptime shorter than the lock's age; the
// Uptime alone, in whole seconds, misses a restart within a second or two of the lock.
func (l *Lock) serverGone(ctx context.Context) string {
	if l.db == nil {
		return ""
	}
	cctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	conn, err := l.db.Conn(cctx)
	if err != nil {
		return fmt.Sprintf("the server does not answer (%v)", err)
	}
	defer conn.Close()
	var name string
	var uptime, connID int64
	err = conn.QueryRowContext(cctx, "SHOW GLOBAL STATUS LIKE 'Uptime'").Scan(&name, &uptime)
	if err == nil {
		err = conn.QueryRowContext(cctx, "SELECT CONNECTION_ID()").Scan(&connID)
	}
	switch {
	case err != nil:
		return fmt.Sprintf("the server does not answer (%v)", err)
	case connID < l.connID, time.Duration(uptime)*time.Second < time.Since(l.acquired):
		return fmt.Sprintf("the server restarted %d s ago, cutting every session of this run", uptime)
	}
	return ""
}

// checkTimeout bounds one check of the lock (a silently cut connection would hang).
const checkTimeout = 10 * time.Second

// ErrLost is returned (wrapped) when the run no longer holds its migration lock at a destructive
// step: another migration may own the table's helper tables by now.
var ErrLost = errors.New("the migration lock was lost")
