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

// checkSwitchToRBR refuses a --switch-to-rbr the inspected server cannot take and otherwise, when
// its format is not ROW, records the switch (State.SwitchRBRFrom: ddl.SwitchToRBR makes it once
// every check passed) and updates vars to the format the applier will read.
func (st *State) checkSwitchToRBR(ctx context.Context, db *sql.DB, flavor dbconn.Flavor, onReplica bool, vars map[string]string) error {
	cfg := st.Config
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
	st.SwitchRBRFrom = format
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
