package cutover

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The three-step cut-over (seed 003, the default): C1 write-locks the original; once the sentinel
// is applied, C18 queues RENAME tbl TO old behind the lock and C19 queues RENAME ghost TO tbl
// behind C18; both are seen waiting on the original behind a live C1, then C1 unlocks and the
// renames run, in order, ahead of the application's queued writes. If rename 1 runs without
// rename 2 (C19 died), the original name is missing until the recovery renames old back.

// runThreeStep performs steps 1 to 7. Any error leaves cleanup to recover.
//
// A set (Config.Also) has one rename-away session per table (C18 for the first, more for the
// others), each queued on its own original: a pending exclusive lock is what keeps the writes
// queued on a table from being served before its rename, and one statement waits on one table
// only. Rename 2 stays one statement, so every ghost takes its name at once, or none does.
func (a *attempt) runThreeStep(ctx context.Context) error {
	t, c := a.cfg.Tables, a.cfg

	octx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer cancel()
	if err := a.openObserverAndLock(ctx, octx); err != nil {
		return err
	}
	if err := a.openSetLocks(octx); err != nil {
		return err
	}
	if err := a.openThreeStepRenamers(octx); err != nil {
		return err
	}
	a.log.Debug().Int64("c1", a.lock.id).Int64("c18", a.r1.id).Int64("c19", a.r2.id).Str("token", a.token).Msg("sessions open")

	// Steps 1 and 2: lock the original(s); every write before the lock reached the ghost(s).
	lockAndSync := func(ctx context.Context) error { return a.lockAndSync(ctx, c.lockList(false)) }
	if len(c.Also) > 0 {
		lockAndSync = a.lockSetAndSync
	}
	if err := lockAndSync(ctx); err != nil {
		return err
	}
	// Steps 3 and 4: queue rename 1 while C1 provably holds the lock; see it waiting (and each
	// other table's rename away, seen waiting while the earlier ones keep waiting).
	if err := a.queueRename(ctx, StepRename1, a.r1, "rename 1"); err != nil {
		return err
	}
	if err := a.observeAt(ctx, StepObserve1, "observe rename 1", a.r1); err != nil {
		return err
	}
	if err := a.queueMoreAway(ctx); err != nil {
		return err
	}
	// Steps 5 and 6: queue rename 2 behind rename 1; all wait, on the originals, behind a live C1.
	if err := a.queueRename(ctx, StepRename2, a.r2, "rename 2"); err != nil {
		return err
	}
	if err := a.observeAt(ctx, StepObserve2, "observe rename 2", append([]*renamer{a.r2, a.r1}, a.more...)...); err != nil {
		return err
	}

	// Step 7: release; the renames away, then rename 2, run before the queued writes.
	if err := a.beforeStep(ctx, StepUnlock); err != nil {
		return err
	}
	uctx, ucancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer ucancel()
	unlock := a.unlock
	if len(c.Also) > 0 {
		unlock = a.unlockInTurn
	}
	if err := unlock(uctx); err != nil {
		return err
	}
	for _, r := range append([]*renamer{a.r1}, a.more...) {
		if err := r.wait(uctx); err != nil {
			return fmt.Errorf("%s after unlock: %w", r.name, err)
		}
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
		Msgf("cut-over complete: %s is the former ghost, the original is %s%s", t.Original, t.Old, a.andTheOthers())
	return nil
}

// openThreeStepRenamers opens C18 (the first table renamed away), one more such session per other
// table of a set, and C19 (every ghost renamed in, one statement).
func (a *attempt) openThreeStepRenamers(ctx context.Context) error {
	set := a.cfg.set()
	away := func(t Tables) string {
		return fmt.Sprintf("RENAME TABLE %s TO %s", table.Qualify(t.Schema, t.Original), table.Qualify(t.Schema, t.Old))
	}
	var err error
	if a.r1, err = a.openRenamer(ctx, "rename 1 C18", away(set[0]), a.renameLockWait()); err != nil {
		return err
	}
	for _, t := range set[1:] {
		r, err := a.openRenamer(ctx, "rename 1 of "+t.Original, away(t), a.renameLockWait())
		if err != nil {
			return err
		}
		a.more = append(a.more, r)
	}
	a.r2, err = a.openRenamer(ctx, "rename 2 C19", "RENAME TABLE "+a.cfg.renameList(ghostName, originalName), a.renameLockWait())
	return err
}

// queueMoreAway queues the rename away of each other table of a set, each only while C1 is
// proven alive, and sees it waiting while the renames queued before keep waiting.
func (a *attempt) queueMoreAway(ctx context.Context) error {
	for i, r := range a.more {
		if err := a.lockAlive(ctx); err != nil {
			return fmt.Errorf("before %s: %w", r.name, err)
		}
		r.start(ctx)
		if err := a.observe(ctx, append([]*renamer{r, a.r1}, a.more[:i]...)...); err != nil {
			return fmt.Errorf("observe %s: %w", r.name, err)
		}
	}
	return nil
}

// rollBackRenamedAway is the three-step recovery when rename 1 ran without rename 2: the
// original name is missing, so the original is renamed back.
func (a *attempt) rollBackRenamedAway(st states, cause error) remedy {
	a.log.Error().Str("state", st.describe(a.cfg.set())).Msgf("rename 1 ran without rename 2: %s is missing; rolling back", strings.Join(a.cfg.originals(), ", "))
	return a.rollBack(st, cause)
}
