package plan

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Indirect writers of the original: views over it (a view over such a view too) and tables with
// a trigger whose body names it. A row change made through one of them in a session that logs
// statements (binlog_format=STATEMENT or MIXED) is logged as a statement naming the view or the
// other table, not the original: the binlog applier must take such a statement for a write of the
// original and stop the run (binlogapply Config.IndirectWriters). Written by row, the change
// reaches the binary log as the original's rows and is applied like any other.
//
// Views are found by their definition, which the server stores with qualified names; triggers by
// their body naming the table (qualified, or unqualified on a table of the same schema). A false
// match only makes a statement-logged write of that table stop the run, which is safe.

// IndirectWriter is a view or a table whose statement-logged writes may write the original.
type IndirectWriter struct {
	Schema, Name string
	Why          string // "a view of shop.t", "a trigger of shop.x writes shop.t"
}

// IndirectWritersOf lists the views over schema.tbl (transitively) and the tables whose triggers
// name it, on db.
func IndirectWritersOf(ctx context.Context, db *sql.DB, schema, tbl string) ([]IndirectWriter, error) {
	views, err := namedRows(ctx, db, "SELECT TABLE_SCHEMA, TABLE_NAME, COALESCE(VIEW_DEFINITION, '') FROM information_schema.VIEWS")
	if err != nil {
		return nil, fmt.Errorf("read the views that may write %s.%s: %w", schema, tbl, err)
	}
	var out []IndirectWriter
	seen := map[string]bool{strings.ToLower(schema + "." + tbl): true}
	targets := []IndirectWriter{{Schema: schema, Name: tbl}}
	for len(targets) > 0 {
		target := targets[0]
		targets = targets[1:]
		for _, v := range views {
			key := strings.ToLower(v[0] + "." + v[1])
			if seen[key] || !strings.Contains(strings.ToLower(v[2]), strings.ToLower(table.Qualify(target.Schema, target.Name))) {
				continue
			}
			seen[key] = true
			w := IndirectWriter{Schema: v[0], Name: v[1], Why: "a view of " + target.Schema + "." + target.Name}
			out = append(out, w)
			targets = append(targets, w)
		}
	}
	triggers, err := namedRows(ctx, db, "SELECT EVENT_OBJECT_SCHEMA, EVENT_OBJECT_TABLE, ACTION_STATEMENT FROM information_schema.TRIGGERS")
	if err != nil {
		return nil, fmt.Errorf("read the triggers that may write %s.%s: %w", schema, tbl, err)
	}
	for _, tr := range triggers {
		key := strings.ToLower(tr[0] + "." + tr[1])
		if seen[key] || !triggerNames(tr[2], tr[0], schema, tbl) {
			continue
		}
		seen[key] = true
		out = append(out, IndirectWriter{Schema: tr[0], Name: tr[1], Why: "a trigger of " + tr[0] + "." + tr[1] + " names " + schema + "." + tbl})
	}
	return out, nil
}

// triggerNames says whether a trigger body (of a table in trigSchema) names schema.tbl: qualified,
// or by its bare name when the trigger's table is in the same schema.
func triggerNames(body, trigSchema, schema, tbl string) bool {
	lb := strings.ToLower(body)
	s, t := strings.ToLower(schema), strings.ToLower(tbl)
	for _, q := range []string{s + "." + t, "`" + s + "`.`" + t + "`", "`" + s + "`." + t, s + ".`" + t + "`"} {
		if strings.Contains(lb, q) {
			return true
		}
	}
	return strings.EqualFold(trigSchema, schema) && sqltok.MentionsName(lb, t)
}

// namedRows reads three text columns of every row of q.
func namedRows(ctx context.Context, db *sql.DB, q string) ([][3]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][3]string
	for rows.Next() {
		var r [3]string
		if err := rows.Scan(&r[0], &r[1], &r[2]); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// EstimateRows returns the optimizer's row estimate, or the exact count.
func EstimateRows(ctx context.Context, db *sql.DB, schema, tbl string, exact bool) (int64, error) {
	var n sql.NullInt64
	var err error
	if exact {
		err = db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table.Qualify(schema, tbl)).Scan(&n)
	} else {
		err = db.QueryRowContext(ctx, `SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`,
			schema, tbl).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("count rows of %s.%s: %w", schema, tbl, err)
	}
	return n.Int64, nil
}
