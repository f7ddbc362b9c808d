package migrator

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/ddl"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// Run kinds: a run is fresh (freshKind, here), a --resume of a stopped run (resumeKind,
// checkpoint.go) or a --revert of a finished one (revertKind, revert.go). Every phase is the same
// for the three; what differs is asked of the kind, and only the kinds know which one they are:
// the phase code (prepare.go, execute.go, run.go, copy.go) has no branch on --resume or --revert.

// runKind is what makes a run fresh, a resume or a revert.
type runKind interface {
	// ghost creates the ghost with the ALTER applied, or adopts the table that serves as one
	// (in preparation). created tells whether this run created a table, even with an error.
	ghost(ctx context.Context, m *Migrator, s *session) (created bool, err error)
	// planned checks the plan once the ghost exists and its checks passed.
	planned(s *session) error
	// helpers creates (or adopts) the changelog and the checkpoint table and records them as
	// this run's.
	helpers(ctx context.Context, r *run) error
	// streamStart is where the applier starts, once what happened before it is checked.
	streamStart(ctx context.Context, r *run) (binlogapply.Position, error)
	// copyRows is the copy's work (in traits().copyPhase).
	copyRows(ctx context.Context, r *run) error
	// startAfter is the key the copy and the checkpoints start above (nil: from the smallest).
	startAfter() []sql.RawBytes
	// applyFailed is the run's error when the binlog applier fails with err.
	applyFailed(p *plan.Plan, err error) error
	// failureDrops are the helper tables dropped after a failure before the swap (those this run
	// created or adopted); nil keeps them all, saying why.
	failureDrops(r *run) []string
	// startMessage is the run's first log line, "" for none.
	startMessage(schema, tbl string) string
	// doneMessage is the first words of the last log line.
	doneMessage(p *plan.Plan) string
	traits() kindTraits
}

// kindTraits is what a kind decides as plain data.
type kindTraits struct {
	copyPhase status.Phase // the phase the copy runs in; status.PhaseNone: nothing is copied, no copy phase
	checksum  bool         // --checksum compares the tables before the cut-over
	// checkpointTable: the run has a checkpoint table: the applier watches it, the cut-over
	// writes its checkpoint there, and success drops it unless keepsCheckpoint.
	checkpointTable   bool
	writesCheckpoints bool // a checkpoint is written every --checkpoint-seconds (checkpoint.go)
	keepsCheckpoint   bool // success keeps the checkpoint table, for a revert
	renamesAtStart    bool // the stream starts at a cut-over's lock, before its RENAMEs
	analyzeGhost      bool // --analyze-ghost-table before the cut-over
	cutOverMessage    string
}

// newKind is the kind of run c asks for: the one place --resume and --revert are told apart.
func newKind(c config.Config) runKind {
	switch {
	case c.Revert:
		return &revertKind{keepCheckpoint: c.Checkpoint && !c.OkToDropTable}
	case c.Resume: // a resume checkpoints as its stopped run did
		return &resumeKind{freshKind: freshKind{checkpoint: true, keepCheckpoint: !c.OkToDropTable}}
	}
	return freshKind{checkpoint: c.Checkpoint, keepCheckpoint: c.Checkpoint && !c.OkToDropTable}
}

// freshKind is a migration from the start: a new ghost, the stream from now, every row copied.
type freshKind struct {
	checkpoint     bool // --checkpoint
	keepCheckpoint bool // --checkpoint without --ok-to-drop-table
}

// ghost creates the ghost with the ALTER applied (ddl.BuildGhost).
func (freshKind) ghost(ctx context.Context, _ *Migrator, s *session) (bool, error) {
	created, err := ddl.BuildGhost(ctx, s.pre)
	if created {
		s.own(ctx, s.plan.GhostTable, s.plan.GhostTable) // the ALTER, failed or not, is done: its final identity
	}
	return created, err
}

func (freshKind) planned(*session) error { return nil }

// helpers creates the changelog and, with --checkpoint, the checkpoint table.
func (k freshKind) helpers(ctx context.Context, r *run) error {
	if err := r.createChangelog(ctx, false); err != nil {
		return err
	}
	if !k.checkpoint {
		return nil
	}
	s, p := r.s, r.s.plan
	if err := checkpoint.Create(ctx, s.primary, p.Original.Schema, p.CheckpointTable); err != nil {
		return err
	}
	s.own(ctx, p.CheckpointTable, p.CheckpointTable)
	return nil
}

// streamStart is the current position (execute.go's startPosition).
func (freshKind) streamStart(ctx context.Context, r *run) (binlogapply.Position, error) {
	return r.startPosition(ctx)
}

func (freshKind) copyRows(ctx context.Context, r *run) error { return r.copyRows(ctx) }

func (freshKind) startAfter() []sql.RawBytes { return nil }

func (freshKind) applyFailed(_ *plan.Plan, err error) error {
	return fmt.Errorf("binlog applier: %w", err)
}

// failureDrops are the ghost, the changelog and the checkpoint table, unless a checkpoint was
// written: then they stay for a --resume.
func (k freshKind) failureDrops(r *run) []string {
	p := r.s.plan
	if k.checkpoint && r.checkpoints != nil && r.checkpoints.Written() {
		r.keptForResume()
		return nil
	}
	drop := []string{p.GhostTable, p.ChangelogTable}
	if k.checkpoint {
		drop = append(drop, p.CheckpointTable)
	}
	return drop
}

// startMessage is gh-ost's first words, names backquoted: Migrating `db`.`t`.
func (freshKind) startMessage(schema, tbl string) string {
	return "Migrating " + table.Qualify(schema, tbl)
}

// doneMessage is gh-ost's words, which wrappers wait for.
func (freshKind) doneMessage(p *plan.Plan) string {
	return fmt.Sprintf("Done migrating %s.%s", p.Original.Schema, p.Original.Name)
}

func (k freshKind) traits() kindTraits {
	return kindTraits{copyPhase: status.PhaseCopy, checksum: true, checkpointTable: k.checkpoint, writesCheckpoints: k.checkpoint,
		keepsCheckpoint: k.keepCheckpoint, analyzeGhost: true, cutOverMessage: "cutting over: the ghost is in sync"}
}

// createChangelog creates the changelog (or, with adopt, keeps the one that exists) and records
// it as this run's: from here a failure drops it (failureDrops).
func (r *run) createChangelog(ctx context.Context, adopt bool) error {
	s, p := r.s, r.s.plan
	var err error
	if adopt {
		err = changelogOf(p).Adopt(ctx, s.primary)
	} else {
		err = changelogOf(p).Create(ctx, s.primary)
	}
	if err != nil {
		return err
	}
	s.own(ctx, p.ChangelogTable, p.ChangelogTable)
	if hook := r.m.seams.afterChangelog; hook != nil {
		return hook(ctx)
	}
	return nil
}
