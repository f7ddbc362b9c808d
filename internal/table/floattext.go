package table

// A FLOAT or DOUBLE value going into a column of a character type becomes text. The server's own
// ALTER writes it as CAST(x AS CHAR) does, an assignment (INSERT ... SELECT, or a bound number)
// differently (measured): MySQL 9.7 writes a DOUBLE -2.0999999999999998e-9 in the ALTER and
// -0.0000000020999999999999998 when assigned; MariaDB writes a FLOAT 0.1 in the ALTER and
// 0.10000000149011612 when assigned (through DOUBLE). So the copy and the applier cast.

// floatAsColumn is true when original column o is FLOAT or DOUBLE and its value enters ghost
// column g as the column's text: g has a character or byte string type, or is MySQL's JSON
// (ConvertExpr casts the copy's read of such a column AS CHAR, and that text AS JSON), or, on
// MySQL, an ENUM or a TIME (the ALTER stores the text: convert.go). Or when a FLOAT enters a
// BIGINT, whose conversion reads the value more than once.
func floatAsColumn(o, g *Column, mysql bool) bool {
	if o.DataType != "float" && o.DataType != "double" {
		return false
	}
	return stringTypes[g.DataType] || g.DataType == "json" ||
		mysql && (g.DataType == "enum" || g.DataType == "time") || o.DataType == "float" && g.DataType == "bigint"
}

// FloatValueExpr is how the applier binds a binlog value of original column o (a float64) for
// ghost column g on MySQL when mysql is true, else on MariaDB: for a FLOAT or DOUBLE becoming
// text (floatAsColumn), typed back to o's type in a derived table's column and converted from
// there, as the copy converts the column (ConvertExpr): a FLOAT widened to float64 prints its
// float32 form again, and MySQL prints an expression's DOUBLE with a digit less than a column's
// (measured: -1.071428571428571e-10 against -1.0714285714285715e-10). The placeholder appears
// once, whatever ConvertExpr reads the column how often. Else "?".
func FloatValueExpr(o, g *Column, mysql bool) string {
	if !floatAsColumn(o, g, mysql) {
		return "?"
	}
	typ := "DOUBLE"
	if o.DataType == "float" {
		typ = "FLOAT"
	}
	return "(SELECT " + ConvertExpr(o, g, "gl_f.x", mysql) + " FROM (SELECT CAST(? AS " + typ + ") AS x) AS gl_f)"
}
