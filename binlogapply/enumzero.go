package binlogapply

import (
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

// relaxedSQLMode is the writer's sql_mode without its strict flags, and without
// ERROR_FOR_DIVISION_BY_ZERO: it acts only with them, and MySQL warns (3135) for every statement
// run with it but without strict mode. The row's values are literals: no division happens.
var relaxedSQLMode = func() string {
	var keep []string
	for _, m := range strings.Split(dbconn.WriterSQLMode, ",") {
		if !strings.HasPrefix(m, "STRICT_") && m != "ERROR_FOR_DIVISION_BY_ZERO" {
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

// namesOneOf reports whether a "Data truncated for column 'c' at row 1" message names one of cols.
func namesOneOf(msg string, cols []string) bool {
	for _, c := range cols {
		if strings.Contains(msg, "column '"+c+"' at row 1") {
			return true
		}
	}
	return false
}
