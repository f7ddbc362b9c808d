package binlogapply

import (
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Zero dates into numbers, BITs, TIMEs and (a zero TIMESTAMP) strings.
//
// The writers' sql_mode carries the server's NO_ZERO_DATE and NO_ZERO_IN_DATE (dbconn.Config), so
// a DATE, DATETIME or TIMESTAMP value bound typed (CAST(? AS DATETIME)) is refused when it holds a
// zero date or a zero month or day, as it must be where the ghost column stores a date. Where it
// stores a number, a BIT, a TIME or a string the server's ALTER converts such a value instead
// (table.ZeroDateWrite): a row holding one is written with the column's zeroExpr in place of its
// expression, bound to the value's number, time part or text. Every other value and column keeps
// its expression.

// zeroRefused says the writers' sql_mode refuses the DATE/DATETIME/TIMESTAMP text v.
func (p *plan) zeroRefused(v any) bool {
	s, ok := v.(string)
	return ok && (p.noZeroDate && table.IsZeroDate(s) || p.noZeroInDate && table.IsZeroInDate(s))
}

// rowSQL is the VALUES tuple of row r and its arguments: p.rowExpr and r, unless a value of a
// column with a zeroExpr is refused by the writers' sql_mode.
func (p *plan) rowSQL(r []any) (string, []any) {
	if !p.zeroWrites {
		return p.rowExpr, r
	}
	var exprs []string
	var args []any
	for i, c := range p.write {
		if c.zeroExpr == "" || !p.zeroRefused(r[i]) {
			continue
		}
		if exprs == nil {
			exprs = append([]string(nil), p.exprs...)
			args = append([]any(nil), r...)
		}
		exprs[i] = c.zeroExpr
		args[i] = table.ZeroDateArg(r[i].(string), c.zeroArg)
	}
	if exprs == nil {
		return p.rowExpr, r
	}
	return "(" + strings.Join(exprs, ", ") + ")", args
}
