package cutover

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The atomic cut-over (gh-ost's): C1 creates a sentry table under the old name and write-locks
// both the original and the sentry; once the sentinel is applied, C2 queues the single statement
// RENAME tbl TO old, ghost TO tbl, which cannot run while the sentry holds the old name. When C2
// is seen waiting and C1 proven alive, C1 drops the sentry (it may: it holds its write lock) and
// unlocks: the rename runs before the queued writes, both names change at once.
//
// If C1 dies at any point, its locks go but the sentry stays: the rename fails (the old name is
// taken) and the original stays in place. The original name is never missing.

// atomicUnsafeOn refuses MySQL: there, when the lock holder dies after dropping the sentry (a
// kill, a cut connection, a crash of the tool's host), queued writes were seen served on the
// original before the queued RENAME (FACTS.md: 1 in 33 such kills on MySQL 9.7); those writes
// would be renamed away with the original, after the sentinel, and lost. No check made before
// the unlock can close that window, since it opens only when C1 is gone.
func atomicUnsafeOn(f dbconn.Flavor) string {
	if f.MariaDB {
		return ""
	}
	return fmt.Sprintf("is not safe on %s: if its lock holder dies after dropping the sentry, MySQL may serve writes queued on the original before the queued RENAME, and they would be lost", f)
}

// sentryPrefix starts the COMMENT of our sentry tables; the rest is the attempt's token.
const sentryPrefix = "ghost-cut-over-sentry "

// runAtomic performs one atomic attempt. Any error leaves cleanup to recover.
func (a *attempt) runAtomic(ctx context.Context) error {
	t := a.cfg.Tables
	lt := a.cfg.LockTimeout
	qOrig, qOld, qGhost := t.qualified()

	if !a.caps.mdl {
		return fmt.Errorf("%w: --cut-over=atomic needs performance_schema metadata locks (%s) to prove the rename waits on %s before the unlock; use three-step",
			ErrUnsafe, a.caps.mdlWhy, t.Original)
	}
	octx, cancel := context.WithTimeout(ctx, lt)
	defer cancel()
	if err := a.openObserverAndLock(ctx, octx); err != nil {
		return err
	}
	var err error
	a.r1, err = a.openRenamer(octx, "atomic rename C2",
		fmt.Sprintf("RENAME TABLE %s TO %s, %s TO %s", qOrig, qOld, qGhost, qOrig), a.renameLockWait())
	if err != nil {
		return err
	}
	a.log.Debug().Int64("c1", a.lock.id).Int64("c2", a.r1.id).Str("token", a.token).Msg("sessions open")

	// The sentry: a table under the old name, so the rename cannot run without C1's consent.
	if err := a.beforeStep(ctx, StepSentry); err != nil {
		return err
	}
	// a.sentry stays set when the CREATE fails: after a timeout or a cut connection the server
	// may still create the table. The recovery drops it only if its comment carries our token.
	a.sentry = sentryPrefix + a.token
	if err := a.lock.exec(octx, fmt.Sprintf("CREATE TABLE %s (id INT) ENGINE=InnoDB COMMENT='%s'", qOld, a.sentry)); err != nil {
		return err
	}

	if err := a.lockAndSync(ctx, qOrig+" WRITE, "+qOld+" WRITE"); err != nil {
		return err
	}
	if err := a.queueRename(ctx, StepAtomicRename, a.r1, "the rename"); err != nil {
		return err
	}
	if err := a.observeAt(ctx, StepAtomicObserve, "observe the rename", a.r1); err != nil {
		return err
	}
	// Look once more right before releasing: the rename still waits and C1 is alive.
	if err := a.observeAt(ctx, StepDropSentry, "before dropping the sentry", a.r1); err != nil {
		return err
	}
	uctx, ucancel := context.WithTimeout(ctx, lt)
	defer ucancel()
	if err := a.lock.exec(uctx, "DROP TABLE "+qOld); err != nil {
		return err
	}
	a.sentry = ""
	// The rename may have been waiting on the sentry's name: it must now wait on the original,
	// or writes queued on the original could be served first and renamed away unseen.
	if err := a.observe(ctx, a.r1); err != nil {
		return fmt.Errorf("after dropping the sentry: %w", err)
	}
	if err := a.beforeStep(ctx, StepSentryDropped); err != nil {
		return err
	}
	if err := a.unlock(uctx); err != nil {
		return err
	}
	if err := a.r1.wait(uctx); err != nil {
		return fmt.Errorf("rename after unlock: %w", err)
	}
	swapped := time.Now()
	if err := a.verifySwapped(ctx); err != nil {
		return err
	}
	a.logLockAndRename(swapped)
	a.log.Info().Str("locked", logfmt.Duration(a.unlockedAt.Sub(a.lockedAt))).Str("rename_after_unlock", logfmt.Duration(swapped.Sub(a.unlockedAt))).
		Msgf("cut-over complete (atomic): %s is the former ghost, the original is %s", t.Original, t.Old)
	return nil
}

// dropOurSentry is the atomic recovery when the original and the ghost are in place and a
// table holds the old name: it is our sentry, left when the attempt failed before dropping it.
// It is dropped only if it is ours (dropSentry checks).
func (a *attempt) dropOurSentry(st states, cause error) remedy {
	t := a.cfg.Tables // atomic cuts one table over (no sets)
	desc := st.describe(a.cfg.set())
	drop := func(ctx context.Context) error {
		if err := a.dropSentry(ctx); err != nil {
			return err
		}
		a.log.Info().Str("state", desc).Msg("nothing was renamed: the original is in place; our sentry dropped")
		return nil
	}
	return remedy{what: "drop our sentry " + t.Old, act: drop, then: cause,
		byHand: "DROP TABLE " + table.Qualify(t.Schema, t.Old) + " (if it is the cut-over's sentry: its comment starts with '" + sentryPrefix + "')"}
}

// dropSentry drops the table under the old name only when it is this attempt's sentry (its
// COMMENT carries our token): never a table someone else created.
func (a *attempt) dropSentry(ctx context.Context) error {
	t := a.cfg.Tables
	if a.sentry == "" {
		return fmt.Errorf("%s exists but this attempt created no sentry", t.Old)
	}
	s, err := openSessionWaiting(ctx, a.cfg.DB, "drop sentry", a.lockWaitSeconds())
	if err != nil {
		return err
	}
	defer s.discard()
	var comment string
	err = s.conn.QueryRowContext(ctx, `SELECT COALESCE(TABLE_COMMENT, '') FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, t.Schema, t.Old).Scan(&comment)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read comment of %s: %w", t.Old, err)
	}
	if comment != a.sentry {
		return fmt.Errorf("%s is not our sentry (comment %q)", t.Old, comment)
	}
	if err := s.exec(ctx, "DROP TABLE "+table.Qualify(t.Schema, t.Old)); err != nil {
		return fmt.Errorf("drop sentry: %w", err)
	}
	a.sentry = ""
	return nil
}
