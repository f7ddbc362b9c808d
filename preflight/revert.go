package preflight

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// The checks of --revert (doc/revert.md): the revert's "ghost" is the old table a completed
// --checkpoint migration left, its stream starts at that migration's cut-over checkpoint, and its
// column mapping is the swap's recorded renames taken backwards. Everything is refused before
// anything is created.

// checkRevert is the Revert check: revertCheckpoint of --old-table, its cut-over checkpoint kept in
// State.Reverted.
func checkRevert(ctx context.Context, st *State) (err error) {
	st.Reverted, err = revertCheckpoint(ctx, st, st.Config.OldTableName, st.Config.UseGTID)
	return err
}

// revertCheckpoint names the revert's tables in the plan (the old table as the ghost, the live table's
// name-to-be _<tbl>_rev_del as the old one) and checks, before anything is changed, that the old
// table, the cut-over checkpoint and its binary log exist (with a GTID set under useGTID), that
// the columns map back (st.Spec: the renames) and that no helper table is in the way. It returns
// the cut-over checkpoint the stream starts at.
func revertCheckpoint(ctx context.Context, st *State, oldTable string, useGTID bool) (*checkpoint.Record, error) {
	p := st.Plan
	schema, tbl := st.Config.Database, st.Config.Table
	p.GhostTable, p.ChangelogTable = oldTable, table.ChangelogName(tbl)
	p.OldTable, p.CheckpointTable = table.RevertedName(tbl), table.CheckpointName(tbl)
	if strings.EqualFold(p.OldTable, p.GhostTable) { // reverting a revert: the first old name is free
		p.OldTable = table.OldName(tbl, "")
	}
	rec, err := cutOverCheckpoint(ctx, st)
	if err != nil {
		return nil, err
	}
	if useGTID && rec.GTID == "" {
		return nil, fmt.Errorf("--revert --gtid: the cut-over checkpoint has no GTID set: revert without --gtid")
	}
	if p.Ghost, err = table.Inspect(ctx, st.Primary, schema, p.GhostTable); err != nil {
		return nil, fmt.Errorf("--revert: inspect the old table: %w", err)
	}
	renames, err := revertRenames(rec, p, schema)
	if err != nil {
		return nil, err
	}
	st.Spec = &plan.AlterSpec{Renames: renames}
	return &rec, CheckHelperTables(ctx, st)
}

// cutOverCheckpoint checks that the old table and the checkpoint table exist, reads the cut-over
// checkpoint and checks its binary log is still on the inspected server.
func cutOverCheckpoint(ctx context.Context, st *State) (checkpoint.Record, error) {
	p := st.Plan
	schema, tbl := st.Config.Database, st.Config.Table
	if ok, err := table.Exists(ctx, st.Primary, schema, p.GhostTable); err != nil {
		return checkpoint.Record{}, err
	} else if !ok {
		return checkpoint.Record{}, fmt.Errorf("--revert: the old table %s.%s does not exist: name the table the migration left with --old-table (%s unless --timestamp-old-table)", schema, p.GhostTable, table.OldName(tbl, ""))
	}
	if ok, err := table.Exists(ctx, st.Primary, schema, p.CheckpointTable); err != nil {
		return checkpoint.Record{}, err
	} else if !ok {
		return checkpoint.Record{}, fmt.Errorf("--revert: the checkpoint table %s.%s does not exist (the migration ran without --checkpoint, or with --ok-to-drop-table): it cannot be reverted", schema, p.CheckpointTable)
	}
	rec, err := checkpoint.Last(ctx, st.Primary, schema, p.CheckpointTable)
	if errors.Is(err, checkpoint.ErrNone) || (err == nil && !rec.CutOver) {
		return checkpoint.Record{}, fmt.Errorf("--revert: %s.%s holds no cut-over checkpoint (the migration of %s did not complete its cut-over): there is nothing to revert", schema, p.CheckpointTable, tbl)
	}
	if err != nil {
		return checkpoint.Record{}, fmt.Errorf("--revert: %w", err)
	}
	logs, err := checkpoint.BinaryLogs(ctx, st.Inspected)
	if err != nil {
		return checkpoint.Record{}, fmt.Errorf("--revert: on %s: %w", p.Inspected.Addr(), err)
	}
	if !slices.Contains(logs, rec.File) {
		return checkpoint.Record{}, fmt.Errorf("--revert: the cut-over checkpoint is in binary log %s, which %s no longer has (purged): the changes since the cut-over cannot be replayed", rec.File, p.Inspected.Addr())
	}
	return rec, nil
}

// revertRenames derives from the cut-over checkpoint's swap the renames that take the live
// table's columns (p.Original) to the old table's (p.Ghost), and refuses when they cannot be
// derived safely: a checkpoint without a swap (an older version's), a swap of other tables, or
// a renamed column one of the tables no longer has.
func revertRenames(rec checkpoint.Record, p *plan.Plan, schema string) ([]plan.ColumnRename, error) {
	sw, ckpt := rec.Swap, schema+"."+p.CheckpointTable
	if sw == nil {
		return nil, fmt.Errorf("--revert: the cut-over checkpoint in %s was written by an older go-ghostlite, which did not record the swapped tables and renamed columns, so the revert cannot map the columns back safely: swap back by hand, or migrate again with the reverse --alter", ckpt)
	}
	var renames []plan.ColumnRename
	switch {
	case strings.EqualFold(sw.Old, p.GhostTable): // the swap put the old table away: live columns are the ghost's
		for from, to := range sw.Renames {
			renames = append(renames, plan.ColumnRename{From: to, To: from})
		}
	case strings.EqualFold(sw.Old, p.OldTable) && strings.EqualFold(sw.Ghost, p.GhostTable):
		// An earlier attempt of this revert (--checkpoint) wrote it and did not swap: the live
		// table was its original.
		for from, to := range sw.Renames {
			renames = append(renames, plan.ColumnRename{From: from, To: to})
		}
	default:
		return nil, fmt.Errorf("--revert: the cut-over checkpoint in %s is of the swap that renamed the replaced table to %s, not to %s: give --old-table=%s", ckpt, sw.Old, p.GhostTable, sw.Old)
	}
	slices.SortFunc(renames, func(a, b plan.ColumnRename) int { return strings.Compare(a.From, b.From) })
	for _, r := range renames {
		_, inLive := p.Original.Column(r.From)
		_, inOld := p.Ghost.Column(r.To)
		if !inLive || !inOld {
			return nil, fmt.Errorf("--revert: the cut-over checkpoint says column %s of %s holds what column %s of %s held, but %s: the revert cannot map it back; rename the columns back as they were at the cut-over",
				r.From, p.Original.Name, r.To, p.GhostTable, missingColumns(r, inLive, inOld, p))
		}
	}
	return renames, nil
}

// missingColumns says which column of a rename is missing, for revertRenames' refusal.
func missingColumns(r plan.ColumnRename, inLive, inOld bool, p *plan.Plan) string {
	var parts []string
	if !inLive {
		parts = append(parts, fmt.Sprintf("%s has no column %s", p.Original.Name, r.From))
	}
	if !inOld {
		parts = append(parts, fmt.Sprintf("%s has no column %s", p.GhostTable, r.To))
	}
	return strings.Join(parts, " and ")
}
