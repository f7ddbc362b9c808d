package preflight

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// --switch-to-rbr (gh-ost's): when the inspected server's binlog_format is not ROW, set it to ROW
// globally and restart its replication, so that its SQL thread logs the primary's changes as rows
// from then on. Only on a replica (on a primary, the application's open sessions would keep
// their own format), only when it has no replicas of its own (they would get row events they may
// not expect), never switched back. A dry run only says it would switch.

// switchToRBR switches the inspected replica to ROW when asked and needed, and updates vars.
func (st *State) switchToRBR(ctx context.Context, db *sql.DB, flavor dbconn.Flavor, onReplica bool, vars map[string]string) error {
	cfg := st.Options
	addr := cfg.Conn.Addr()
	format := vars["binlog_format"]
	if !cfg.SwitchToRBR || strings.EqualFold(format, "ROW") {
		return nil
	}
	if !onReplica {
		return fmt.Errorf("existing binlog_format is %s. Am not switching it to ROW: %s is not a replica, and its open sessions would keep writing %s events; SET GLOBAL binlog_format=ROW and restart the application's connections, or point --host at a replica", format, addr, format)
	}
	replicas, err := countReplicas(ctx, db, flavor)
	if err != nil {
		return err
	}
	if replicas > 0 {
		return fmt.Errorf("%s has %s binlog_format, but I'm too scared to change it to ROW because it has replicas. Bailing out: %s has %d replicas of its own; switch its format by hand, or point --host at a replica without replicas", addr, format, addr, replicas)
	}
	if !cfg.Execute {
		st.Log.Warn().Str("server", addr).Str("binlog_format", format).Msg("dry run: --switch-to-rbr would set binlog_format=ROW and restart replication here")
		vars["binlog_format"] = "ROW"
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
	vars["binlog_format"] = "ROW"
	return nil
}

// countReplicas counts the replicas registered with the server (SHOW SLAVE HOSTS / SHOW REPLICAS).
func countReplicas(ctx context.Context, db *sql.DB, f dbconn.Flavor) (int, error) {
	rows, err := db.QueryContext(ctx, f.ReplicasSQL())
	if err != nil {
		return 0, fmt.Errorf("list the replicas (%s): %w", f.ReplicasSQL(), err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}
