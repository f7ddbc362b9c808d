package cutover

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
)

// The lock-rename cut-over (MySQL 8.0.13+): one session, C1, write-locks the original and the
// ghost, applies the binlog tail up to its sentinel itself (the applier is held meanwhile: it
// could not write the locked ghost), renames both tables in one atomic RENAME under its own lock,
// and unlocks. Writes queued on the original then run on the new table.
//
// No moment has the original name missing, and nothing races C1's lock: the RENAME runs while C1
// holds it, and if C1 dies at any moment the server either ran the RENAME (all or nothing: the
// swap is complete) or not (the original in place, its queued writes served on it and covered by
// the next attempt's sentinel). MariaDB refuses RENAME TABLE under LOCK TABLES (error 1192).

// LockedSentinel is a Sentinel that can also prove the ghost in sync on the cut-over's own
// locking session, for lock-rename.
type LockedSentinel interface {
	Sentinel
	// Hold parks the binlog applier between two of its transactions; release resumes it (call it
	// exactly once). The applier must not hold the ghost when C1 asks for its lock.
	Hold(ctx context.Context) (release func(), err error)
	// AwaitOn is Await with the binlog tail applied on conn, which holds the original and the
	// ghost write-locked with autocommit off; everything Await does under the lock is done on conn.
	AwaitOn(ctx context.Context, conn *sql.Conn) error
}

// lockRenameUnsafeOn refuses MariaDB, which does not allow RENAME TABLE under LOCK TABLES, and
// MySQL before 8.0.13.
func lockRenameUnsafeOn(f dbconn.Flavor) string {
	switch {
	case f.MariaDB:
		return fmt.Sprintf("is not available on %s: MariaDB refuses RENAME TABLE while the session holds LOCK TABLES (error 1192)", f)
	case f.Major < 8 || f.Major == 8 && f.Minor == 0 && f.Patch < 13:
		return fmt.Sprintf("is not available on %s: RENAME TABLE under LOCK TABLES needs MySQL 8.0.13 or newer", f)
	}
	return ""
}

// runLockRename performs one lock-rename attempt. Any error leaves cleanup to recover.
func (a *attempt) runLockRename(ctx context.Context) error {
	t, c := a.cfg.Tables, a.cfg
	ls, ok := a.sentinel.(LockedSentinel)
	if !ok {
		return fmt.Errorf("%w: --cut-over=%s needs a sentinel that applies on the locking session", ErrUnsafe, config.CutOverLockRename)
	}
	octx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer cancel()
	if err := a.openObserverAndLock(ctx, octx); err != nil {
		return err
	}
	// The applied tail is committed batch by batch without START TRANSACTION, which would release
	// C1's table locks; autocommit off keeps the locks across those commits.
	if err := a.lock.exec(octx, "SET SESSION autocommit = 0"); err != nil {
		return err
	}
	a.log.Debug().Int64("c1", a.lock.id).Str("token", a.token).Msg("sessions open")

	if err := a.beforeStep(ctx, StepLock); err != nil {
		return err
	}
	release, err := ls.Hold(octx)
	defer release()
	if err != nil {
		return err
	}
	lctx, lcancel := context.WithTimeout(ctx, a.cfg.LockTimeout+time.Second)
	defer lcancel()
	if err := a.lock.exec(lctx, "LOCK TABLES "+c.lockList(true)); err != nil {
		return err
	}
	a.lockedAt = time.Now()
	if err := a.awaitOnLockSession(ctx, ls); err != nil {
		return err
	}

	if err := a.beforeStep(ctx, StepLockRename); err != nil {
		return err
	}
	if err := a.lockAlive(ctx); err != nil {
		return fmt.Errorf("before the rename: %w", err)
	}
	rctx, rcancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer rcancel()
	if err := a.lock.exec(rctx, "RENAME TABLE "+c.renameList(originalName, oldName)+", "+c.renameList(ghostName, originalName)); err != nil {
		return err
	}
	if err := a.beforeStep(ctx, StepLockRenameUnlock); err != nil {
		return err
	}
	if err := a.unlock(rctx); err != nil {
		return err
	}
	if err := a.verifySwapped(ctx); err != nil {
		return err
	}
	a.logLockAndRename(a.unlockedAt)
	a.log.Info().Str("locked", logfmt.Duration(a.unlockedAt.Sub(a.lockedAt))).
		Msgf("cut-over complete (lock-rename): %s is the former ghost, the original is %s%s", t.Original, t.Old, a.andTheOthers())
	return nil
}

// awaitOnLockSession is awaitSentinel for lock-rename: the tail is applied on C1.
func (a *attempt) awaitOnLockSession(ctx context.Context, ls LockedSentinel) error {
	return a.awaitWith(ctx, "await sentinel on the locking session", func(ctx context.Context) error {
		return ls.AwaitOn(ctx, a.lock.conn)
	})
}
