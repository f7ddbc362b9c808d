package ddl

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// The triggers carried to the ghost under the cut-over's lock (preflight/triggers.go reads and
// checks them; the conductor creates them through cutover.Config.UnderLock).

// CreateTriggers creates defs on table tbl of schema, in firing order, each with its own sql_mode
// and character set, on one connection whose session settings are restored before it is returned.
func CreateTriggers(ctx context.Context, db *sql.DB, schema, tbl string, defs []plan.Trigger) error {
	if len(defs) == 0 {
		return nil
	}
	// Left by an attempt whose undo could not run before the lock was lost: start clean.
	if err := DropTriggersFrom(ctx, db, schema, tbl, defs); err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("create triggers: %w", err)
	}
	defer conn.Close()
	for _, d := range defs {
		if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = ?, character_set_client = ?, collation_connection = ?",
			d.SQLMode, d.CharsetClient, d.CollConn); err != nil {
			return fmt.Errorf("create trigger %s: session settings: %w", d.NewName, err)
		}
		stmt := fmt.Sprintf("CREATE TRIGGER %s %s %s ON %s FOR EACH ROW %s", table.Qualify(schema, d.NewName), d.Timing, d.Event,
			table.Qualify(schema, tbl), d.Statement)
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create trigger %s on %s.%s: %w", d.NewName, schema, tbl, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "SET NAMES binary"); err != nil {
		return fmt.Errorf("create triggers: restore the session: %w", err)
	}
	_, err = conn.ExecContext(ctx, "SET SESSION sql_mode = ?", dbconn.WriterSQLMode)
	return err
}

// DropTriggersFrom drops those of defs' new triggers that are on table tbl (by name, so a trigger
// that went with a completed rename to another table is kept).
func DropTriggersFrom(ctx context.Context, db *sql.DB, schema, tbl string, defs []plan.Trigger) error {
	for _, d := range defs {
		var on string
		err := db.QueryRowContext(ctx, `SELECT EVENT_OBJECT_TABLE FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME = ?`,
			schema, d.NewName).Scan(&on)
		if err == sql.ErrNoRows || (err == nil && on != tbl) {
			continue
		}
		if err != nil {
			return fmt.Errorf("look up trigger %s: %w", d.NewName, err)
		}
		if _, err := db.ExecContext(ctx, "DROP TRIGGER IF EXISTS "+table.Qualify(schema, d.NewName)); err != nil {
			return fmt.Errorf("drop trigger %s from %s.%s: %w", d.NewName, schema, tbl, err)
		}
	}
	return nil
}
