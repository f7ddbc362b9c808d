package migrator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The shared key must compare alike in the original and in the ghost. The copy takes a duplicate
// on the ghost's shared key as "this row is in the ghost already" and the applier addresses ghost
// rows by it; both hold only when two keys distinct in the original stay distinct in the ghost.
// A key that changes collation ('a' and 'A' under a _ci collation), loses precision (DATETIME(6)
// to DATETIME) or changes type ('1' and '01' as INT) would merge rows silently, where the server's
// own ALTER fails with a duplicate-key error. So a key column is accepted only when its conversion
// is proven injective: the same type, charset and collation, or a widening of the same kind
// (a larger integer, a longer string, more decimal or fractional digits). Anything else is refused.

// sharedKeyComparable says why the original's key ok and the ghost's key gk (the same columns,
// in order, after renames) may not compare alike, or "" when every column converts injectively.
func sharedKeyComparable(orig, ghost *table.Table, ok, gk table.Key) string {
	for i, name := range ok.Columns {
		oc, found := orig.Column(name)
		if !found || i >= len(gk.Columns) {
			return "names an unknown column " + name
		}
		gc, found := ghost.Column(gk.Columns[i])
		if !found {
			return "names an unknown column " + gk.Columns[i] + " of the altered table"
		}
		if why := keyColumnConversion(oc, gc); why != "" {
			return fmt.Sprintf("column %s changes from %s to %s, %s", name, describeKeyType(oc), describeKeyType(gc), why)
		}
	}
	return ""
}

// keyColumnConversion says why converting a key column from o to g may make two distinct values
// equal, or "" when it cannot.
func keyColumnConversion(o, g *table.Column) string {
	const merges = "so keys distinct in the original may be equal in the altered table"
	if !strings.EqualFold(o.Charset, g.Charset) || !strings.EqualFold(o.Collation, g.Collation) {
		return merges + " (another character set or collation)"
	}
	if strings.EqualFold(o.ColumnType, g.ColumnType) {
		return ""
	}
	ok := false
	switch {
	case integerBits[o.DataType] > 0 && integerBits[g.DataType] > 0:
		ok = integerWidens(o, g)
	case o.DataType != g.DataType:
	case o.DataType == "decimal" || o.DataType == "numeric":
		op, os := typeArgs(o.ColumnType)
		gp, gs := typeArgs(g.ColumnType)
		ok = gs >= os && gp-gs >= op-os && (g.Unsigned == o.Unsigned || !g.Unsigned)
	case o.DataType == "char" || o.DataType == "varchar" || o.DataType == "binary" || o.DataType == "varbinary":
		ol, _ := typeArgs(o.ColumnType)
		gl, _ := typeArgs(g.ColumnType)
		ok = gl >= ol
	case o.DataType == "datetime" || o.DataType == "time" || o.DataType == "timestamp":
		ok = g.FracDigits >= o.FracDigits
	}
	if ok {
		return ""
	}
	return merges
}

// integerBits is the width of each integer type.
var integerBits = map[string]int{"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}

// integerWidens says every value of integer column o fits g.
func integerWidens(o, g *table.Column) bool {
	ob, gb := integerBits[o.DataType], integerBits[g.DataType]
	switch {
	case o.Unsigned == g.Unsigned:
		return gb >= ob
	case o.Unsigned: // unsigned into signed needs one more bit
		return gb > ob
	}
	return false // signed into unsigned loses the negatives
}

// typeArgs reads "decimal(10,2)" as 10, 2 and "varchar(20)" as 20, 0.
func typeArgs(columnType string) (first, second int) {
	open, end := strings.IndexByte(columnType, '('), strings.IndexByte(columnType, ')')
	if open < 0 || end < open {
		return 0, 0
	}
	parts := strings.Split(columnType[open+1:end], ",")
	first, _ = strconv.Atoi(strings.TrimSpace(parts[0]))
	if len(parts) > 1 {
		second, _ = strconv.Atoi(strings.TrimSpace(parts[1]))
	}
	return first, second
}

// describeKeyType is the column's type with its collation, as the messages show it.
func describeKeyType(c *table.Column) string {
	if c.Collation != "" {
		return c.ColumnType + " COLLATE " + c.Collation
	}
	return c.ColumnType
}
