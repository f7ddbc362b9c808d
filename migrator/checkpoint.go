package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/preflight"
)

// Checkpoints and --resume (doc/resume.md): the call sites of package checkpoint. A goroutine of
// the background group runs a checkpoint.Writer, which writes every CheckpointInterval while the
// run is in the copy or the postponed phase; a --resume checks the stopped run's checkpoint and
// ghost (checkpoint.Resume) before anything is changed, then streams from the checkpoint's
// position and copies the keys above its key.

// checkpointing tells whether this run writes checkpoints.
func (c *Config) checkpointing() bool { return c.Checkpoint || c.Resume }

// prepareHelpers creates the changelog and, when checkpointing, the checkpoint table, or adopts
// those of the run a --resume continues, and records them as this run's.
func (r *run) prepareHelpers(ctx context.Context) error {
	m, s, p := r.m, r.s, r.s.plan
	schema := p.Original.Schema
	if exists, err := table.Exists(ctx, s.primary, schema, p.ChangelogTable); err != nil {
		return err
	} else if !exists || s.resume == nil {
		if err := changelogOf(p).Create(ctx, s.primary); err != nil {
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
		return m.recordRevertNames(ctx, s) // changelog.go
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
	if checkpoint.Rewalk(*rec, s.plan.Ghost, s.plan.GhostKey.Name) {
		m.log.Info().Msgf("the ghost has a unique key besides %s: rows the stopped run had moved aside may be missing, so the copy walks every key again", s.plan.GhostKey.Name)
		rec.Key = nil
	}
	pos, err := rec.StreamFrom(m.cfg.UseGTID)
	return binlogapply.Position(pos), err
}

// resumeKey is the key the copy starts above (nil: from the smallest).
func (s *session) resumeKey() []sql.RawBytes {
	if s.resume == nil {
		return nil
	}
	return s.resume.Key
}

// newCheckpointWriter is the run's checkpoint writer (run once the stream is positioned: a resume
// may have dropped its key by then).
func (r *run) newCheckpointWriter() *checkpoint.Writer {
	p := r.s.plan
	return &checkpoint.Writer{
		DB: r.s.primary, Schema: p.Original.Schema, Table: p.CheckpointTable,
		Interval: r.m.cfg.CheckpointInterval,
		Due: func() bool {
			ph, _ := r.phases.Current()
			return ph == PhaseCopy || ph == PhasePostponed
		},
		Applied: func() (checkpoint.Position, int64) {
			st := r.applier.Stats()
			return checkpoint.Position(st.Applied), st.EventsApplied
		},
		Copy: func() checkpoint.Copy {
			if c := r.copier.Load(); c != nil {
				return c
			}
			return nil
		},
		From:  r.s.resumeKey(),
		Alter: r.s.alterRecord(),
		Log:   r.m.log,
	}
}

// keepForResume tells, after a failure, whether the helper tables stay for a --resume: the run
// checkpoints and a checkpoint exists.
func (r *run) keepForResume() bool {
	written := r.checkpoints != nil && r.checkpoints.Written()
	if !r.m.cfg.checkpointing() || r.s.revert != nil || (!written && r.s.resume == nil) {
		return false
	}
	p := r.s.plan
	r.m.log.Warn().Msgf("the migration stopped; %s, %s and %s are kept in the original's schema: run again with --resume to continue from the last checkpoint, or drop them",
		p.GhostTable, p.ChangelogTable, p.CheckpointTable)
	return true
}

// checkResume runs the checks of a --resume (checkpoint.Resume) and adopts the stopped run's ghost.
func (m *Migrator) checkResume(ctx context.Context, s *session, spec *preflight.AlterSpec) error {
	cfg, p := m.cfg, s.plan
	rc := checkpoint.Resume{Primary: s.primary, Source: s.inspected, SourceAddr: p.Inspected.Addr(), Tables: helperTables(p),
		Alter: s.pre.Alter, Log: m.log}
	rec, err := rc.Checkpoint(ctx)
	if err != nil {
		return err
	}
	ddl, err := preflight.ReadDDLSettings(ctx, s.primary, cfg.AllowZeroInDate, cfg.SkipStrictMode)
	if err != nil {
		return fmt.Errorf("on %s: %w", p.Primary.Addr(), err)
	}
	s.pre.DDL = ddl
	p.TimeZone = ddl.TimeZone
	p.Primary.NoZeroDate, p.Primary.NoZeroInDate = preflight.ZeroDateChecks(ddl.SQLMode)
	p.AlterSetsAutoIncrement = preflight.SetsAutoIncrement(spec)
	err = rc.CompareGhost(ctx, func(ctx context.Context, scratch string) (bool, error) {
		created, err := preflight.CreateGhost(ctx, s.primary, ddl, cfg.Database, cfg.Table, scratch, spec, cfg.DiscardForeignKeys)
		if err != nil {
			return created, fmt.Errorf("--resume: %w", err)
		}
		return created, nil
	})
	if err != nil {
		return err
	}
	if p.Ghost, err = table.Inspect(ctx, s.primary, cfg.Database, p.GhostTable); err != nil {
		return fmt.Errorf("--resume: inspect the ghost table: %w", err)
	}
	if err := rc.Adopt(ctx); err != nil { // an older version's table
		return err
	}
	s.resume = &rec
	s.own(ctx, p.GhostTable, p.GhostTable)
	m.log.Info().Str("checkpoint", rec.String()).Int64("rows_copied", rec.RowsCopied).Str("written", rec.At.Format(time.RFC3339)).
		Msg("resuming from the last checkpoint")
	return nil
}

// checkResumeColumns refuses a --resume whose copy would fill a ghost column from another original
// column than the stopped run did (checkpoint.SameCopy).
func checkResumeColumns(s *session) error {
	if s.resume == nil {
		return nil
	}
	return checkpoint.SameCopy(helperTables(s.plan), s.resume.Alter, s.alterRecord())
}

// alterRecord is what a checkpoint records of the run's ALTER: normalized, and the original
// column each ghost column is copied from.
func (s *session) alterRecord() *checkpoint.Alter {
	from := make(map[string]string, len(s.plan.Columns))
	for _, c := range s.plan.Columns {
		from[c.Ghost] = c.Original
	}
	return checkpoint.AlterOf(s.pre.Alter, from)
}

// helperTables names the migration's tables for package checkpoint.
func helperTables(p *preflight.Plan) checkpoint.Tables {
	return checkpoint.Tables{Schema: p.Original.Schema, Original: p.Original.Name,
		Ghost: p.GhostTable, Changelog: p.ChangelogTable, Checkpoint: p.CheckpointTable}
}
