package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The server's own ALTER keeps the table's AUTO_INCREMENT counter: an id handed out once (even
// of a row deleted since) is never handed out again. The ghost's counter only follows the rows
// copied into it, so at the cut-over, while the original is locked and every change up to the lock
// is applied, the ghost is given the original's counter (the server keeps the larger of it and
// the largest id + 1).

// carryAutoIncrement sets the ghost's AUTO_INCREMENT to the original's. It does nothing when either
// table has no AUTO_INCREMENT column or when the ALTER sets the counter itself.
func carryAutoIncrement(ctx context.Context, db *sql.DB, p *Plan, alterSetsCounter bool) error {
	if alterSetsCounter || !hasAutoIncrement(p.Original) || !hasAutoIncrement(p.Ghost) {
		return nil
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("carry the AUTO_INCREMENT counter: connect: %w", err)
	}
	defer conn.Close()
	if !p.Flavor.MariaDB {
		// MySQL 8 caches information_schema.TABLES statistics; read the live counter.
		if _, err := conn.ExecContext(ctx, "SET SESSION information_schema_stats_expiry = 0"); err != nil {
			return fmt.Errorf("carry the AUTO_INCREMENT counter: %w", err)
		}
	}
	var next sql.NullInt64
	err = conn.QueryRowContext(ctx, `SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`,
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

func hasAutoIncrement(t *table.Table) bool {
	for _, c := range t.Columns {
		if c.AutoIncrement {
			return true
		}
	}
	return false
}

// setsAutoIncrement reports whether the ALTER sets the table's counter (the AUTO_INCREMENT [=] N
// table option, not the column attribute).
func setsAutoIncrement(spec *alterSpec) bool {
	toks, err := tokenize(spec.Body)
	if err != nil {
		return false
	}
	for i, t := range toks {
		if t.depth != 0 || !t.isWord("AUTO_INCREMENT") || i+1 >= len(toks) {
			continue
		}
		next := toks[i+1]
		if next.isPunct('=') || (next.Kind == sqltok.Word && strings.Trim(next.Text, "0123456789") == "") {
			return true
		}
	}
	return false
}
