package checksum

import (
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
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
	// fixed: the value's text is digits, signs, '.', 'e', ':', '-' and ' ' on both sides (a number,
	// a date or time), never the separator ','; every other value is prefixed with its length.
	fixed bool
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
func plan(orig, ghost *table.Table, pairs []Pair, f dbconn.Flavor) ([]compared, []skipped, error) {
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
		expr, why := conversion(oc, gc, o, f)
		if why != "" {
			skip = append(skip, skipped{oc.Name, why})
			continue
		}
		if gc.DataType == "float" {
			g = "CAST(" + g + " AS DOUBLE)" // every bit of the value: see conversion
		}
		c := compared{name: oc.Name, orig: expr, ghost: g, origNullable: o, ghostNull: table.QuoteIdent(gc.Name), notNull: !oc.Nullable && !gc.Nullable,
			cast:  !(plainText(oc) && plainText(gc)) && !(isVarBinary(oc) && isVarBinary(gc)),
			fixed: plainText(oc) && plainText(gc)}
		if !f.MariaDB && gc.DataType == "double" && expr != o {
			// MySQL writes a DOUBLE expression in at most 22 characters (-1.175494350822288e-38),
			// a column in the shortest text that reads back (-1.1754943508222875e-38): a converted
			// DOUBLE is read on both sides as JSON, whose text is the shortest that reads back.
			c.orig, c.ghost, c.cast = "CAST("+expr+" AS JSON)", "CAST("+g+" AS JSON)", true
		}
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
// value the server's ALTER stores in g, as text; or why there is none the checksum trusts. Each
// case is proven against the server's own ALTER ... ALGORITHM=COPY over edge values of each
// family of types (TestChecksumMatrix, TestConversionsMatchAlter). A FLOAT is read as the DOUBLE
// it widens to exactly (its own text has 6 digits: 1.0000001 and 1.0000002 both read as 1); a
// DOUBLE's text is the shortest that reads back as the same bits.
func conversion(o, g *table.Column, q string, f dbconn.Flavor) (string, string) {
	if o.DataType == "float" && o.ColumnType == g.ColumnType {
		return "CAST(" + q + " AS DOUBLE)", "" // every bit of it
	}
	if o.ColumnType == g.ColumnType && o.Charset == g.Charset {
		return q, "" // unchanged (a collation alone does not change the bytes)
	}
	var expr string
	switch {
	case zerofill(o) || zerofill(g):
	case isText(g):
		expr = asText(o, g, q)
	case isVarBinary(g):
		expr = asBytes(o, q)
	case isInteger(g) || g.DataType == "decimal" || plainFloating(g):
		expr = asNumber(o, g, q, f)
	case o.DataType == "enum" && g.DataType == "enum":
		expr = q // the ALTER maps members by their text; a missing one fails the copy
	case isTemporal(g) || g.DataType == "date":
		expr = asTemporal(o, g, q)
	}
	if expr == "" {
		return "", fmt.Sprintf("type changes from %s to %s (no conversion the checksum can reproduce exactly)", describe(o), describe(g))
	}
	return expr, ""
}

// textual is a type whose text the ALTER stores when it converts it to a string: its own text in
// any string context (a FLOAT's with 6 digits). Not a TIMESTAMP: the ALTER writes it in the
// server's time zone, the checksum reads it in UTC.
func textual(c *table.Column) bool {
	return (isText(c) || isVarBinary(c) || plainText(c) || c.DataType == "enum" || c.DataType == "set") && c.DataType != "timestamp"
}

// asText is the text the ALTER stores in the text column g from o ("" when not proven).
func asText(o, g *table.Column, q string) string {
	if !textual(o) {
		return ""
	}
	return toText(q, o, g)
}

// asBytes is what the ALTER stores in a byte string from o: the text of the value, in the bytes
// of its own character set.
func asBytes(o *table.Column, q string) string {
	if !textual(o) {
		return ""
	}
	return q
}

// asNumber is the number the ALTER stores in the integer, DECIMAL, FLOAT or DOUBLE column g from
// o, whose numeric value is read as the server reads it in arithmetic (a YEAR as its year, an
// ENUM as its member's index, a SET as its bits, a date or time as its digits). Integers round
// like ROUND: half to even from a DOUBLE or FLOAT (2.5 -> 2), half away from zero from a DECIMAL
// (2.5 -> 3); a time's fraction is cut off on MariaDB (12:34:56.50 -> 123456) and rounded half
// away from zero on MySQL (123457); a value out of range fails the copy.
func asNumber(o, g *table.Column, q string, f dbconn.Flavor) string {
	v, round := q, "ROUND"
	if (o.DataType == "date" || isTemporal(o)) && f.MariaDB {
		round = "TRUNCATE"
	}
	switch {
	case isInteger(o), o.DataType == "decimal", isFloating(o):
	case isText(o):
		v = "CAST(" + q + " AS DECIMAL(65,30))" // the text read as a number, exactly
		if plainFloating(g) {
			v = q // a FLOAT or DOUBLE parses the text itself
		}
	case o.DataType == "year", o.DataType == "enum", o.DataType == "set", o.DataType == "date", isTemporal(o) && o.DataType != "timestamp":
		v = "(" + q + " + 0)"
	default:
		return ""
	}
	switch {
	case isInteger(g) && isInteger(o):
		return q // an integer's text does not depend on its width
	case isInteger(g) && isFloating(o) && g.DataType == "bigint" && strings.Contains(g.ColumnType, "unsigned"):
		return "" // MariaDB's ALTER clips 3.4e38 to 9223372036854775807 there, without an error
	case isInteger(g) && o.DataType == "float" && g.DataType == "bigint" && !f.MariaDB:
		return "" // MySQL's ALTER stores -9223372036854775808 for a FLOAT beyond BIGINT, without an error
	case isInteger(g):
		sign := "SIGNED"
		if strings.Contains(g.ColumnType, "unsigned") {
			sign = "UNSIGNED"
		}
		if round == "TRUNCATE" {
			return fmt.Sprintf("CAST(TRUNCATE(%s, 0) AS %s)", v, sign)
		}
		return fmt.Sprintf("CAST(ROUND(%s) AS %s)", v, sign)
	case g.DataType == "decimal":
		return fmt.Sprintf("CAST(%s AS %s)", v, decimalOf(g.ColumnType))
	case g.DataType == "float":
		return "CAST(CAST(" + v + " AS FLOAT) AS DOUBLE)" // the ALTER rounds to a FLOAT; read it as its DOUBLE
	}
	return "CAST(" + v + " AS DOUBLE)"
}

// asTemporal is what the ALTER stores in the DATE, DATETIME or TIME column g from a DATE,
// DATETIME or TIME (not from a TIME to a date: the ALTER adds the current date): the value cast
// to g's type, where g keeps every fractional digit.
func asTemporal(o, g *table.Column, q string) string {
	from := o.DataType == "date" || o.DataType == "datetime" || o.DataType == "time" && g.DataType == "time"
	if !from || g.DataType == "timestamp" || g.FracDigits < o.FracDigits {
		return ""
	}
	if g.DataType == "date" {
		return "CAST(" + q + " AS DATE)"
	}
	return fmt.Sprintf("CAST(%s AS %s(%d))", q, castTemporal(g.DataType), g.FracDigits)
}

// toText is the text the ALTER stores in the text column g from o (quoted q): in g's character
// set, without the trailing spaces a CHAR drops.
func toText(q string, o, g *table.Column) string {
	expr := q
	if o.Charset != g.Charset {
		expr = fmt.Sprintf("CONVERT(%s USING %s)", expr, g.Charset)
	}
	if g.DataType == "char" && o.DataType != "char" {
		expr = fmt.Sprintf("TRIM(TRAILING ' ' FROM %s)", expr) // CHAR drops trailing spaces
	}
	return expr
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

// isFloating is a FLOAT or a DOUBLE (REAL); plainFloating one without (M,D), which would round.
func isFloating(c *table.Column) bool { return c.DataType == "float" || c.DataType == "double" }

func plainFloating(c *table.Column) bool {
	return isFloating(c) && !strings.Contains(c.ColumnType, "(") && !zerofill(c)
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
// a DECIMAL, a FLOAT or DOUBLE, a date or time. Mixed with byte strings in CONCAT_WS it gives the same bytes as
// CAST(... AS BINARY), without the cast's cost; it never makes a mix of collations.
func plainText(c *table.Column) bool {
	switch {
	case isInteger(c), c.DataType == "decimal", isTemporal(c), c.DataType == "date", c.DataType == "year",
		c.DataType == "float", c.DataType == "double":
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

// rowExpr is the 64-bit hash of one row: a cryptographic digest chosen by flavor (SHA1 or SHA2, see
// dbconn.Flavor.Digest64SQL; not linear under XOR, unlike CRC32: equal changes to two rows of a range
// do not cancel in the BIT_XOR) of an encoding that reads back one way
// only. Values are separated by ','; a value whose text may hold any character is preceded by
// its length in bytes (so a='x,' b='y' and a='x' b=',y' differ), a number, date or time (never a
// ',') is not; a NULL marker per nullable column ends the row, so a NULL never hashes like an
// empty string (CONCAT_WS leaves NULLs out). A column NOT NULL on both sides has no marker (it
// would be 0 on both sides, always).
func rowExpr(cols []compared, ghost bool, f dbconn.Flavor) string {
	vals := make([]string, 0, 2*len(cols)+1)
	nulls := make([]string, 0, len(cols))
	for _, c := range cols {
		e, n := c.orig, c.origNullable
		if ghost {
			e, n = c.ghost, c.ghostNull
		}
		if c.cast {
			e = fmt.Sprintf("CAST(%s AS BINARY)", e)
		}
		if !c.fixed {
			vals = append(vals, "LENGTH("+e+")")
		}
		vals = append(vals, e)
		if !c.notNull {
			nulls = append(nulls, fmt.Sprintf("ISNULL(%s)", n))
		}
	}
	if len(nulls) > 0 {
		vals = append(vals, "CONCAT("+strings.Join(nulls, ", ")+")")
	}
	return f.Digest64SQL("CONCAT_WS(',', " + strings.Join(vals, ", ") + ")")
}
