package plan

import (
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// A ghost column nothing is copied into that is NOT NULL without a DEFAULT (ADD COLUMN n INT NOT
// NULL) fails an INSERT that leaves it out in the writer's strict session, while the server's own
// ALTER gives every row the type's implicit default. The copy and the applier write that default
// (table.ImplicitDefault) into it, so copied rows and rows written during the run get what the
// server's ALTER gives.

// Fills lists the table.Fill of the ghost's added columns. sqlMode is the server's global
// sql_mode (the server's ALTER runs in it): a strict one with NO_ZERO_DATE refuses the zero date a
// temporal column would get, so that is refused here, naming the column and the way out.
func Fills(ghost *table.Table, added []string, sqlMode string) ([]table.Fill, error) {
	var fills []table.Fill
	for _, name := range added {
		gc, ok := ghost.Column(name)
		if !ok || !gc.NoDefault {
			continue
		}
		lit, ok := table.ImplicitDefault(gc)
		if !ok {
			return nil, fmt.Errorf("column %s is added NOT NULL without a DEFAULT and go-ghostlite does not know the implicit default of %s: give it a DEFAULT",
				gc.Name, strings.ToUpper(gc.DataType))
		}
		if table.IsZeroDateDefault(gc) && refusesZeroDate(sqlMode) {
			return nil, fmt.Errorf("column %s is added NOT NULL without a DEFAULT: the server's ALTER gives every row the zero date, which the server's sql_mode (NO_ZERO_DATE, strict) refuses; give it a DEFAULT",
				gc.Name)
		}
		fills = append(fills, table.Fill{Column: gc.Name, Expr: lit})
	}
	return fills, nil
}

// refusesZeroDate says sql_mode mode refuses to store a zero date: NO_ZERO_DATE with a strict mode.
func refusesZeroDate(mode string) bool {
	noZero, _ := ZeroDateChecks(mode)
	return noZero
}

// FillColumns and FillExprs are the ghost column names and expressions of Fills, in order.
func (p *Plan) FillColumns() []string {
	out := make([]string, len(p.Fills))
	for i, f := range p.Fills {
		out[i] = f.Column
	}
	return out
}

// FillExprs: see FillColumns.
func (p *Plan) FillExprs() []string {
	out := make([]string, len(p.Fills))
	for i, f := range p.Fills {
		out[i] = f.Expr
	}
	return out
}
