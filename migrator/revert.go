package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/ddl"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
	"github.com/go-ghostlite/go-ghostlite/preflight"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// Revert (--revert --old-table, doc/revert.md): swap a completed --checkpoint migration back.
//
// A --checkpoint run's cut-over writes, under its lock and once every change of the original is
// applied to the ghost, a cut-over checkpoint: the binlog position at that moment (cutOverCheckpoint).
// Every change of the original is before it; every change of the table's name after it (the
// cut-over's own RENAMEs aside) is the new table's. The run keeps that checkpoint table and the old
// table (unless --ok-to-drop-table).
//
// The cut-over checkpoint also records the swap (checkpoint.Swap): the table that took the name,
// the name the replaced table took, and every column copied under another name (the ALTER's
// CHANGE / RENAME COLUMN, as the column mapping applied them).
//
// A revert is a migration whose "original" is the live (new) table and whose "ghost" is the old
// table: it streams the binlog from the cut-over checkpoint, applies every change of the live
// table to the old one with the same column mapping as any migration, the recorded renames taken
// backwards (preflight's Revert moment: a renamed column's writes reach the old column), copies no row (the
// old table had every row at the checkpoint), and swaps with the same cut-over: the live table
// becomes _<tbl>_rev_del, the old table takes the name. Columns the old table lacks are dropped,
// columns the live one lacks get their defaults, a value the old definition cannot hold fails the
// run. Every refusal comes before anything is created; a failure before the swap drops only the
// revert's changelog, so the old table and the checkpoint stay for another try. The revert's
// changelog names its tables (changelog.HintRevert), so --recover-cut-over can put them back after a revert
// died between its renames (recover.go).

// adoptOldTable takes the old table as the revert's ghost: nothing is created.
func (m *Migrator) adoptOldTable(ctx context.Context, s *session, rec *checkpoint.Record) error {
	cfg, p := m.cfg, s.plan
	settings, err := plan.ReadDDLSettings(ctx, s.primary, cfg.AllowZeroInDate, cfg.SkipStrictMode)
	if err != nil {
		return fmt.Errorf("on %s: %w", p.Primary.Addr(), err)
	}
	s.pre.DDL = settings
	p.TimeZone = settings.TimeZone                   // p.Ghost, the old table, was inspected by preflight's Revert moment
	s.own(ctx, p.CheckpointTable, p.CheckpointTable) // dropped after the revert unless --checkpoint
	// gh-ost's words; it replays the changes since the cut-over on the old table, then swaps them.
	m.log.Info().Str("checkpoint", rec.String()).Msgf("Reverting %s from %s", table.Qualify(cfg.Database, cfg.Table), table.Qualify(cfg.Database, p.GhostTable))
	return nil
}

// withCutOverCheckpoint adds to the work under the cut-over's lock (after the sentinel) the
// cut-over checkpoint a --revert starts from, when the run checkpoints. A revert always writes
// one (its checkpoint table is dropped at the end without --checkpoint): when its cut-over fails
// or it dies between its renames, the old table holds every change up to that lock, and another
// try of the revert starts there, after which the failed attempt's RENAMEs (and the recovery's)
// come before any row of the table, where a stream from a cut-over's lock accepts them.
func (r *run) withCutOverCheckpoint(do func(context.Context) error) func(context.Context) error {
	if !r.kind.traits().checkpointTable {
		return do
	}
	return func(ctx context.Context) error {
		if do != nil {
			if err := do(ctx); err != nil {
				return err
			}
		}
		p := r.s.plan
		pos, err := binlogapply.CurrentPosition(ctx, r.s.inspected, p.Flavor)
		if err != nil {
			return fmt.Errorf("cut-over checkpoint: %w", err)
		}
		return r.checkpoints.WriteCutOver(ctx, checkpoint.Position(pos), checkpoint.Swap{Ghost: p.GhostTable, Old: p.OldTable, Renames: p.RenamedPairs()})
	}
}

// rowsCopied is the copy's count (0 for a revert, which copies nothing).
func (r *run) rowsCopied() int64 {
	if c := r.copier.Load(); c != nil {
		return c.Copied()
	}
	return 0
}

// doneMessage is the last log line's text: with what a revert would need.
func (r *run) doneMessage() string {
	p := r.s.plan
	msg := r.kind.doneMessage(p)
	if r.kind.traits().keepsCheckpoint {
		msg += fmt.Sprintf("; to revert it: --database=%s --table=%s --revert --old-table=%s --execute (checkpoint %s kept)",
			shellWord(p.Original.Schema), shellWord(p.Original.Name), shellWord(p.OldTable), p.CheckpointTable)
	}
	return msg
}

// shellWord quotes s for a POSIX shell when it holds anything but letters, digits and _ . - @ %:
// the revert hint is meant to be pasted.
func shellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r == '_' || r == '.' || r == '-' || r == '@' || r == '%' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// revertKind swaps a completed --checkpoint migration back: the old table is the ghost, the
// stream starts at the cut-over checkpoint, no row is copied.
type revertKind struct {
	keepCheckpoint bool               // --checkpoint without --ok-to-drop-table
	rec            *checkpoint.Record // the cut-over checkpoint, once checked
}

// ghost checks the revert (preflight's Revert moment) and adopts the old table: nothing is created.
func (k *revertKind) ghost(ctx context.Context, m *Migrator, s *session) (bool, error) {
	err := preflight.Run(ctx, s.pre, preflight.Revert) // the old table is the ghost
	k.rec = s.pre.Reverted
	if err != nil {
		return false, err
	}
	rec := k.rec
	if err := ddl.DropStale(ctx, s.pre); err != nil { // --initially-drop-old-table
		return false, err
	}
	return false, m.adoptOldTable(ctx, s, rec)
}

func (k *revertKind) planned(*session) error { return nil }

// helpers creates the revert's changelog and records its cut-over's names there (changelog.go);
// the checkpoint table is the migration's, adopted by adoptOldTable.
func (k *revertKind) helpers(ctx context.Context, r *run) error {
	if err := r.createChangelog(ctx, false); err != nil {
		return err
	}
	return r.recordRevertNames(ctx)
}

// streamStart is the cut-over checkpoint, after the same checks as a fresh start.
func (k *revertKind) streamStart(ctx context.Context, r *run) (binlogapply.Position, error) {
	if err := r.startChecks(ctx); err != nil {
		return binlogapply.Position{}, err
	}
	return binlogapply.Position{File: k.rec.File, Pos: k.rec.Pos, GTID: k.rec.GTID}, nil
}

// copyRows copies nothing: the old table had every row at the cut-over. The copy is said to
// start and end now, and the status is logged from here on.
func (k *revertKind) copyRows(ctx context.Context, r *run) error {
	now := time.Now().UnixNano()
	r.copyStart.Store(now)
	r.copyEnd.Store(now)
	r.bg.Go(r.m.logStatus)
	return nil
}

func (k *revertKind) startAfter() []sql.RawBytes { return nil }

func (k *revertKind) applyFailed(p *plan.Plan, err error) error {
	return fmt.Errorf("--revert: the changes since the cut-over could not all be applied to %s (nothing was swapped; %s is live as it was): %w", p.GhostTable, p.Original.Name, err)
}

// failureDrops is the revert's changelog: the old table and the cut-over checkpoint stay for
// another try.
func (k *revertKind) failureDrops(r *run) []string { return []string{r.s.plan.ChangelogTable} }

// startMessage is none: adoptOldTable says what the revert does once it is checked.
func (k *revertKind) startMessage(string, string) string { return "" }

func (k *revertKind) doneMessage(p *plan.Plan) string {
	return fmt.Sprintf("Done reverting %s.%s: %s is live again under its name, the reverted table is %s", p.Original.Schema, p.Original.Name, p.GhostTable, p.OldTable)
}

func (k *revertKind) traits() kindTraits {
	return kindTraits{copyPhase: status.PhaseNone, checkpointTable: true, keepsCheckpoint: k.keepCheckpoint, renamesAtStart: true,
		cutOverMessage: "the changes since the cut-over are applied to the old table; cutting over"}
}
