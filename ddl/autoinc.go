package ddl

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// The server's own ALTER keeps the table's AUTO_INCREMENT counter: an id handed out once (even
// of a row deleted since) is never handed out again. The ghost's counter only follows the rows
// copied into it, so at the cut-over, while the original is locked and every change up to the lock
// is applied, the ghost is given the original's counter (the server keeps the larger of it and
// the largest id + 1).

// CarryAutoIncrement sets the ghost's AUTO_INCREMENT to the original's. It does nothing when either
// table has no AUTO_INCREMENT column or when the ALTER sets the counter itself.
func CarryAutoIncrement(ctx context.Context, db *sql.DB, p *plan.Plan, alterSetsCounter bool) error {
	if alterSetsCounter || !plan.HasAutoIncrement(p.Original) || !plan.HasAutoIncrement(p.Ghost) {
		return nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("carry the AUTO_INCREMENT counter: connect: %w", err)
	}
	defer conn.Close()
	return CarryAutoIncrementOn(ctx, conn, p, alterSetsCounter)
}

// CarryAutoIncrementOn is CarryAutoIncrement on a session of the caller's: the cut-over's own
// locking session, when it holds the ghost locked (--cut-over=lock-rename).
func CarryAutoIncrementOn(ctx context.Context, conn *sql.Conn, p *plan.Plan, alterSetsCounter bool) error {
	if alterSetsCounter || !plan.HasAutoIncrement(p.Original) || !plan.HasAutoIncrement(p.Ghost) {
		return nil
	}
	if !p.Flavor.MariaDB {
		// MySQL 8 caches information_schema.TABLES statistics; read the live counter.
		if _, err := conn.ExecContext(ctx, "SET SESSION information_schema_stats_expiry = 0"); err != nil {
			return fmt.Errorf("carry the AUTO_INCREMENT counter: %w", err)
		}
	}
	var next sql.NullInt64
	err := conn.QueryRowContext(ctx, `SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`,
		p.Original.Schema, p.Original.Name).Scan(&next)
	if err != nil {
		return fmt.Errorf("read the AUTO_INCREMENT counter of %s: %w", p.Original.Name, err)
	}
	if !next.Valid || next.Int64 <= 1 {
		return nil
	}
	q := fmt.Sprintf("ALTER TABLE %s AUTO_INCREMENT = %d", table.Qualify(p.Original.Schema, p.GhostTable), next.Int64)
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("set the ghost's AUTO_INCREMENT counter to the original's %d: %w", next.Int64, err)
	}
	return nil
}
