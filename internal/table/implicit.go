package table

import "fmt"

// Fill is a column written with a fixed SQL expression (no placeholder) in every row: a column the
// ALTER adds NOT NULL without a DEFAULT gets ImplicitDefault, as the server's own ALTER gives it.
type Fill struct {
	Column string
	Expr   string
}

// ImplicitDefault is the SQL literal of the value the server gives column c in a row where c has
// no value and no DEFAULT: what the server's own ALTER ... ADD COLUMN c <type> NOT NULL stores in
// every existing row (measured on MariaDB 10.11; MySQL's is the same). Zero for numbers, BIT and
// YEAR, the empty string for strings, blobs and SET, the first member of an ENUM (its index 1),
// the zero value of a temporal type. JSON's is the empty string, which its CHECK (json_valid)
// refuses, as the server's ALTER does. A type it does not know (spatial) has none: ok is false.
func ImplicitDefault(c *Column) (literal string, ok bool) {
	switch c.DataType {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal", "numeric",
		"float", "double", "real", "double precision", "bit", "year":
		return "0", true
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "binary", "varbinary",
		"tinyblob", "blob", "mediumblob", "longblob", "set", "json":
		return "''", true
	case "enum":
		return "1", true // the first member
	case "date":
		return "'0000-00-00'", true
	case "datetime", "timestamp":
		return zeroDateTime(c.FracDigits), true
	case "time":
		return "'00:00:00'", true
	}
	return "", false
}

func zeroDateTime(frac int) string {
	if frac <= 0 {
		return "'0000-00-00 00:00:00'"
	}
	return fmt.Sprintf("'0000-00-00 00:00:00.%0*d'", frac, 0)
}

// IsZeroDateDefault says ImplicitDefault of c is a zero date, which a server whose sql_mode has
// NO_ZERO_DATE (with a strict mode) refuses to store.
func IsZeroDateDefault(c *Column) bool {
	switch c.DataType {
	case "date", "datetime", "timestamp":
		return true
	}
	return false
}
