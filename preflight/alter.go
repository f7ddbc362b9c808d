package preflight

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// checkAlter parses the ALTER and names the helper tables. A --revert has no ALTER: its
// conductor names the tables (the old table is the ghost).
func checkAlter(_ context.Context, st *State) error {
	cfg, p := st.Config, st.Plan
	if cfg.Revert {
		return nil
	}
	spec, err := plan.ParseAlter(cfg.Alter, cfg.Database, cfg.Table)
	if err != nil {
		return err
	}
	if err := renameRefusal(spec.Renames, cfg.ApproveRenamedColumns, cfg.SkipRenamedColumns); err != nil {
		return err
	}
	if st.Alter, err = checkpoint.NormalizeAlter(spec.Body); err != nil { // what a checkpoint records
		return err
	}
	st.Spec = spec
	p.GhostTable, p.ChangelogTable = table.GhostName(cfg.Table), table.ChangelogName(cfg.Table)
	p.OldTable = table.OldName(cfg.Table, "")
	p.CheckpointTable = table.CheckpointName(cfg.Table)
	if cfg.TimestampOldTable {
		p.OldTable = table.OldName(cfg.Table, time.Now().UTC().Format("20060102150405"))
	}
	return nil
}

// renameRefusal returns the refusal for renames the user approved neither way, or nil.
func renameRefusal(renames []plan.ColumnRename, approve, skip bool) error {
	if len(renames) == 0 || approve || skip {
		return nil
	}
	parts := make([]string, len(renames))
	froms := make([]string, len(renames))
	tos := make([]string, len(renames))
	for i, r := range renames {
		parts[i] = r.From + " to " + r.To
		froms[i] = r.From
		tos[i] = r.To
	}
	return fmt.Errorf("it seems the ALTER statement renames columns, as follows: %s; as precaution, you are asked to confirm: pass --approve-renamed-columns to copy %s's data into %s, or --skip-renamed-columns to leave %s empty",
		strings.Join(parts, ", "), strings.Join(froms, "/"), strings.Join(tos, "/"), strings.Join(tos, "/"))
}
