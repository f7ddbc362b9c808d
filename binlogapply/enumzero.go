package binlogapply

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// ENUM's error value.
//
// A row stored in a non-strict session with a value that is not a member of its ENUM column holds
// the "error value": index 0, shown as ''. The row copy (INSERT ... SELECT between ENUM columns)
// and the server's own ALTER keep index 0, but the applier's strict session refuses to write ''
// (or 0) into an ENUM column. A row whose after image holds index 0 for a column that is an ENUM
// in the ghost too is therefore inserted alone, with the statement's sql_mode not strict, and the
// only warning accepted is the truncation (1265) of exactly those columns: the value written is
// '', so the column gets index 0, as the copy gives. Into a column that is no longer an ENUM, ''
// is what the server's ALTER gives, and strict mode accepts it.

// relaxedSQLMode is the writer's sql_mode without its strict flags.
var relaxedSQLMode = func() string {
	var keep []string
	for _, m := range strings.Split(dbconn.WriterSQLMode, ",") {
		if !strings.HasPrefix(m, "STRICT_") {
			keep = append(keep, m)
		}
	}
	return strings.Join(keep, ",")
}()

// errorValueColumns names the ghost ENUM columns to which after image img brings index 0.
func (p *plan) errorValueColumns(img []any) []string {
	var cols []string
	for _, c := range p.write {
		if c.col.DataType != "enum" || !c.ghostEnum {
			continue
		}
		if x, ok := img[c.idx].(int64); ok && x == 0 {
			cols = append(cols, c.ghost)
		}
	}
	return cols
}

// insertRelaxedSQL inserts one row with a sql_mode that accepts ENUM's error value.
func (p *plan) insertRelaxedSQL(row []any) (string, []any) {
	q, args := p.insertSQL([][]any{row})
	if p.mariaDB {
		return "SET STATEMENT sql_mode='" + relaxedSQLMode + "' FOR " + q, args
	}
	return strings.Replace(q, "INSERT INTO", "INSERT /*+ SET_VAR(sql_mode='"+relaxedSQLMode+"') */ INTO", 1), args
}

// checkWarningsAllowing is checkWarnings accepting the truncation warning (1265) of the named
// ghost columns: the ENUM error value written on purpose.
func checkWarningsAllowing(ctx context.Context, tx *sql.Tx, what string, cols []string) error {
	rows, err := tx.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		return fmt.Errorf("check warnings of %s: %w", what, err)
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var level, msg string
		var code int
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return fmt.Errorf("check warnings of %s: %w", what, err)
		}
		if code == 1265 && level == "Warning" && namesOneOf(msg, cols) {
			continue
		}
		msgs = append(msgs, fmt.Sprintf("%s %d: %s", level, code, msg))
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check warnings of %s: %w", what, err)
	}
	if len(msgs) > 0 {
		return fmt.Errorf("%s raised warnings (nothing may be changed silently): %s", what, strings.Join(msgs, "; "))
	}
	return nil
}

// namesOneOf reports whether a "Data truncated for column 'c' at row 1" message names one of cols.
func namesOneOf(msg string, cols []string) bool {
	for _, c := range cols {
		if strings.Contains(msg, "column '"+c+"' at row 1") {
			return true
		}
	}
	return false
}
