package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/preflight"
)

// Checkpoints (--checkpoint, doc/resume.md). A goroutine of the background group writes, every
// CheckpointInterval while the run is in the copy or the postponed phase, the applier's applied
// position (the end of the last transaction committed to the ghost, so everything before it is
// applied) and the copier's CompleteUpTo to the checkpoint table. The two are read in that order;
// any order would do, since a resumed run replays from the position on (resume.go).

// checkpointing tells whether this run writes checkpoints.
func (c *Config) checkpointing() bool { return c.Checkpoint || c.Resume }

// prepareHelpers creates the changelog and, when checkpointing, the checkpoint table, or adopts
// those of the run a --resume continues, and records them as this run's.
func (r *run) prepareHelpers(ctx context.Context) error {
	m, s, p := r.m, r.s, r.s.plan
	schema := p.Original.Schema
	if exists, err := dbconn.TableExists(ctx, s.primary, schema, p.ChangelogTable); err != nil {
		return err
	} else if !exists || s.resume == nil {
		if err := m.createChangelog(ctx, s); err != nil {
			return err
		}
	}
	s.own(ctx, p.ChangelogTable, p.ChangelogTable) // from here a failure drops it (cleanupAfterFailure)
	if hook := m.cfg.copyTest.afterChangelog; hook != nil {
		if err := hook(ctx); err != nil {
			return err
		}
	}
	if m.cfg.checkpointing() && s.resume == nil && s.revert == nil {
		if _, err := s.primary.ExecContext(ctx, checkpoint.DDL(schema, p.CheckpointTable)); err != nil {
			return fmt.Errorf("create checkpoint table %s: %w", p.CheckpointTable, err)
		}
		s.own(ctx, p.CheckpointTable, p.CheckpointTable)
	}
	if s.resume != nil {
		s.own(ctx, p.CheckpointTable, p.CheckpointTable)
	}
	if s.revert != nil {
		return m.recordRevertNames(ctx, s) // recover.go
	}
	return nil
}

// streamStart is where the applier starts: the checkpoint's position when resuming (after the same
// checks as a fresh start), else the current position.
func (r *run) streamStart(ctx context.Context) (binlogapply.Position, error) {
	m, s := r.m, r.s
	if s.revert != nil {
		return r.revertStart(ctx) // revert.go
	}
	if s.resume == nil {
		return m.startPosition(ctx, s)
	}
	if err := m.checkOriginalUnchanged(ctx, s); err != nil {
		return binlogapply.Position{}, err
	}
	if err := preflight.CheckNoPreparedXA(ctx, s.pre); err != nil {
		return binlogapply.Position{}, err
	}
	rec := s.resume
	if rec.Key != nil && hasOtherUniqueKey(s.plan.Ghost, s.plan.GhostKey) {
		// Rows the applier had moved aside (binlogapply/displaced.go) lived in its session's
		// temporary table, lost with the process: one under the checkpoint's key would be lost.
		// The copy walks every key again (INSERT IGNORE keeps the ghost's rows, the proof finds
		// the missing ones).
		m.log.Info().Msgf("the ghost has a unique key besides %s: rows the stopped run had moved aside may be missing, so the copy walks every key again", s.plan.GhostKey.Name)
		rec.Key = nil
	}
	pos := binlogapply.Position{File: rec.File, Pos: rec.Pos, GTID: rec.GTID}
	if m.cfg.UseGTID && pos.GTID == "" {
		return pos, fmt.Errorf("--resume --gtid: the checkpoint has no GTID set: resume without --gtid")
	}
	return pos, nil
}

// resumeKey is the key the copy starts above (nil: from the smallest).
func (s *session) resumeKey() []sql.RawBytes {
	if s.resume == nil {
		return nil
	}
	return s.resume.Key
}

// writeCheckpoints writes a checkpoint every interval while the run copies or is postponed, until
// ctx ends. A failed write is logged, not fatal: the last checkpoint is only older.
func (r *run) writeCheckpoints(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if ph, _ := r.phases.Current(); ph != PhaseCopy && ph != PhasePostponed {
			continue
		}
		if err := r.writeCheckpoint(ctx); err != nil && ctx.Err() == nil {
			r.m.log.Warn().Err(err).Msg("checkpoint not written")
		}
	}
}

// writeCheckpoint records the applied position, then how far the copy is complete.
func (r *run) writeCheckpoint(ctx context.Context) error {
	p := r.s.plan
	st := r.applier.Stats()
	rec := checkpoint.Record{File: st.Applied.File, Pos: st.Applied.Pos, GTID: st.Applied.GTID, EventsApplied: st.EventsApplied, Key: r.s.resumeKey(),
		Alter: r.s.alterRecord()} // resume.go
	if c := r.copier.Load(); c != nil {
		rec.Key, rec.RowsCopied = c.CompleteUpTo(), c.Copied()
	}
	if err := checkpoint.Write(ctx, r.s.primary, p.Original.Schema, p.CheckpointTable, rec); err != nil {
		return err
	}
	r.checkpointed.Store(true)
	// gh-ost's words, which wrappers wait for; no key values (they are row data).
	coords := fmt.Sprintf("%s:%d", rec.File, rec.Pos)
	if rec.GTID != "" {
		coords += " gtid=" + rec.GTID
	}
	r.m.log.Info().Str("checkpoint", rec.String()).
		Msgf("checkpoint success at coords=%s rows_copied=%d events_applied=%d iteration=%d", coords, rec.RowsCopied, rec.EventsApplied, r.checkpoints.Add(1))
	return nil
}

// keepForResume tells, after a failure, whether the helper tables stay for a --resume: the run
// checkpoints and a checkpoint exists.
func (r *run) keepForResume() bool {
	if !r.m.cfg.checkpointing() || r.s.revert != nil || (!r.checkpointed.Load() && r.s.resume == nil) {
		return false
	}
	p := r.s.plan
	r.m.log.Warn().Msgf("the migration stopped; %s, %s and %s are kept in the original's schema: run again with --resume to continue from the last checkpoint, or drop them",
		p.GhostTable, p.ChangelogTable, p.CheckpointTable)
	return true
}
