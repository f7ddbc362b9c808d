package table

import (
	"strconv"
	"strings"
)

// Conversions that INSERT ... SELECT (the copy) or a bound value (the applier) would do otherwise
// than the server's own ALTER. Measured on MariaDB 10.11:
//
//   - FLOAT into a string column: the ALTER prints the float with its own precision ('0.1',
//     '3.4e38', '16777200'); INSERT ... SELECT goes through DOUBLE ('0.10000000149011612').
//     CAST(v AS CHAR) of a FLOAT prints it as the ALTER does, in both paths (the applier's value is
//     typed FLOAT first: CAST(? AS FLOAT)).
//   - FLOAT or DOUBLE into anything else: the ALTER rounds half to even (2.5 -> 2); a value bound as
//     text is a DECIMAL literal and rounds half away from zero. The applier types it (CAST(? AS
//     DOUBLE), CAST(? AS FLOAT)), which converts it as the ALTER does.
//   - DOUBLE into a string column too short for its text: the ALTER refuses (Data too long);
//     INSERT ... SELECT shortens the number to fit ('2.2e-308' in a BINARY(8)) without a warning.
//     CAST(v AS CHAR) gives the full text, which is refused as the ALTER refuses it.
//   - BIT into a TEXT or BLOB column: the ALTER stores the value's bytes (b'1' is 0x01), as
//     INSERT ... SELECT does; a bound number would be its digits. The applier binds the bytes
//     (BindsBitAsBytes). Into CHAR, VARCHAR, BINARY and VARBINARY the ALTER stores the digits
//     ('1'), as a bound number gives.
//   - YEAR into a string column: the ALTER gives four digits ('0000'); the copy and a bound number
//     give '0'. LPAD(v, 4, '0') gives the ALTER's text in both paths.
//   - DECIMAL into an ENUM or SET: the ALTER rounds the number half up to a member's index (a
//     set's bitmask): 0.5 is the first member; INSERT ... SELECT refuses 0.5 (Data truncated).
//     CAST(ROUND(v) AS SIGNED) gives the ALTER's index in both paths.
//   - A number (integers, DECIMAL, FLOAT, DOUBLE, YEAR) into MySQL's JSON (data type "json": MariaDB's
//     JSON is a LONGTEXT): MySQL 9.7's ALTER parses the number's text as JSON (DECIMAL 2.500 is the
//     JSON 2.5, YEAR 0 is '0000', refused); INSERT ... SELECT and a bound number are refused (not a
//     JSON text, may need CAST). CAST(CAST(v AS CHAR CHARACTER SET utf8mb4) AS JSON) gives the
//     ALTER's value in both paths (measured on every type of the conversion matrix).
//   - ENUM or SET into a numeric column (integers, DECIMAL, FLOAT, DOUBLE, BIT, YEAR): the ALTER
//     stores the member's index (a SET's bitmask), as INSERT ... SELECT does; the applier binds that
//     number, not the member's text (BindsByNumber).

// stringTypes are the column types whose value is text or bytes.
var stringTypes = map[string]bool{"char": true, "varchar": true, "tinytext": true, "text": true,
	"mediumtext": true, "longtext": true, "binary": true, "varbinary": true, "tinyblob": true,
	"blob": true, "mediumblob": true, "longblob": true}

// numericTypes are the column types that store a number.
var numericTypes = map[string]bool{"tinyint": true, "smallint": true, "mediumint": true, "int": true,
	"integer": true, "bigint": true, "decimal": true, "numeric": true, "float": true, "double": true,
	"real": true, "double precision": true, "bit": true, "year": true}

// ConvertExpr wraps v, an SQL expression holding a value of original column o (the column itself
// in the copy's SELECT, the applier's placeholder typed by BindAsOriginal), so that its value
// enters ghost column g as the server's own ALTER converts it. It is v itself where the plain
// path already does what the ALTER does.
func ConvertExpr(o, g *Column, v string) string {
	switch {
	case g.DataType == "json" && o.DataType == "year":
		return "CAST(CAST(LPAD(" + v + ", 4, '0') AS CHAR CHARACTER SET utf8mb4) AS JSON)"
	case g.DataType == "json" && numericTypes[o.DataType] && o.DataType != "bit":
		return "CAST(CAST(" + v + " AS CHAR CHARACTER SET utf8mb4) AS JSON)"
	case (o.DataType == "float" || o.DataType == "double") && stringTypes[g.DataType]:
		return "CAST(" + v + " AS CHAR)"
	case o.DataType == "year" && stringTypes[g.DataType]:
		return "LPAD(" + v + ", 4, '0')"
	case (o.DataType == "decimal" || o.DataType == "numeric") && (g.DataType == "enum" || g.DataType == "set"):
		return "CAST(ROUND(" + v + ") AS SIGNED)"
	}
	return v
}

// BindsByNumber says a value of ENUM or SET column o enters ghost column g by its number (the
// member's 1-based index, the SET's bitmask), as the server's ALTER converts it to a number.
func BindsByNumber(o, g *Column) bool {
	return (o.DataType == "enum" || o.DataType == "set") && numericTypes[g.DataType]
}

// BindsBitAsBytes says a value of BIT column o enters ghost column g as its bytes (big-endian, as
// many as the column holds: BitBytes), as the server's ALTER stores a BIT in a TEXT or BLOB column.
func BindsBitAsBytes(o, g *Column) bool {
	return o.DataType == "bit" && blobTypes[g.DataType]
}

// blobTypes are the TEXT and BLOB types.
var blobTypes = map[string]bool{"tinytext": true, "text": true, "mediumtext": true, "longtext": true,
	"tinyblob": true, "blob": true, "mediumblob": true, "longblob": true}

// BitBytes is the number of bytes of BIT(M) column c: (M+7)/8, 1 when M is not in its type.
func BitBytes(c *Column) int {
	open, end := strings.IndexByte(c.ColumnType, '('), strings.IndexByte(c.ColumnType, ')')
	if open < 0 || end < open {
		return 1
	}
	m, err := strconv.Atoi(c.ColumnType[open+1 : end])
	if err != nil || m <= 0 {
		return 1
	}
	return (m + 7) / 8
}
