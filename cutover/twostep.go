package cutover

import (
	"context"
	"fmt"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"time"
)

// The two-step cut-over (Facebook OSC's): C1 write-locks the original; once the sentinel is
// applied, C1 renames it away with ALTER TABLE tbl RENAME TO old (MariaDB and MySQL accept it
// under LOCK TABLES, and it releases the lock), then C2 renames the ghost into its place. Between
// the two statements the original name is missing: writes fail with error 1146. That outage is
// inherent; it is measured and logged. No write can reach the old table after the sentinel: it
// stays locked until the moment it is renamed.

// runTwoStep performs one two-step attempt. Any error leaves cleanup to recover.
func (a *attempt) runTwoStep(ctx context.Context) error {
	t := a.cfg.Tables
	lt := a.cfg.LockTimeout
	qOrig, qOld, qGhost := t.qualified()

	octx, cancel := context.WithTimeout(ctx, lt)
	defer cancel()
	// A lock on the ghost would make the rename in wait, and the outage last as long.
	if err := a.openObserverAndLock(ctx, octx); err != nil {
		return err
	}
	var err error
	a.r1, err = a.openRenamer(octx, "rename in C2", fmt.Sprintf("RENAME TABLE %s TO %s", qGhost, qOrig), a.lockWaitSeconds())
	if err != nil {
		return err
	}
	a.log.Debug().Int64("c1", a.lock.id).Int64("c2", a.r1.id).Str("token", a.token).Msg("sessions open")

	if err := a.lockAndSync(ctx, qOrig+" WRITE"); err != nil {
		return err
	}
	if err := a.beforeStep(ctx, StepRenameAway); err != nil {
		return err
	}
	if err := a.lockAlive(ctx); err != nil {
		return fmt.Errorf("before renaming the original away: %w", err)
	}
	// From here on the original name is missing: finish even if ctx ends, within the lock timeout.
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), lt+time.Second)
	defer ccancel()
	if err := a.lock.exec(cctx, "ALTER TABLE "+qOrig+" RENAME TO "+qOld); err != nil {
		return fmt.Errorf("rename the original away: %w", err)
	}
	away := time.Now()

	if err := a.beforeStep(ctx, StepRenameIn); err != nil {
		return err
	}
	a.r1.start(cctx)
	if err := a.r1.wait(cctx); err != nil {
		return fmt.Errorf("rename the ghost in: %w", err)
	}
	in := time.Now()
	a.unlockedAt = away
	if err := a.verifySwapped(ctx); err != nil {
		return err
	}
	a.logLockAndRename(in)
	a.log.Info().Str("locked", logfmt.Duration(away.Sub(a.lockedAt))).Str("outage", logfmt.Duration(in.Sub(away))).
		Msgf("cut-over complete (two-step): %s is the former ghost, the original is %s; %s was missing for the outage", t.Original, t.Old, t.Original)
	return nil
}

// forwardIfSynced is the two-step recovery when the original was renamed away and the ghost
// still has its name: it rolls forward when the sentinel was confirmed applied in this attempt
// (the ghost holds every write, and the old table took none since), and back otherwise.
func (a *attempt) forwardIfSynced(st states, cause error) remedy {
	t := a.cfg.Tables // two-step cuts one table over (no sets)
	desc := st.describe(a.cfg.set())
	if a.sentinelOK {
		a.log.Warn().Str("state", desc).Msgf("%s is missing after the sentinel was applied: rolling forward", t.Original)
		return a.renameRemedy("roll forward", ghostName, originalName, nil)
	}
	a.log.Error().Str("state", desc).Msgf("%s is missing and the sentinel was not confirmed: rolling back", t.Original)
	return a.rollBack(st, cause)
}
