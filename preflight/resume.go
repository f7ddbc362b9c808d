package preflight

import (
	"context"
	"fmt"

	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// checkResume is the Resume check: resumeCheckpoint over the plan's helper tables and State.CreateScratch,
// its checkpoint kept in State.Resumed.
func checkResume(ctx context.Context, st *State) (err error) {
	st.Resumed, err = resumeCheckpoint(ctx, st, st.Plan.HelperTables(), st.CreateScratch)
	return err
}

// resumeCheckpoint runs the checks of a --resume before anything is changed (checkpoint.Resume: the
// ghost, changelog and checkpoint table of a stopped run of this ALTER, its binary log kept, the
// ghost's definition equal to a scratch ghost that create makes now with the server's settings:
// ddl.CreateGhostAs, handed in by the conductor) and plans the adopted ghost. It returns the
// checkpoint the run continues from; the conductor records the ghost as the run's and takes an
// older version's checkpoint table over (checkpoint.Resume.Adopt).
func resumeCheckpoint(ctx context.Context, st *State, tables checkpoint.Tables, create func(ctx context.Context, name string) (bool, error)) (*checkpoint.Record, error) {
	cfg, p := st.Config, st.Plan
	rc := checkpoint.Resume{Primary: st.Primary, Source: st.Inspected, SourceAddr: p.Inspected.Addr(), Tables: tables,
		Alter: st.Alter, Set: cfg.SetTables, Log: st.Log}
	rec, err := rc.Checkpoint(ctx)
	if err != nil {
		return nil, err
	}
	ddl, err := plan.ReadDDLSettings(ctx, st.Primary, cfg.AllowZeroInDate, cfg.SkipStrictMode)
	if err != nil {
		return nil, fmt.Errorf("on %s: %w", p.Primary.Addr(), err)
	}
	st.DDL = ddl
	p.UseDDLSettings(ddl, st.Spec)
	err = rc.CompareGhost(ctx, func(ctx context.Context, scratch string) (bool, error) {
		created, err := create(ctx, scratch)
		if err != nil {
			return created, fmt.Errorf("--resume: %w", err)
		}
		return created, nil
	})
	if err != nil {
		return nil, err
	}
	if p.Ghost, err = table.Inspect(ctx, st.Primary, cfg.Database, p.GhostTable); err != nil {
		return nil, fmt.Errorf("--resume: inspect the ghost table: %w", err)
	}
	return &rec, nil
}
