package migrator

import (
	"context"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// The run's use of its changelog table (the changelog package owns the table and its rows): the
// run creates it (the kind's helpers: createChangelog, kind.go), records each phase in its state row, beats its heartbeat, and
// a --revert records its cut-over's names in it. The sentinel goes through it too (sentinel.go).

// changelogOf is the run's changelog table.
func changelogOf(p *plan.Plan) changelog.Table {
	return changelog.Table{Schema: p.Original.Schema, Name: p.ChangelogTable}
}

// writeState records the migration's state in the changelog (best effort: it is informative).
func (r *run) writeState(ctx context.Context, state string) {
	r.m.log.Info().Str("state", state).Msgf("Writing changelog state: %s", state) // gh-ost's words
	if err := changelogOf(r.s.plan).WriteState(ctx, r.s.primary, state); err != nil {
		r.m.log.Warn().Err(err).Str("state", state).Msg("could not record state in the changelog")
	}
}

// heartbeat writes the changelog heartbeat every HeartbeatInterval until ctx ends, none while a
// critical-load hibernation lasts (throttle.go). It fails (and so stops the run) when the
// changelog table is gone: no retry brings it back, and without heartbeats the copy would stay
// throttled on an unknown lag for ever.
func (r *run) heartbeat(ctx context.Context) error {
	m := r.m
	hibernating := func() bool { return m.levers.monitor.Hibernating() }
	return helperGone(changelogOf(r.s.plan).Heartbeats(ctx, r.s.primary, m.cfg.HeartbeatInterval, hibernating, m.heartbeatFailed))
}

// writeHeartbeat writes one heartbeat with the time now; it fails only when the changelog table
// is gone.
func (r *run) writeHeartbeat(ctx context.Context, now time.Time) error {
	return helperGone(changelogOf(r.s.plan).Heartbeat(ctx, r.s.primary, now, r.m.heartbeatFailed))
}

// heartbeatFailed logs a heartbeat write that failed: the lag it measures grows, which throttles.
func (m *Migrator) heartbeatFailed(err error) { m.log.Warn().Err(err).Msg("heartbeat write failed") }

// helperGone says a changelog table that no longer exists (changelog.ErrGone, the only error the
// heartbeat returns) as the applier says any change of a helper table: ErrHelperChanged.
func helperGone(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", binlogapply.ErrHelperChanged, err)
}

// recordRevertNames writes the revert's cut-over names to its changelog, right after creating it
// and long before its cut-over renames anything (recover.go reads them back).
func (r *run) recordRevertNames(ctx context.Context) error {
	p := r.s.plan
	if err := changelogOf(p).WriteRevert(ctx, r.s.primary, changelog.RevertNames{Ghost: p.GhostTable, Old: p.OldTable}); err != nil {
		return fmt.Errorf("--revert: %w", err)
	}
	return nil
}
