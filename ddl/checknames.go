package ddl

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// The CHECK constraints of the ghost, named on MySQL as plan/checknames.go describes.

// renameGhostChecks gives the ghost's CHECK constraints, on MySQL, the names that the cut-over's
// RENAME turns into the original's (plan/checknames.go), while the ghost is still empty (the ADDs
// check no row), and returns body with its references to the original's names made to the
// ghost's. A name of the user's own gets a name the RENAME keeps; preflight's
// checkConstraintNames refused it unless the ALTER drops it.
func renameGhostChecks(ctx context.Context, conn *sql.Conn, schema, orig, ghost, body string) (string, error) {
	flavor, err := dbconn.DetectFlavor(ctx, conn)
	if err != nil || flavor.MariaDB {
		return body, err
	}
	var n, create string
	if err := conn.QueryRowContext(ctx, "SHOW CREATE TABLE "+table.Qualify(schema, orig)).Scan(&n, &create); err != nil {
		return body, fmt.Errorf("read the definition of %s.%s: %w", schema, orig, err)
	}
	checks := plan.CheckConstraints(create)
	if len(checks) == 0 {
		return body, nil
	}
	if err := conn.QueryRowContext(ctx, "SHOW CREATE TABLE "+table.Qualify(schema, ghost)).Scan(&n, &create); err != nil {
		return body, fmt.Errorf("read the definition of %s.%s: %w", schema, ghost, err)
	}
	var drops, adds []string
	for _, c := range plan.CheckConstraints(create) {
		drops = append(drops, "DROP CHECK "+table.QuoteIdent(c.Name))
	}
	names := map[string]string{} // lower-case original name -> ghost name
	for i, c := range checks {
		to := fmt.Sprintf("%s_k%d", ghost, i+1)
		if s, ok := plan.GeneratedCheckSuffix(orig, c.Name); ok {
			to = ghost + "_chk_" + s
		}
		names[strings.ToLower(c.Name)] = to
		adds = append(adds, "ADD CONSTRAINT "+table.QuoteIdent(to)+" "+c.Def)
	}
	for _, stmt := range []string{strings.Join(drops, ", "), strings.Join(adds, ", ")} {
		if stmt == "" {
			continue
		}
		if _, err := conn.ExecContext(ctx, "ALTER TABLE "+table.Qualify(schema, ghost)+" "+stmt); err != nil {
			return body, fmt.Errorf("name the CHECK constraints of the ghost table: %w", err)
		}
	}
	return plan.RenameConstraintRefs(body, names)
}
