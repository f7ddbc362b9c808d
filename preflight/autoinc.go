package preflight

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// checkNewAutoIncrement refuses an ALTER whose AUTO_INCREMENT column would be numbered by the
// copy: the server's own ALTER hands out the numbers in the order it copies the rows, one after
// the other, which a copy in chunks, with the application's inserts and deletes applied meanwhile,
// cannot reproduce (the server reserves numbers per statement and leaves gaps). So:
//   - a column the ALTER adds with AUTO_INCREMENT is refused;
//   - a column the ALTER makes AUTO_INCREMENT keeps its values, unless it holds NULL, or 0 while
//     the server's sql_mode lacks NO_AUTO_VALUE_ON_ZERO: those rows would be numbered, so a table
//     with such a row is refused (the ALTER is done the same as the server's when it has none).
func checkNewAutoIncrement(ctx context.Context, db *sql.DB, p *plan.Plan, m plan.ColumnMapping, sqlMode string) error {
	ac := plan.AutoIncrementColumn(p.Ghost)
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
