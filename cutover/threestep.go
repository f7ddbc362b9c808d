package cutover

import (
	"context"
	"fmt"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"time"
)

// The three-step cut-over (seed 003, the default): C1 write-locks the original; once the sentinel
// is applied, C18 queues RENAME tbl TO old behind the lock and C19 queues RENAME ghost TO tbl
// behind C18; both are seen waiting on the original behind a live C1, then C1 unlocks and the
// renames run, in order, ahead of the application's queued writes. If rename 1 runs without
// rename 2 (C19 died), the original name is missing until the recovery renames old back.

// runThreeStep performs steps 1 to 7. Any error leaves cleanup to recover.
func (a *attempt) runThreeStep(ctx context.Context) error {
	t := a.cfg.Tables
	qOrig, qOld, qGhost := t.qualified()

	octx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer cancel()
	if err := a.openObserverAndLock(ctx, octx); err != nil {
		return err
	}
	var err error
	if a.r1, err = a.openRenamer(octx, "rename 1 C18", fmt.Sprintf("RENAME TABLE %s TO %s", qOrig, qOld), a.renameLockWait()); err != nil {
		return err
	}
	if a.r2, err = a.openRenamer(octx, "rename 2 C19", fmt.Sprintf("RENAME TABLE %s TO %s", qGhost, qOrig), a.renameLockWait()); err != nil {
		return err
	}
	a.log.Debug().Int64("c1", a.lock.id).Int64("c18", a.r1.id).Int64("c19", a.r2.id).Str("token", a.token).Msg("sessions open")

	// Steps 1 and 2: lock the original; every write before the lock reached the ghost.
	if err := a.lockAndSync(ctx, qOrig+" WRITE"); err != nil {
		return err
	}
	// Steps 3 and 4: queue rename 1 while C1 provably holds the lock; see it waiting.
	if err := a.queueRename(ctx, StepRename1, a.r1, "rename 1"); err != nil {
		return err
	}
	if err := a.observeAt(ctx, StepObserve1, "observe rename 1", a.r1); err != nil {
		return err
	}
	// Steps 5 and 6: queue rename 2 behind rename 1; both wait, on the original, behind a live C1.
	if err := a.queueRename(ctx, StepRename2, a.r2, "rename 2"); err != nil {
		return err
	}
	if err := a.observeAt(ctx, StepObserve2, "observe rename 2", a.r2, a.r1); err != nil {
		return err
	}

	// Step 7: release; rename 1 then rename 2 run before the queued writes.
	if err := a.beforeStep(ctx, StepUnlock); err != nil {
		return err
	}
	uctx, ucancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer ucancel()
	if err := a.unlock(uctx); err != nil {
		return err
	}
	if err := a.r1.wait(uctx); err != nil {
		return fmt.Errorf("rename 1 after unlock: %w", err)
	}
	if err := a.r2.wait(uctx); err != nil {
		return fmt.Errorf("rename 2 after unlock: %w", err)
	}
	swapped := time.Now()
	if err := a.verifySwapped(ctx); err != nil {
		return err
	}
	a.logLockAndRename(swapped)
	a.log.Info().Str("locked", logfmt.Duration(a.unlockedAt.Sub(a.lockedAt))).Str("renames_after_unlock", logfmt.Duration(swapped.Sub(a.unlockedAt))).
		Msgf("cut-over complete: %s is the former ghost, the original is %s", t.Original, t.Old)
	return nil
}

// rollBackRenamedAway is the three-step recovery when rename 1 ran without rename 2: the
// original name is missing, so the original is renamed back.
func (a *attempt) rollBackRenamedAway(st state, cause error) remedy {
	t := a.cfg.Tables
	a.log.Error().Str("state", st.describe(t)).Msgf("rename 1 ran without rename 2: %s is missing; rolling back", t.Original)
	return a.rollBack(cause)
}
