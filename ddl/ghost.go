package ddl

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"github.com/go-ghostlite/go-ghostlite/preflight"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// The ghost table is created on the primary with CREATE TABLE ... LIKE and altered there, so the
// server itself proves the ALTER; then both tables are compared (plan.MapColumns, the shared key
// in plan/sharedkey.go) to find what the copy can rely on.

// BuildGhost creates the ghost, runs the ALTER on it under the server's global settings and
// inspects it. created tells whether a ghost was created, even when err is not nil.
func BuildGhost(ctx context.Context, st *preflight.State) (created bool, err error) {
	cfg, p := st.Config, st.Plan
	if st.DDL, err = plan.ReadDDLSettings(ctx, st.Primary, cfg.AllowZeroInDate, cfg.SkipStrictMode); err != nil {
		return false, fmt.Errorf("on %s: %w", p.Primary.Addr(), err)
	}
	p.UseDDLSettings(st.DDL, st.Spec)
	if created, err = CreateGhostAs(ctx, st, p.GhostTable); err != nil {
		return created, err
	}
	if p.Ghost, err = table.Inspect(ctx, st.Primary, cfg.Database, p.GhostTable); err != nil {
		return created, fmt.Errorf("inspect the ghost table: %w", err)
	}
	if p.Ghost.Engine != "" && !strings.EqualFold(p.Ghost.Engine, "InnoDB") {
		return created, fmt.Errorf("the ALTER makes the table use the %s engine; go-ghostlite migrates to InnoDB only: remove ENGINE= from --alter", p.Ghost.Engine)
	}
	return created, nil
}

// CreateGhostAs is CreateGhost of the run's original, ALTER and DDL settings under the name name:
// the ghost, or the scratch table a --resume compares the earlier run's ghost with
// (preflight's Resume moment).
func CreateGhostAs(ctx context.Context, st *preflight.State, name string) (created bool, err error) {
	cfg := st.Config
	return CreateGhost(ctx, st.Primary, st.DDL, cfg.Database, cfg.Table, name, st.Spec, cfg.DiscardForeignKeys)
}

// applySettings gives conn the server's settings and a utf8mb4 client character set, so the ALTER's
// string literals are text, as an application's client sends them (MySQL refuses a JSON value
// from a binary string: JSON_VALUE(j, '$.n') in a binary session fails), then runs extra
// (", SESSION x = y" assignments, or ""). conn must not go back to the writer pool.
func applySettings(ctx context.Context, conn *sql.Conn, d plan.DDLSettings, extra string) error {
	if _, err := conn.ExecContext(ctx, "SET NAMES utf8mb4"); err != nil {
		return err
	}
	_, err := conn.ExecContext(ctx, "SET SESSION time_zone = "+table.QuoteString(d.TimeZone)+", SESSION sql_mode = "+table.QuoteString(d.SQLMode)+extra)
	return err
}

// CreateGhost creates schema.ghost like schema.orig and applies the ALTER to it, in a session with
// the server's settings (ddl). created reports whether the ghost table now exists (the caller drops
// it on a later failure).
func CreateGhost(ctx context.Context, db *sql.DB, ddl plan.DDLSettings, schema, orig, ghost string, spec *plan.AlterSpec, discardFKs bool) (created bool, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("create the ghost table: connect: %w", err)
	}
	defer conn.Close()
	// The pool's sessions are writer sessions; this one is given back changed: close it instead.
	defer conn.Raw(func(any) error { return driver.ErrBadConn }) //nolint:errcheck // marks the session unusable
	if err := applySettings(ctx, conn, ddl, ""); err != nil {
		return false, fmt.Errorf("create the ghost table: set the server's time_zone and sql_mode: %w", err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE TABLE %s LIKE %s", table.Qualify(schema, ghost), table.Qualify(schema, orig))); err != nil {
		return false, fmt.Errorf("create the ghost table %s.%s: %w", schema, ghost, err)
	}
	body, err := renameGhostChecks(ctx, conn, schema, orig, ghost, spec.Body)
	if err != nil {
		return true, err
	}
	if discardFKs {
		// CREATE TABLE ... LIKE does not copy foreign keys on MySQL or MariaDB; drop any that a
		// future server would copy, so --discard-foreign-keys holds whatever the server does.
		fks, err := dbconn.QueryStrings(ctx, db, `SELECT CONSTRAINT_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS
			WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ? ORDER BY CONSTRAINT_NAME`, schema, ghost)
		if err != nil {
			return true, fmt.Errorf("read foreign keys of the ghost table: %w", err)
		}
		drops := make([]string, len(fks))
		for i, fk := range fks {
			drops[i] = "DROP FOREIGN KEY " + table.QuoteIdent(fk)
		}
		if len(drops) > 0 {
			body = strings.Join(drops, ", ") + ", " + body
		}
	}
	if _, err := conn.ExecContext(ctx, "ALTER TABLE "+table.Qualify(schema, ghost)+" "+body); err != nil {
		// One line: the server quotes the failing part of the statement, newlines included.
		return true, fmt.Errorf("the ALTER fails on the ghost table: %w", dbconn.OneLine(err))
	}
	return true, nil
}
