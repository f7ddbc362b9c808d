package cutover

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"
)

// session is a dedicated connection of the cut-over (C1, C18, C19 or the observer).
type session struct {
	name string
	conn *sql.Conn
	id   int64 // CONNECTION_ID()
}

func openSession(ctx context.Context, db *sql.DB, name string) (*session, error) {
	var last error
	for try := 0; try < openAttempts; try++ {
		s, err := tryOpenSession(ctx, db, name)
		if err == nil {
			return s, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

// openSessionWaiting opens a session whose statements wait at most waitSeconds for each lock.
func openSessionWaiting(ctx context.Context, db *sql.DB, name string, waitSeconds int64) (*session, error) {
	s, err := openSession(ctx, db, name)
	if err != nil {
		return nil, err
	}
	if err := s.exec(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", waitSeconds)); err != nil {
		s.discard()
		return nil, err
	}
	return s, nil
}

// openAttempts and openProbeTimeout bound how long a session takes to open. The pool may hand out
// an idle connection whose path was cut silently (no FIN): its first query would wait forever.
// Such a connection is thrown away and another one tried.
const (
	openAttempts     = 3
	openProbeTimeout = 2 * time.Second
)

func tryOpenSession(ctx context.Context, db *sql.DB, name string) (*session, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("open %s session: %w", name, err)
	}
	s := &session{name: name, conn: conn}
	pctx, cancel := context.WithTimeout(ctx, openProbeTimeout)
	defer cancel()
	if err := conn.QueryRowContext(pctx, "SELECT CONNECTION_ID()").Scan(&s.id); err != nil {
		s.discard()
		return nil, fmt.Errorf("read connection id of %s session: %w", name, err)
	}
	return s, nil
}

// exec runs statements in order on the session.
func (s *session) exec(ctx context.Context, stmts ...string) error {
	for _, q := range stmts {
		if _, err := s.conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s (connection %d): %s: %w", s.name, s.id, q, err)
		}
	}
	return nil
}

// discard closes the session without giving it back to the pool: its session state (timeouts,
// locks, a killed socket) must never be reused by someone else.
func (s *session) discard() {
	if s == nil || s.conn == nil {
		return
	}
	_ = s.conn.Raw(func(any) error { return driver.ErrBadConn })
	_ = s.conn.Close()
	s.conn = nil
}

// renamer is a session that runs one RENAME asynchronously: it blocks on the metadata lock.
type renamer struct {
	*session
	stmt     string
	started  bool
	done     chan error // receives the RENAME's result once
	finished bool
	result   error
	cancel   context.CancelFunc
}

func newRenamer(s *session, stmt string) *renamer {
	return &renamer{session: s, stmt: stmt, done: make(chan error, 1)}
}

// start issues the RENAME in a goroutine. Its context does not end with ctx: the statement is
// ended by KILL (recover) or by its lock_wait_timeout, and the socket closed only as a last resort.
func (r *renamer) start(ctx context.Context) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	r.started = true
	conn, stmt := r.conn, r.stmt
	go func() {
		_, err := conn.ExecContext(rctx, stmt)
		r.done <- err
	}()
}

// poll reports whether the RENAME finished, and its result.
func (r *renamer) poll() (bool, error) {
	if !r.started {
		return false, nil
	}
	if !r.finished {
		select {
		case err := <-r.done:
			r.finished, r.result = true, err
		default:
		}
	}
	return r.finished, r.result
}

// wait waits for the RENAME to finish, until ctx ends.
func (r *renamer) wait(ctx context.Context) error {
	if !r.started {
		return fmt.Errorf("%s was never issued", r.name)
	}
	if done, err := r.poll(); done {
		return err
	}
	select {
	case err := <-r.done:
		r.finished, r.result = true, err
		return err
	case <-ctx.Done():
		return fmt.Errorf("%s (connection %d) still running: %w", r.name, r.id, ctx.Err())
	}
}

// close ends the goroutine (closing the socket if the statement still runs) and discards the
// session. Call it only after the statement was killed or finished.
func (r *renamer) close(ctx context.Context) {
	if r == nil || r.session == nil {
		return
	}
	if r.started && !r.finished {
		if err := r.wait(ctx); err != nil && !r.finished {
			r.cancel()
			_ = <-r.done // the result of a statement cancelled here: discarded with the session
			r.finished = true
		}
	}
	if r.cancel != nil {
		r.cancel()
	}
	r.discard()
}
