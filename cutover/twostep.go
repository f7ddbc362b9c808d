package cutover

import (
	"context"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The two-step cut-over (Facebook OSC's): C1 write-locks the original; once the sentinel is
// applied, C1 renames it away with ALTER TABLE tbl RENAME TO old (MariaDB and MySQL accept it
// under LOCK TABLES, and it releases the lock), then C2 renames the ghost into its place. Between
// the two statements the original name is missing: writes fail with error 1146. That outage is
// inherent; it is measured and logged. No write can reach the old table after the sentinel: it
// stays locked until the moment it is renamed.

// TwoStep runs the lock / rename away / rename in cut-over, retrying a failed attempt after
// restoring the original. On success the original is named Tables.Old and the ghost Tables.Original.
func TwoStep(ctx context.Context, cfg Config, s Sentinel) error {
	return runAttempts(ctx, AlgorithmTwoStep, cfg, s)
}

// runTwoStep performs one two-step attempt. Any error leaves cleanup to recoverTwoStep.
func (a *attempt) runTwoStep(ctx context.Context) error {
	t := a.cfg.Tables
	lt := a.cfg.LockTimeout
	qOrig, qOld, qGhost := table.Qualify(t.Schema, t.Original), table.Qualify(t.Schema, t.Old), table.Qualify(t.Schema, t.Ghost)

	octx, cancel := context.WithTimeout(ctx, lt)
	defer cancel()
	var err error
	if a.obs, err = openSession(octx, a.cfg.DB, "observer"); err != nil {
		return err
	}
	// A lock on the ghost would make the rename in wait, and the outage last as long.
	if err := a.checkGhostUnlocked(ctx, a.obs.conn); err != nil {
		return err
	}
	if err := a.openLockSession(octx); err != nil {
		return err
	}
	a.r1, err = a.openRenamer(octx, "rename in C2", fmt.Sprintf("RENAME TABLE %s TO %s", qGhost, qOrig), a.lockWaitSeconds())
	if err != nil {
		return err
	}
	a.log.Debug().Int64("c1", a.lock.id).Int64("c2", a.r1.id).Str("token", a.token).Msg("sessions open")

	if err := a.lockAndSync(ctx, qOrig+" WRITE"); err != nil {
		return err
	}
	if err := a.hook(ctx, StepRenameAway); err != nil {
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

	if err := a.hook(ctx, StepRenameIn); err != nil {
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
	a.log.Info().Dur("locked", away.Sub(a.lockedAt)).Dur("outage", in.Sub(away)).
		Msgf("cut-over complete (two-step): %s is the former ghost, the original is %s; %s was missing for the outage", t.Original, t.Old, t.Original)
	return nil
}

// recoverTwoStep kills our rename, releases C1, reads the real state and acts. With the original
// renamed away and the ghost still under its name, it rolls forward when the sentinel was
// confirmed applied in this attempt (the ghost holds every write), and back otherwise.
func (a *attempt) recoverTwoStep(ctx context.Context, cause error) error {
	t := a.cfg.Tables
	return a.recoverWith(ctx, cause, func(st state) remedy {
		desc := st.describe(t)
		switch {
		case a.originalInPlace(st) && !st.old.exists:
			a.log.Info().Str("state", desc).Msg("nothing was renamed: the original is in place")
			return final(cause)
		case a.onlyRenamedAway(st) && a.sentinelOK:
			a.log.Warn().Str("state", desc).Msgf("%s is missing after the sentinel was applied: rolling forward", t.Original)
			return a.renameRemedy("roll forward", t.Ghost, t.Original, nil)
		case a.onlyRenamedAway(st):
			a.log.Error().Str("state", desc).Msgf("%s is missing and the sentinel was not confirmed: rolling back", t.Original)
			return a.renameRemedy("roll back", t.Old, t.Original, fmt.Errorf("rolled back (%s was briefly missing): %w", t.Original, cause))
		case a.swapCompleted(st):
			a.log.Warn().Str("state", desc).Err(cause).Msg("both renames ran despite the failure: the swap is complete, rolling forward")
			return final(nil)
		default:
			return final(a.unknownState(st, cause))
		}
	})
}
