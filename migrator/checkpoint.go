package migrator

import (
	"context"
	"database/sql"
	"time"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/ddl"
	"github.com/go-ghostlite/go-ghostlite/preflight"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// Checkpoints and --resume (doc/resume.md): the call sites of package checkpoint. A goroutine of
// the background group runs a checkpoint.Writer, which writes every CheckpointInterval while the
// run is in the copy or the postponed phase; a --resume checks the stopped run's checkpoint and
// ghost (checkpoint.Resume) before anything is changed, then streams from the checkpoint's
// position and copies the keys above its key.

// resumeKind continues a stopped --checkpoint run: its ghost, changelog and checkpoint table are
// adopted, the stream starts at its checkpoint and the copy above its key.
type resumeKind struct {
	freshKind                    // copies, checkpoints and cuts over as a fresh run
	rec       *checkpoint.Record // the checkpoint continued from, once the ghost is adopted
}

// ghost adopts the stopped run's ghost, after the checks of a --resume.
func (k *resumeKind) ghost(ctx context.Context, _ *Migrator, s *session) (bool, error) {
	rec, err := s.checkResume(ctx)
	k.rec = rec
	return false, err
}

// planned refuses a --resume whose copy would fill a ghost column from another original column
// than the stopped run did (checkpoint.SameCopy).
func (k *resumeKind) planned(s *session) error {
	return checkpoint.SameCopy(s.plan.HelperTables(), k.rec.Alter, s.alterRecord())
}

// helpers adopts the stopped run's changelog (or creates it when gone) and checkpoint table.
func (k *resumeKind) helpers(ctx context.Context, r *run) error {
	if err := r.createChangelog(ctx, true); err != nil {
		return err
	}
	r.s.own(ctx, r.s.plan.CheckpointTable, r.s.plan.CheckpointTable)
	return nil
}

// streamStart is the checkpoint's position, after the same checks as a fresh start.
func (k *resumeKind) streamStart(ctx context.Context, r *run) (binlogapply.Position, error) {
	m, s := r.m, r.s
	if err := r.startChecks(ctx); err != nil {
		return binlogapply.Position{}, err
	}
	rec := k.rec
	if checkpoint.Rewalk(*rec, s.plan.Ghost, s.plan.GhostKey.Name, len(s.plan.GhostKeyByBytes()) > 0) {
		m.log.Info().Msgf("the ghost has a unique key besides %s, or its collation changes: rows the stopped run had moved aside may be missing, so the copy walks every key again", s.plan.GhostKey.Name)
		rec.Key = nil
	}
	pos, err := rec.StreamFrom(m.cfg.UseGTID)
	return binlogapply.Position(pos), err
}

// startAfter is the checkpoint's key (nil once streamStart decided to walk every key again).
func (k *resumeKind) startAfter() []sql.RawBytes { return k.rec.Key }

// failureDrops keeps every helper table for another --resume.
func (k *resumeKind) failureDrops(r *run) []string {
	r.keptForResume()
	return nil
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
			return ph == status.PhaseCopy || ph == status.PhasePostponed
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
		From:  r.kind.startAfter(),
		Alter: r.s.alterRecord(),
		Log:   r.m.log,
	}
}

// keptForResume says, after a failure, that the helper tables stay for a --resume.
func (r *run) keptForResume() {
	p := r.s.plan
	r.m.log.Warn().Msgf("the migration stopped; %s, %s and %s are kept in the original's schema: run again with --resume to continue from the last checkpoint, or drop them",
		p.GhostTable, p.ChangelogTable, p.CheckpointTable)
}

// checkResume runs the checks of a --resume (preflight's Resume moment) and adopts the stopped run's
// ghost.
func (s *session) checkResume(ctx context.Context) (*checkpoint.Record, error) {
	tables := s.plan.HelperTables()
	s.pre.CreateScratch = func(ctx context.Context, scratch string) (bool, error) {
		return ddl.CreateGhostAs(ctx, s.pre, scratch)
	}
	if err := preflight.Run(ctx, s.pre, preflight.Resume); err != nil {
		return nil, err
	}
	rec := s.pre.Resumed
	if err := (checkpoint.Resume{Primary: s.primary, Tables: tables}).Adopt(ctx); err != nil { // an older version's table
		return nil, err
	}
	s.own(ctx, s.plan.GhostTable, s.plan.GhostTable)
	// gh-ost's words, which wrappers wait for; no key values (they are row data).
	s.log.Info().Str("checkpoint", rec.String()).Str("written", rec.At.Format(time.RFC3339)).
		Msgf("Resuming from checkpoint coords=%s rows_copied=%d events_applied=%d", rec.Coords(), rec.RowsCopied, rec.EventsApplied)
	return rec, nil
}

// alterRecord is what a checkpoint records of the run's ALTER: normalized, and the original
// column each ghost column is copied from.
func (s *session) alterRecord() *checkpoint.Alter {
	from := make(map[string]string, len(s.plan.Columns))
	for _, c := range s.plan.Columns {
		from[c.Ghost] = c.Original
	}
	return checkpoint.AlterOf(s.pre.Alter, from, s.pre.Config.SetTables)
}
