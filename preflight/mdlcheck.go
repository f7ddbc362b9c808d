package preflight

import (
	"context"
	"fmt"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// checkCutOverAlgorithm refuses a --cut-over algorithm that cannot be trusted on the primary's
// flavor (--cut-over=atomic on MySQL), before anything is created: the cut-over itself would
// refuse only once the copy is done.
func checkCutOverAlgorithm(_ context.Context, st *State) error {
	if st.CutOverRefusal == nil {
		return nil
	}
	return st.CutOverRefusal(st.Plan.Flavor)
}

// checkMetadataLocks is the pre-flight of the cut-over's metadata-lock checks, on the primary where
// the tables are renamed. When performance_schema does not show metadata locks the run is refused,
// as gh-ost does, unless --skip-metadata-lock-check; with --allow-setup-metadata-lock-instruments
// (and --execute: a dry run changes nothing) the conductor's State.EnableMetadataLocks
// (ddl.EnableMetadataLocks) turns the instrument on first. --cut-over=atomic cannot go without
// them at all.
func checkMetadataLocks(ctx context.Context, st *State) error {
	cfg, addr := st.Config, st.Plan.Primary.Addr()
	visible, why := dbconn.MetadataLocksVisible(ctx, st.Primary)
	if !visible && cfg.AllowSetupMetadataLockInstruments {
		if !cfg.Execute {
			st.Log.Info().Str("server", addr).Str("reason", why).Msg("dry run: with --execute the metadata lock instrument would be turned on (--allow-setup-metadata-lock-instruments)")
			return nil
		}
		if st.EnableMetadataLocks != nil {
			if err := st.EnableMetadataLocks(ctx); err != nil {
				return fmt.Errorf("--allow-setup-metadata-lock-instruments on %s: %w", addr, err)
			}
			visible, why = dbconn.MetadataLocksVisible(ctx, st.Primary)
		}
	}
	switch {
	case visible:
		return nil
	case cfg.CutOver == config.CutOverAtomic:
		return fmt.Errorf("--cut-over=atomic needs performance_schema metadata locks on %s (%s): turn them on (performance_schema=ON, and --allow-setup-metadata-lock-instruments), or use --cut-over=three-step", addr, why)
	case cfg.SkipMetadataLockCheck:
		st.Log.Warn().Str("server", addr).Str("reason", why).Msg("--skip-metadata-lock-check: the cut-over proceeds without performance_schema metadata locks (processlist checks only)")
		return nil
	}
	hint := "pass --allow-setup-metadata-lock-instruments to let the tool turn the instrument on"
	if why == "performance_schema is off" {
		hint = "start the server with performance_schema=ON"
	}
	return fmt.Errorf("bailing out because metadata lock instrument not enabled on %s (%s): the cut-over cannot prove its renames wait on the right table; %s, or pass --skip-metadata-lock-check to proceed without the check", addr, why, hint)
}
