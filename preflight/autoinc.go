package preflight

import (
	"context"
	"database/sql"
	"errors"
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

// CarryAutoIncrement sets the ghost's AUTO_INCREMENT to the original's. It does nothing when either
// table has no AUTO_INCREMENT column or when the ALTER sets the counter itself.
func CarryAutoIncrement(ctx context.Context, db *sql.DB, p *Plan, alterSetsCounter bool) error {
	if alterSetsCounter || !hasAutoIncrement(p.Original) || !hasAutoIncrement(p.Ghost) {
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
func CarryAutoIncrementOn(ctx context.Context, conn *sql.Conn, p *Plan, alterSetsCounter bool) error {
	if alterSetsCounter || !hasAutoIncrement(p.Original) || !hasAutoIncrement(p.Ghost) {
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

func hasAutoIncrement(t *table.Table) bool { return autoIncrementColumn(t) != nil }

// SetsAutoIncrement reports whether the ALTER sets the table's counter (the AUTO_INCREMENT [=] N
// table option, not the column attribute).
func SetsAutoIncrement(spec *AlterSpec) bool {
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

// checkNewAutoIncrement refuses an ALTER whose AUTO_INCREMENT column would be numbered by the
// copy: the server's own ALTER hands out the numbers in the order it copies the rows, one after
// the other, which a copy in chunks, with the application's inserts and deletes applied meanwhile,
// cannot reproduce (the server reserves numbers per statement and leaves gaps). So:
//   - a column the ALTER adds with AUTO_INCREMENT is refused;
//   - a column the ALTER makes AUTO_INCREMENT keeps its values, unless it holds NULL, or 0 while
//     the server's sql_mode lacks NO_AUTO_VALUE_ON_ZERO: those rows would be numbered, so a table
//     with such a row is refused (the ALTER is done the same as the server's when it has none).
func checkNewAutoIncrement(ctx context.Context, db *sql.DB, p *Plan, m ColumnMapping, sqlMode string) error {
	ac := autoIncrementColumn(p.Ghost)
	if ac == nil {
		return nil
	}
	for _, added := range m.Added {
		if strings.EqualFold(added, ac.Name) {
			return fmt.Errorf("the ALTER adds the AUTO_INCREMENT column %s: the server numbers its rows in the order its own ALTER copies them, which an online copy cannot reproduce; add the column without AUTO_INCREMENT and fill it, or run this ALTER on the server itself",
				table.QuoteIdent(ac.Name))
		}
	}
	for _, pair := range m.Pairs {
		if !strings.EqualFold(pair.Ghost, ac.Name) {
			continue
		}
		if oc, ok := p.Original.Column(pair.Original); !ok || oc.AutoIncrement {
			return nil
		}
		col, held := table.QuoteIdent(pair.Original), "NULL"
		cond := col + " IS NULL"
		if !strings.Contains(strings.ToUpper(sqlMode), "NO_AUTO_VALUE_ON_ZERO") {
			cond, held = cond+" OR "+col+" = 0", "NULL or 0"
		}
		var one int
		err := db.QueryRowContext(ctx, "SELECT 1 FROM "+p.Original.QualifiedName()+" WHERE "+cond+" LIMIT 1").Scan(&one)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil
		case err != nil:
			return fmt.Errorf("look for rows the AUTO_INCREMENT column %s would number: %w", table.QuoteIdent(ac.Name), err)
		}
		return fmt.Errorf("the ALTER makes %s AUTO_INCREMENT while rows hold %s in it: the server numbers those rows in the order its own ALTER copies them, which an online copy cannot reproduce; give them values first, or run this ALTER on the server itself",
			table.QuoteIdent(ac.Name), held)
	}
	return nil
}

// autoIncrementColumn is t's AUTO_INCREMENT column, or nil.
func autoIncrementColumn(t *table.Table) *table.Column {
	for i := range t.Columns {
		if t.Columns[i].AutoIncrement {
			return &t.Columns[i]
		}
	}
	return nil
}
