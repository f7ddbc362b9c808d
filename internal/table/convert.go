package table

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
//   - YEAR into a string column: the ALTER gives four digits ('0000'); the copy and a bound number
//     give '0'. LPAD(v, 4, '0') gives the ALTER's text in both paths.
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
	case o.DataType == "float" && stringTypes[g.DataType]:
		return "CAST(" + v + " AS CHAR)"
	case o.DataType == "year" && stringTypes[g.DataType]:
		return "LPAD(" + v + ", 4, '0')"
	}
	return v
}

// BindsByNumber says a value of ENUM or SET column o enters ghost column g by its number (the
// member's 1-based index, the SET's bitmask), as the server's ALTER converts it to a number.
func BindsByNumber(o, g *Column) bool {
	return (o.DataType == "enum" || o.DataType == "set") && numericTypes[g.DataType]
}
