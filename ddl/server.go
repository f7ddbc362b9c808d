package ddl

import (
	"context"
	"fmt"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/preflight"
)

// The changes to the server that a flag asks for. --switch-to-rbr and --initially-drop-ghost-table /
// --initially-drop-old-table are made once every check before anything is created has passed;
// the checks decided them (preflight/rbr.go, preflight.CheckHelperTables). The metadata lock
// instrument (--allow-setup-metadata-lock-instruments) is turned on from inside its check, which
// reads again whether the locks are visible (preflight/mdlcheck.go, State.EnableMetadataLocks).
// Nothing is decided here.

// Setup makes the changes the checks before anything is created recorded: the binlog format
// switch, then the drop of stale helper tables.
func Setup(ctx context.Context, st *preflight.State) error {
	if err := SwitchToRBR(ctx, st); err != nil {
		return err
	}
	return DropStale(ctx, st)
}

// SwitchToRBR sets the inspected replica's binlog_format to ROW globally and restarts its
// replication, when the checks recorded the switch (State.SwitchRBRFrom); a dry run only says
// it would. It is never switched back.
func SwitchToRBR(ctx context.Context, st *preflight.State) error {
	format := st.SwitchRBRFrom
	if format == "" {
		return nil
	}
	db, flavor, addr := st.Inspected, st.Plan.Flavor, st.Config.Conn.Addr()
	if !st.Config.Execute {
		st.Log.Warn().Str("server", addr).Str("binlog_format", format).Msg("dry run: --switch-to-rbr would set binlog_format=ROW and restart replication here")
		return nil
	}
	// Replication is stopped first: MySQL refuses to change binlog_format while its applier
	// threads run (error 3747).
	if _, err := db.ExecContext(ctx, flavor.StopReplicaSQL()); err != nil {
		return fmt.Errorf("--switch-to-rbr on %s: %s: %w", addr, flavor.StopReplicaSQL(), err)
	}
	_, setErr := db.ExecContext(ctx, "SET GLOBAL binlog_format = 'ROW'")
	if _, err := db.ExecContext(ctx, flavor.StartReplicaSQL()); err != nil {
		return fmt.Errorf("--switch-to-rbr on %s: %s: %w (replication is stopped: restart it)", addr, flavor.StartReplicaSQL(), err)
	}
	if setErr != nil {
		return fmt.Errorf("--switch-to-rbr on %s: SET GLOBAL binlog_format = 'ROW': %w", addr, setErr)
	}
	st.Log.Warn().Str("server", addr).Str("was", format).Msg("--switch-to-rbr: binlog_format is now ROW and replication restarted (it is not switched back)")
	st.SwitchRBRFrom = ""
	return nil
}

// DropStale drops the helper tables of an earlier run that --initially-drop-* let the run drop
// (State.Stale), on the primary.
func DropStale(ctx context.Context, st *preflight.State) error {
	schema := st.Config.Database
	for _, h := range st.Stale {
		if _, err := st.Primary.ExecContext(ctx, "DROP TABLE IF EXISTS "+table.Qualify(schema, h.Name)); err != nil {
			return fmt.Errorf("drop %s.%s (%s): %w", schema, h.Name, h.Flag, err)
		}
		st.Log.Info().Str("table", h.Name).Msgf("dropped %s.%s (%s)", schema, h.Name, h.Flag)
	}
	st.Stale = nil
	return nil
}

// EnableMetadataLocks turns on performance_schema's metadata lock instrument and consumer on the
// primary (until the server restarts), for the check that asked (State.EnableMetadataLocks).
func EnableMetadataLocks(ctx context.Context, st *preflight.State) error {
	if err := dbconn.EnableMetadataLockInstruments(ctx, st.Primary); err != nil {
		return err
	}
	if visible, _ := dbconn.MetadataLocksVisible(ctx, st.Primary); visible {
		st.Log.Warn().Str("server", st.Plan.Primary.Addr()).Msg("turned on performance_schema's wait/lock/metadata/sql/mdl instrument and global_instrumentation consumer (until the server restarts)")
	}
	return nil
}
