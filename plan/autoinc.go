package plan

import (
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

func HasAutoIncrement(t *table.Table) bool { return AutoIncrementColumn(t) != nil }

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

// AutoIncrementColumn is t's AUTO_INCREMENT column, or nil.
func AutoIncrementColumn(t *table.Table) *table.Column {
	for i := range t.Columns {
		if t.Columns[i].AutoIncrement {
			return &t.Columns[i]
		}
	}
	return nil
}
