package checksum

import (
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Pair is one column the copy fills: the original's column, the ghost's column that receives it.
type Pair struct {
	Original, Ghost string
	// Select is the copy's expression over the original (unqualified) for the ghost column: what
	// a repair writes.
	Select string
	// Converted marks a pair the copy converts beyond the types (a time zone shift between
	// TIMESTAMP and DATETIME, CHAR padding under PAD_CHAR_TO_FULL_LENGTH): not compared.
	Converted bool
}

// compared is a column read on both sides: an expression over each table whose text is equal when
// the ghost holds what the server's own ALTER makes of the original's value.
type compared struct {
	name         string // the original's column, for messages
	orig, ghost  string // expressions giving comparable values
	origNullable string // the original's column, for the NULL marker
	ghostNull    string
	// notNull: both columns are NOT NULL, their markers always 0 on both sides: left out.
	notNull bool
	// cast: hashed through CAST(... AS BINARY). Not needed (and the cast costs a copy of every
	// value) for numbers, dates and times, whose text is digits and signs in any character set;
	// for byte strings; and for the text columns of one collation on both sides (see uncast).
	cast bool
	// collations names the text column's collation on each side, "original|ghost", when its
	// character set is the same on both (its bytes are then the same); empty otherwise.
	collations string
}

// skipped is a column left out of the checksum, and why.
type skipped struct{ name, why string }

// plan decides, for each pair, how it is compared or why it is not.
func plan(orig, ghost *table.Table, pairs []Pair) ([]compared, []skipped, error) {
	var cmp []compared
	var skip []skipped
	for _, p := range pairs {
		oc, ok := orig.Column(p.Original)
		gc, ok2 := ghost.Column(p.Ghost)
		if !ok || !ok2 {
			return nil, nil, fmt.Errorf("checksum: column %s is not in both tables", p.Original)
		}
		o, g := table.QuoteIdent(oc.Name), table.QuoteIdent(gc.Name)
		if p.Converted {
			skip = append(skip, skipped{oc.Name, "converted in the server's time zone or padded (PAD_CHAR_TO_FULL_LENGTH)"})
			continue
		}
		expr, why := conversion(oc, gc, o)
		if why != "" {
			skip = append(skip, skipped{oc.Name, why})
			continue
		}
		c := compared{name: oc.Name, orig: expr, ghost: g, origNullable: o, ghostNull: g, notNull: !oc.Nullable && !gc.Nullable,
			cast: !(plainText(oc) && plainText(gc)) && !(isVarBinary(oc) && isVarBinary(gc))}
		if isText(oc) && isText(gc) && oc.Charset == gc.Charset {
			c.collations = oc.Collation + "|" + gc.Collation
		}
		cmp = append(cmp, c)
	}
	uncast(cmp)
	return cmp, skip, nil
}

// uncast hashes the text columns of the most common collation pair without a cast. CONCAT_WS
// then mixes, on each side, text of one collation (no mix of collations to refuse), numbers
// (their digits in that character set) and, where other columns are cast, bytes (a binary
// result, the text's own bytes in it): a column without a cast gives the same bytes on both
// sides, since its character set is the same on both and every other column is treated alike
// on both sides.
func uncast(cols []compared) {
	count := map[string]int{}
	best := ""
	for _, c := range cols {
		if c.collations == "" {
			continue
		}
		count[c.collations]++
		if best == "" || count[c.collations] > count[best] {
			best = c.collations
		}
	}
	for i := range cols {
		if best != "" && cols[i].collations == best {
			cols[i].cast = false
		}
	}
}

// conversion is the expression over the original column o (quoted q) that gives, exactly, the
// value the server's ALTER stores in g, as text; or why there is none the checksum trusts.
func conversion(o, g *table.Column, q string) (string, string) {
	if o.ColumnType == g.ColumnType && o.Charset == g.Charset {
		return q, "" // unchanged (a collation alone does not change the bytes)
	}
	switch {
	case isInteger(o) && isInteger(g) && !zerofill(o) && !zerofill(g):
		return q, "" // an integer's text does not depend on its width; a value out of range fails the copy
	case isText(o) && isText(g):
		expr := q
		if o.Charset != g.Charset {
			expr = fmt.Sprintf("CONVERT(%s USING %s)", expr, g.Charset)
		}
		if g.DataType == "char" && o.DataType != "char" {
			expr = fmt.Sprintf("TRIM(TRAILING ' ' FROM %s)", expr) // CHAR drops trailing spaces
		}
		return expr, ""
	case isVarBinary(o) && isVarBinary(g):
		return q, "" // bytes kept as they are
	case o.DataType == "decimal" && g.DataType == "decimal":
		return fmt.Sprintf("CAST(%s AS %s)", q, decimalOf(g.ColumnType)), ""
	case o.DataType == "enum" && g.DataType == "enum":
		return q, "" // the ALTER maps members by their text; a missing one fails the copy
	case o.DataType == g.DataType && isTemporal(o) && g.FracDigits >= o.FracDigits:
		return fmt.Sprintf("CAST(%s AS %s(%d))", q, castTemporal(g.DataType), g.FracDigits), ""
	}
	return "", fmt.Sprintf("type changes from %s to %s (no conversion the checksum can reproduce exactly)", describe(o), describe(g))
}

func describe(c *table.Column) string {
	if c.Charset != "" {
		return fmt.Sprintf("%s %s", c.ColumnType, c.Charset)
	}
	return c.ColumnType
}

func isInteger(c *table.Column) bool {
	switch c.DataType {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
		return true
	}
	return false
}

func zerofill(c *table.Column) bool { return strings.Contains(c.ColumnType, "zerofill") }

func isText(c *table.Column) bool {
	switch c.DataType {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		return c.Charset != "" && c.Charset != "binary"
	}
	return false
}

// isVarBinary is a byte string kept as given (not BINARY(N), which pads with zero bytes).
func isVarBinary(c *table.Column) bool {
	switch c.DataType {
	case "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		return true
	}
	return false
}

// plainText is a type whose value reads as digits and signs in any string context: an integer,
// a DECIMAL, a date or time. Mixed with byte strings in CONCAT_WS it gives the same bytes as
// CAST(... AS BINARY), without the cast's cost; it never makes a mix of collations.
func plainText(c *table.Column) bool {
	switch {
	case isInteger(c), c.DataType == "decimal", isTemporal(c), c.DataType == "date", c.DataType == "year":
		return true
	}
	return false
}

func isTemporal(c *table.Column) bool {
	switch c.DataType {
	case "datetime", "timestamp", "time":
		return true
	}
	return false
}

// castTemporal is the CAST target of a temporal type: a TIMESTAMP reads as a DATETIME in the
// session's zone, on both sides alike.
func castTemporal(dataType string) string {
	if dataType == "time" {
		return "TIME"
	}
	return "DATETIME"
}

// decimalOf turns "decimal(10,2) unsigned" into "DECIMAL(10,2)".
func decimalOf(columnType string) string {
	t := columnType
	if i := strings.IndexByte(t, ')'); i >= 0 {
		t = t[:i+1]
	}
	return strings.ToUpper(t)
}

// rowExpr is the text hashed for one row: every compared value as bytes, separated, then a NULL
// marker per nullable column, so a NULL never hashes like an empty string. A column NOT NULL on
// both sides has no marker (it would be 0 on both sides, always).
func rowExpr(cols []compared, ghost bool) string {
	vals := make([]string, 0, len(cols)+1)
	nulls := make([]string, 0, len(cols))
	for _, c := range cols {
		e, n := c.orig, c.origNullable
		if ghost {
			e, n = c.ghost, c.ghostNull
		}
		if c.cast {
			e = fmt.Sprintf("CAST(%s AS BINARY)", e)
		}
		vals = append(vals, e)
		if !c.notNull {
			nulls = append(nulls, fmt.Sprintf("ISNULL(%s)", n))
		}
	}
	if len(nulls) > 0 {
		vals = append(vals, "CONCAT("+strings.Join(nulls, ", ")+")")
	}
	return "CRC32(CONCAT_WS('|', " + strings.Join(vals, ", ") + "))"
}
