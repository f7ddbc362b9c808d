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
//   - A string (CHAR, VARCHAR, BINARY, TEXT, BLOB ...) into BIT: the ALTER reads the text as an
//     integer, as CAST(v AS SIGNED) does ('12' is 0x0C, ' 7' is 7; '7.4', 'a' and '' are refused, a
//     negative number does not fit); INSERT ... SELECT and a bound string store the text's bytes
//     ('12' is 0x3132, too long for a BIT(8)). MySQL 9.7's ALTER reads a TEXT or BLOB loosely:
//     the integer its text starts with, after blanks, else 0, without a warning ('12ab' is 12,
//     '1e3' is 1, 'a' and '' are 0): leadingInteger (measured on both flavors, every string type).
//   - A TEXT or BLOB into DECIMAL on MySQL 9.7: the ALTER reads the number the text starts with,
//     after blanks, and ignores the rest ('12abc' is 12, '2021-03-28 02:30:00' is 2021, '1e3x' is
//     1000, '1,5' is 1); a text that starts with no number is refused ('a', '', '-'), as is one out
//     of range. INSERT ... SELECT and a bound string refuse every text with more after the number:
//     leadingDecimal (measured; from VARCHAR and on MariaDB both refuse such text, as the copy does).
//   - MySQL's JSON into BIT: the ALTER casts the JSON value to an integer, as CAST(j AS SIGNED)
//     does (12.5 is 12, 13.5 is 14, "12" is 12, true is 1; an object, an array, null and a
//     string of no number are refused). The applier's bound text is made JSON first.
//   - ENUM or SET into a numeric column (integers, DECIMAL, FLOAT, DOUBLE, BIT, YEAR): the ALTER
//     stores the member's index (a SET's bitmask), as INSERT ... SELECT does; the applier binds that
//     number, not the member's text (BindsByNumber).
//
// Measured on MySQL 9.7 (strict sql_mode), where the ALTER converts some pairs through the
// original value's text (its Field's val_str, stored as a string into the new column):
//
//   - A number (integers, FLOAT, DOUBLE, YEAR) into an ENUM: the text names a member ('12' is the
//     member '12', '2000' the member '2000'), else, when it is an integer within the members'
//     count, that index ('1' is the first member, '0' and '-0' the error value '', index 0, with
//     no warning); anything else is refused ('5' with 4 members, '-1', '2.5'). INSERT ... SELECT
//     and a bound number store the number as an index: 0 with a warning (a strict session's
//     refusal), 12 out of range. CAST(v AS CHAR) gives the ALTER's value in both paths; a FLOAT
//     or DOUBLE's text is its column's (FloatValueExpr in the applier).
//   - FLOAT or DOUBLE into TIME: the ALTER reads the column's text as a time string: a FLOAT's
//     six digits ('235959.5' is '235960', refused; 16777217 is '16777200', refused), an exponent
//     read as no time at all ('3.4e38', '1.17549e-38', '-1.7976931348623157e308' are 00:00:00),
//     where INSERT ... SELECT converts the number (3.4e38 refused, 235959.5 is 24:00:00):
//     CAST(v AS CHAR).
//   - JSON into an integer, FLOAT, DOUBLE, YEAR, DATE, DATETIME or TIME: the ALTER reads MySQL's
//     text of the JSON value ('12.5' into an INT is 13, '1e3' into a TIME 00:10:00, '0' into a
//     YEAR 2000; a JSON string keeps its quotes, so '"12"', '"12:34:56"' and '"2020-01-01"' are
//     refused, as are true, null, objects and arrays). INSERT ... SELECT casts the JSON value
//     instead (12.5 is 12, "12" is 12, true is 1, a JSON number into a TIME or DATE is refused, a
//     JSON date string accepted): CAST(v AS CHAR) in both paths. Into DECIMAL and BIT the ALTER
//     casts the JSON value (above), as INSERT ... SELECT does.
//   - DECIMAL into DATE or DATETIME: the ALTER reads the number's text (its scale's digits) as a
//     date string: '0.001' is 2000-00-01 and '1999.000' 1999-00-00 where zero months and days
//     are allowed ('.' a delimiter, with Warning 4095 that it is deprecated, even in strict mode),
//     '20200101.500' is refused; INSERT ... SELECT converts the number (0.001 is the zero date,
//     20200101.5 is 2020-01-01 with a truncation): CAST(v AS CHAR). Warning 4095 is accepted as
//     a deprecation (dbconn.DeprecationWarning): the value is stored as the ALTER stores it.
//   - FLOAT into BIGINT: the ALTER takes the float's integer value unchecked (Field_float::val_int,
//     unlike a DOUBLE's, which warns): a FLOAT at or beyond 2^63 in size becomes
//     -9223372036854775808 (3.4e38 and -3.4e38 alike), stored without a warning into a BIGINT and
//     refused by a BIGINT UNSIGNED (1.8446743e19 included, which INSERT ... SELECT stores).
//     floatIntoBigint gives that value, and the plain conversion below 2^63.
//
// MariaDB 10.11's ALTER clamps a FLOAT beyond BIGINT's range into BIGINT and BIGINT UNSIGNED
// (floatClampBigint), where INSERT ... SELECT refuses it (measured).

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
// enters ghost column g as the server's own ALTER converts it, on MySQL when mysql is true, else
// on MariaDB. It is v itself where the plain path already does what the ALTER does. v appears
// once in the result (a placeholder is bound once).
//
// floatIntoBigint and floatClampBigint (a FLOAT into a BIGINT) read v more than once: the
// applier types its value in a derived table's column first (FloatValueExpr).
func ConvertExpr(o, g *Column, v string, mysql bool) string {
	switch {
	case mysql && g.DataType == "enum" && (integerTypes[o.DataType] || o.DataType == "float" ||
		o.DataType == "double" || o.DataType == "year"):
		return "CAST(" + v + " AS CHAR)"
	case mysql && (o.DataType == "float" || o.DataType == "double") && g.DataType == "time":
		return "CAST(" + v + " AS CHAR)"
	case mysql && o.DataType == "json" && jsonReadAsText[g.DataType]:
		return "CAST(" + v + " AS CHAR)"
	case mysql && (o.DataType == "decimal" || o.DataType == "numeric") && (g.DataType == "date" || g.DataType == "datetime"):
		return "CAST(" + v + " AS CHAR)"
	case o.DataType == "float" && g.DataType == "bigint":
		if mysql {
			return floatIntoBigint(v)
		}
		return floatClampBigint(v)
	case mysql && o.DataType == "json" && g.DataType == "bit":
		return "CAST(CAST(" + v + " AS JSON) AS SIGNED)"
	case mysql && blobTypes[o.DataType] && (g.DataType == "decimal" || g.DataType == "numeric"):
		return leadingDecimal(v)
	case stringTypes[o.DataType] && g.DataType == "bit":
		if mysql && blobTypes[o.DataType] {
			return leadingInteger(v)
		}
		return "CAST(" + v + " AS SIGNED)"
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
	case !mysql && g.DataType == "bit" && (o.DataType == "date" || o.DataType == "datetime" || o.DataType == "time"):
		return TemporalIntoBit(v)
	}
	return v
}

// TemporalIntoBit wraps v, a DATE, DATETIME or TIME value (a column, a typed placeholder, a
// TIMESTAMP's wall clock typed as a DATETIME), for a BIT column on MariaDB: its number
// (YYYYMMDDHHMMSS, HHMMSS) with the fraction cut, a negative TIME as its 64-bit two's complement,
// which is what MariaDB's ALTER stores (measured on 10.11 into BIT(8) and BIT(64), a zero date or
// a zero month or day included under NO_ZERO_DATE/NO_ZERO_IN_DATE: '-00:00:01' is
// 0xFFFFFFFFFFFFFFFF, '12:34:56.999999' 123456, '2020-00-10' 20200010; a number that does not
// fit the BIT is refused by both, Data too long). INSERT ... SELECT of the column writes its text
// instead (Data too long, or Out of range for a typed value).
func TemporalIntoBit(v string) string { return "CAST(" + v + " AS SIGNED)" }

// integerTypes are the integer column types.
var integerTypes = map[string]bool{"tinyint": true, "smallint": true, "mediumint": true, "int": true,
	"integer": true, "bigint": true}

// jsonReadAsText are the column types MySQL's ALTER converts a JSON value into from its text.
var jsonReadAsText = map[string]bool{"tinyint": true, "smallint": true, "mediumint": true, "int": true,
	"integer": true, "bigint": true, "float": true, "double": true, "real": true, "double precision": true,
	"year": true, "date": true, "datetime": true, "time": true}

// floatIntoBigint is FLOAT v as MySQL's ALTER stores it into a BIGINT: -9223372036854775808 when
// its size is 2^63 or more (a BIGINT UNSIGNED refuses that value, as the ALTER does), else v. v
// appears twice.
func floatIntoBigint(v string) string {
	return "IF(ABS(" + v + ") >= 9223372036854775808, -9223372036854775808, " + v + ")"
}

// floatClampBigint is FLOAT v as MariaDB's ALTER stores it into a BIGINT or BIGINT UNSIGNED: its
// integer value clamped to BIGINT's range, without a warning (3.4e38 and 1.8446743e19 are
// 9223372036854775807 in both; -3.4e38 is -9223372036854775808, which an unsigned column
// refuses); rounded half to even below (CAST(v AS SIGNED) rounds as the ALTER does: 2.5 is 2).
// INSERT ... SELECT refuses a value beyond the column's range and stores 1.8446743e19 in a
// BIGINT UNSIGNED as it is. v appears three times.
func floatClampBigint(v string) string {
	return "IF(" + v + " >= 9223372036854775808, 9223372036854775807, IF(" + v +
		" < -9223372036854775808, -9223372036854775808, CAST(" + v + " AS SIGNED)))"
}

// leadingInteger is the integer text v starts with, after blanks (a sign included), as a SIGNED;
// 0 when it starts with none; NULL for NULL. The text is read as latin1 (bytes one to one: a
// BLOB's too, which a regular expression does not take as it is; the literals too, whatever the
// session's character set: the applier's is binary). A '0' goes before the digits,
// so that no digits read 0 and v appears once: '0' || ' -12ab' becomes '-012'.
func leadingInteger(v string) string {
	return "CAST(REGEXP_REPLACE(CONCAT(_latin1'0', CONVERT(" + v + " USING latin1)), " +
		"_latin1'(?s)^(0)[[:space:]]*([-+]?)([0-9]*).*$', _latin1'$2$1$3') AS SIGNED)"
}

// leadingDecimal is the number text v starts with (after blanks, a sign, digits with a point, an
// exponent), or, when it starts with none, the whole text, which the DECIMAL column then refuses
// as the server's ALTER does. Read as latin1 (see leadingInteger); v appears once.
func leadingDecimal(v string) string {
	return "REGEXP_SUBSTR(CONVERT(" + v + " USING latin1), " +
		"_latin1'(?s)^[[:space:]]*[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?|^.*')"
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
