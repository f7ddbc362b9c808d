package cutover

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

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

// sentryPrefix starts the COMMENT of our sentry tables; the rest is the attempt's token.
const sentryPrefix = "ghost-cut-over-sentry "

// Atomic runs the sentry-table cut-over, retrying a failed attempt after restoring the original.
// On success the original is named Tables.Old and the ghost Tables.Original.
func Atomic(ctx context.Context, cfg Config, s Sentinel) error {
	return runAttempts(ctx, AlgorithmAtomic, cfg, s)
}

// openLockSession opens C1 with bounded timeouts and makes it take a fresh liveness token.
func (a *attempt) openLockSession(ctx context.Context) error {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("make liveness token: %w", err)
	}
	a.token = "ghostlite-cutover-" + hex.EncodeToString(b[:])
	var err error
	if a.lock, err = openSession(ctx, a.cfg.DB, "lock C1"); err != nil {
		return err
	}
	if err := a.lock.exec(ctx,
		fmt.Sprintf("SET SESSION lock_wait_timeout = %d", a.lockWaitSeconds()),
		fmt.Sprintf("SET SESSION wait_timeout = %d", a.c1WaitTimeout())); err != nil {
		return err
	}
	var got int
	if err := a.lock.conn.QueryRowContext(ctx, "SELECT COALESCE(GET_LOCK(?, 0), 0)", a.token).Scan(&got); err != nil || got != 1 {
		return fmt.Errorf("take liveness token %s on C1 (got %d): %v", a.token, got, err)
	}
	return nil
}

// openRenamer opens a rename session for stmt that waits at most waitSeconds for each lock.
func (a *attempt) openRenamer(ctx context.Context, name, stmt string, waitSeconds int64) (*renamer, error) {
	s, err := openSession(ctx, a.cfg.DB, name)
	if err != nil {
		return nil, err
	}
	r := newRenamer(s, stmt)
	if err := r.exec(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", waitSeconds)); err != nil {
		r.discard()
		return nil, err
	}
	return r, nil
}

// runAtomic performs one atomic attempt. Any error leaves cleanup to recoverAtomic.
func (a *attempt) runAtomic(ctx context.Context) error {
	t := a.cfg.Tables
	lt := a.cfg.LockTimeout
	qOrig, qOld, qGhost := table.Qualify(t.Schema, t.Original), table.Qualify(t.Schema, t.Old), table.Qualify(t.Schema, t.Ghost)

	if !a.caps.mdl {
		return fmt.Errorf("%w: --cut-over=atomic needs performance_schema metadata locks (%s) to prove the rename waits on %s before the unlock; use three-step",
			ErrUnsafe, a.caps.mdlWhy, t.Original)
	}
	octx, cancel := context.WithTimeout(ctx, lt)
	defer cancel()
	var err error
	if a.obs, err = openSession(octx, a.cfg.DB, "observer"); err != nil {
		return err
	}
	if err := a.checkGhostUnlocked(ctx, a.obs.conn); err != nil {
		return err
	}
	if err := a.openLockSession(octx); err != nil {
		return err
	}
	a.r1, err = a.openRenamer(octx, "atomic rename C2",
		fmt.Sprintf("RENAME TABLE %s TO %s, %s TO %s", qOrig, qOld, qGhost, qOrig), a.renameLockWait())
	if err != nil {
		return err
	}
	a.log.Debug().Int64("c1", a.lock.id).Int64("c2", a.r1.id).Str("token", a.token).Msg("sessions open")

	// The sentry: a table under the old name, so the rename cannot run without C1's consent.
	if err := a.hook(ctx, StepSentry); err != nil {
		return err
	}
	a.sentry = sentryPrefix + a.token
	if err := a.lock.exec(octx, fmt.Sprintf("CREATE TABLE %s (id INT) ENGINE=InnoDB COMMENT='%s'", qOld, a.sentry)); err != nil {
		a.sentry = "" // not created: never ours to drop
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
	a.sentry, a.sentryDropped = "", true
	// The rename may have been waiting on the sentry's name: it must now wait on the original,
	// or writes queued on the original could be served first and renamed away unseen.
	if err := a.observe(ctx, a.r1); err != nil {
		return fmt.Errorf("after dropping the sentry: %w", err)
	}
	if err := a.lock.exec(uctx, "UNLOCK TABLES"); err != nil {
		return err
	}
	a.unlockedAt = time.Now()
	if err := a.r1.wait(uctx); err != nil {
		return fmt.Errorf("rename after unlock: %w", err)
	}
	swapped := time.Now()
	if err := a.verifySwapped(ctx); err != nil {
		return err
	}
	a.log.Info().Dur("locked", a.unlockedAt.Sub(a.lockedAt)).Dur("rename_after_unlock", swapped.Sub(a.unlockedAt)).
		Msgf("cut-over complete (atomic): %s is the former ghost, the original is %s", t.Original, t.Old)
	return nil
}

// recoverAtomic kills our rename, releases C1, reads the real state and acts: it drops a sentry
// that is ours, rolls forward when the swap completed, and touches nothing it cannot explain.
func (a *attempt) recoverAtomic(ctx context.Context, cause error) error {
	t := a.cfg.Tables
	return a.recoverWith(ctx, cause, func(st state) remedy {
		desc := st.describe(t)
		switch {
		case a.originalInPlace(st) && !st.old.exists:
			a.log.Info().Str("state", desc).Msg("nothing was renamed: the original is in place")
			return final(cause)
		case a.originalInPlace(st) && st.old.exists:
			drop := func(ctx context.Context) error {
				if err := a.dropSentry(ctx); err != nil {
					return err
				}
				a.log.Info().Str("state", desc).Msg("nothing was renamed: the original is in place; our sentry dropped")
				return nil
			}
			return remedy{what: "drop our sentry " + t.Old, act: drop, then: cause,
				byHand: "DROP TABLE " + table.Qualify(t.Schema, t.Old) + " (if it is the cut-over's sentry: its comment starts with '" + sentryPrefix + "')"}
		case a.swapCompleted(st):
			a.log.Warn().Str("state", desc).Err(cause).Msg("the rename ran despite the failure: the swap is complete, rolling forward")
			return final(nil)
		default:
			return final(a.unknownState(st, cause))
		}
	})
}

// dropSentry drops the table under the old name only when it is this attempt's sentry (its
// COMMENT carries our token): never a table someone else created.
func (a *attempt) dropSentry(ctx context.Context) error {
	t := a.cfg.Tables
	if a.sentry == "" {
		return fmt.Errorf("%s exists but this attempt created no sentry", t.Old)
	}
	s, err := openSession(ctx, a.cfg.DB, "drop sentry")
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
	if err := s.exec(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", a.lockWaitSeconds()),
		"DROP TABLE "+table.Qualify(t.Schema, t.Old)); err != nil {
		return fmt.Errorf("drop sentry: %w", err)
	}
	a.sentry = ""
	return nil
}
