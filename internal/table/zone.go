package table

import (
	"fmt"
	"strings"
)

// Time zones. The tool's writer sessions run with time_zone='+00:00', so a TIMESTAMP travels as its
// UTC epoch and a DATETIME as its wall clock, both unchanged, whatever the server's zone. A column
// that the ALTER turns from DATETIME/DATE into TIMESTAMP (or back) is different: the server's own
// ALTER reads the wall clock in its session's time zone, the global one. ZoneShift says when such a
// conversion is needed and ZoneExpr builds the SQL that performs it the way the server does. A TIME
// that becomes a DATETIME or DATE depends on the zone too: the server puts it on the current date
// of its session's zone (ZoneTimeToDate).

// ZoneShift is the time zone conversion a value needs on its way from an original column to the
// ghost column it is copied into.
type ZoneShift int

const (
	// ZoneNone: the value is written as it is (both TIMESTAMP, or neither).
	ZoneNone ZoneShift = iota
	// ZoneToUTC: a DATETIME/DATE wall clock of the server's zone becomes a TIMESTAMP.
	ZoneToUTC
	// ZoneFromUTC: a TIMESTAMP (UTC in the writer session) becomes a DATETIME/DATE wall clock, or
	// its wall clock (a DATETIME of the TIMESTAMP's precision) is converted into a column of another
	// type as a DATETIME column's value is: that is how the server's ALTER converts a TIMESTAMP.
	ZoneFromUTC
	// ZoneTimeToDate: a TIME becomes a DATETIME/DATE on the current date of the server's zone
	// (the server adds the TIME, negative or beyond 24 hours, to that date's midnight).
	ZoneTimeToDate
	// ZoneTimeToUTC: a TIME becomes a TIMESTAMP: put on the current date of the server's zone
	// (ZoneTimeToDate), that wall clock then becomes a TIMESTAMP (ZoneToUTC).
	ZoneTimeToUTC
)

// ZoneShiftOf says how values of original column o reach ghost column g. A TIMESTAMP becoming any
// other type is its wall clock in the server's zone, converted on as a DATETIME (measured: the
// server's ALTER gives the same numbers and texts). Another type than DATETIME or DATE becoming a
// TIMESTAMP depends on the time zone in ways the tool does not reproduce: that is an error naming
// the column and the way out.
func ZoneShiftOf(o, g *Column) (ZoneShift, error) {
	if o.DataType == "time" && (g.DataType == "datetime" || g.DataType == "date") {
		return ZoneTimeToDate, nil
	}
	ots, gts := o.DataType == "timestamp", g.DataType == "timestamp"
	if o.DataType == "time" && gts {
		return ZoneTimeToUTC, nil
	}
	if ots == gts {
		return ZoneNone, nil
	}
	if ots {
		return ZoneFromUTC, nil
	}
	other, dir := g, ZoneFromUTC
	if gts {
		other, dir = o, ZoneToUTC
	}
	if other.DataType != "datetime" && other.DataType != "date" {
		return ZoneNone, fmt.Errorf("column %s changes from %s to TIMESTAMP, whose values depend on the time zone; go-ghostlite converts into TIMESTAMP only from DATETIME, DATE and TIME: change the type in two steps through DATETIME",
			o.Name, strings.ToUpper(other.DataType))
	}
	return dir, nil
}

// ZoneRefusal is the text of the datetime value that makes a write fail (strict sql_mode) when a
// wall clock does not exist in the server's time zone (a daylight-saving gap) or falls outside the
// TIMESTAMP range there: the server's own ALTER refuses those rows too.
const ZoneRefusal = "not a time in the server time zone (DST gap or out of TIMESTAMP range)"

// ZoneExpr is the SQL expression converting value v (an SQL expression of the original column's
// type, evaluated in a '+00:00' session) for the ghost column as the server would in time zone
// zone. v is referenced several times: pass a column name or a derived-table field, not a "?".
func ZoneExpr(v string, shift ZoneShift, zone string) string {
	z := QuoteString(zone)
	switch shift {
	case ZoneToUTC:
		conv := fmt.Sprintf("CONVERT_TZ(%s, %s, '+00:00')", v, z)
		back := fmt.Sprintf("CONVERT_TZ(%s, '+00:00', %s)", conv, z)
		// CONVERT_TZ leaves a value alone when its UTC time is out of the TIMESTAMP range, and moves a
		// wall clock in a DST gap: the round trip then differs, and the row is refused.
		return fmt.Sprintf("IF(%s IS NULL OR %s = 0, %s, IF(%s <=> %s, %s, CAST(%s AS DATETIME(6))))",
			v, v, v, back, v, conv, QuoteString(ZoneRefusal))
	case ZoneFromUTC:
		return fmt.Sprintf("IF(%s = 0, %s, CONVERT_TZ(%s, '+00:00', %s))", v, v, v, z)
	case ZoneTimeToDate:
		// The writer session's CURRENT_DATE is UTC's; the server's ALTER takes its own zone's.
		return fmt.Sprintf("ADDTIME(CAST(DATE(CONVERT_TZ(UTC_TIMESTAMP(), '+00:00', %s)) AS DATETIME(6)), %s)", z, v)
	case ZoneTimeToUTC:
		return ZoneExpr(ZoneExpr(v, ZoneTimeToDate, zone), ZoneToUTC, zone)
	}
	return v
}

// ZeroDateRefusal and ZeroInDateRefusal are the texts of the datetime values that make a write
// fail (ZeroDateGuard) where the server's sql_mode refuses a zero date or a zero month or day.
const (
	ZeroDateRefusal   = "a zero date, which the server's sql_mode refuses (NO_ZERO_DATE)"
	ZeroInDateRefusal = "a date with a zero month or day, which the server's sql_mode refuses (NO_ZERO_IN_DATE)"
)

// ZeroDateGuard wraps v (a DATE, DATETIME or TIMESTAMP expression, referenced several times) for
// ZoneExpr in a writer session whose sql_mode has NO_ZERO_DATE (noZeroDate) or NO_ZERO_IN_DATE
// (noZeroInDate): a value they refuse becomes an invalid DATETIME(6) cast, whose warning (an
// error in a strict statement) names it. Without it MariaDB's IF() and CONVERT_TZ() give NULL for
// such a value under those modes, without a warning, and NULL would be stored silently where the
// server's own ALTER refuses the row. The value is tested by its text, which every flavor gives
// as it is stored.
func ZeroDateGuard(v string, noZeroDate, noZeroInDate bool) string {
	text := "CAST(" + v + " AS CHAR)"
	if noZeroInDate {
		zeroPart := fmt.Sprintf("(SUBSTRING(%s, 6, 2) = '00' OR SUBSTRING(%s, 9, 2) = '00') AND %s NOT LIKE '0000-00-00%%'", text, text, text)
		v = fmt.Sprintf("IF(%s, CAST(%s AS DATETIME(6)), %s)", zeroPart, QuoteString(ZeroInDateRefusal), v)
	}
	if noZeroDate {
		v = fmt.Sprintf("IF(%s LIKE '0000-00-00%%', CAST(%s AS DATETIME(6)), %s)", text, QuoteString(ZeroDateRefusal), v)
	}
	return v
}

// ZoneValueExpr is ZoneExpr for a single placeholder: the value is bound once, as a DATETIME(6)
// (a TIME(6) for ZoneTimeToDate; for ZoneFromUTC a DATETIME of the TIMESTAMP's precision fsp, so
// that its wall clock converts into a number or a text as the TIMESTAMP column does), in a derived
// table the expression reads.
func ZoneValueExpr(shift ZoneShift, zone string, fsp int) string {
	typ := "DATETIME(6)"
	switch shift {
	case ZoneNone:
		return "?"
	case ZoneTimeToDate:
		return ZoneExpr("CAST(? AS TIME(6))", shift, zone) // v appears once
	case ZoneTimeToUTC:
		return fmt.Sprintf("(SELECT %s FROM (SELECT %s AS v) AS z)", ZoneExpr("z.v", ZoneToUTC, zone), ZoneValueExpr(ZoneTimeToDate, zone, fsp))
	case ZoneFromUTC:
		typ = fmt.Sprintf("DATETIME(%d)", max(0, min(fsp, 6)))
	}
	return fmt.Sprintf("(SELECT %s FROM (SELECT CAST(? AS %s) AS v) AS z)", ZoneExpr("z.v", shift, zone), typ)
}

// WallClockExpr wraps expression v (ZoneExpr or ZoneValueExpr of a ZoneFromUTC shift from TIMESTAMP
// column o) for ghost column g of a type other than DATETIME and DATE: typed as a DATETIME of
// o's precision, it converts into a number, a YEAR, a TIME or a text as a DATETIME column does
// (CONVERT_TZ's result enters a YEAR or a FLOAT as its text on MySQL: refused), which is what the
// server's ALTER gives for the TIMESTAMP (measured by the conversion matrix). On MySQL (mysql) a
// YEAR or BIT gets the number YYYYMMDDHHMMSS, as MySQL's ALTER converts a TIMESTAMP or DATETIME
// column into them (out of range but for the zero date): a typed DATETIME enters a YEAR as its
// year and a BIT as its text there. On MariaDB a BIT gets the number too, its fraction cut
// (TemporalIntoBit). Other pairs return v.
func WallClockExpr(o, g *Column, shift ZoneShift, v string, mysql bool) string {
	if shift != ZoneFromUTC || g.DataType == "datetime" || g.DataType == "date" {
		return v
	}
	v = fmt.Sprintf("CAST(%s AS DATETIME(%d))", v, max(0, min(o.FracDigits, 6)))
	if mysql && (g.DataType == "year" || g.DataType == "bit") {
		v = "(" + v + " + 0)"
	}
	if !mysql && g.DataType == "bit" {
		v = TemporalIntoBit(v)
	}
	return v
}

// BindAsOriginal is how the text of a temporal value of original column o (DATE, DATETIME, TIME:
// the binlog's text form) is bound for ghost column g of another type: typed as o, so that the
// server converts it exactly as INSERT ... SELECT (and its own ALTER) converts the column, not
// as a string. Other columns, a column keeping its type, and a DATE or DATETIME into a string
// column (its text is the ALTER's), bind "?".
//
// A FLOAT, DOUBLE or DECIMAL value is bound typed as such for a column of another type: text
// would be a DECIMAL literal (rounded otherwise than a DOUBLE) or a string (convert.go).
func BindAsOriginal(o, g *Column) string {
	switch o.DataType {
	case "date", "datetime", "time":
		if (o.DataType == "date" || o.DataType == "datetime") && stringTypes[g.DataType] {
			// The binlog's text is the value as the server writes it, fractional digits included:
			// what the ALTER stores in a string column. A CAST would refuse a zero date or a zero
			// month or day under the writers' NO_ZERO_DATE or NO_ZERO_IN_DATE, which the ALTER
			// stores into a string as it is.
			return "?"
		}
		if g.DataType != o.DataType && safeColumnType(o.ColumnType) {
			return "CAST(? AS " + o.ColumnType + ")"
		}
	case "float":
		if g.ColumnType != o.ColumnType {
			return "CAST(? AS FLOAT)"
		}
	case "double", "real", "double precision":
		if g.ColumnType != o.ColumnType {
			return "CAST(? AS DOUBLE)"
		}
	case "decimal", "numeric":
		// The binlog's exact text, typed: as text it would enter a YEAR, BIT, DATE or ENUM as a
		// string, not as the number the server's ALTER converts.
		if t, _, _ := strings.Cut(o.ColumnType, " "); g.ColumnType != o.ColumnType && safeColumnType(t) {
			return "CAST(? AS " + strings.Replace(t, "numeric", "decimal", 1) + ")"
		}
	}
	return "?"
}

// TemporalAsNumber is typed, the applier's DATE, DATETIME or TIME value of original column o
// (BindAsOriginal), as it enters a BIT ghost column g on MySQL, and a TIME as it enters a YEAR: as
// its number (YYYYMMDDHHMMSS, HHMMSS, the fraction rounded), which is what MySQL's ALTER and
// INSERT ... SELECT of the column store ('00:20:05' is the YEAR 2005 and the BIT 0x7D5, a zero
// DATETIME the BIT 0). A temporal expression that is not a column enters a BIT as its text
// (refused: Data too long), and a TIME one a YEAR as the current year on MySQL 9.7 ('00:00:00'
// became 2026); "+ 0" makes it the number. Measured. Not for MariaDB, whose ALTER refuses a TIME
// into a YEAR and cuts the fraction into a BIT: its copy and applier cast the value AS SIGNED
// (ConvertExpr, TemporalIntoBit). A DATE or DATETIME enters a YEAR as its year, typed, where
// MySQL's ALTER converts its number (out of range but for the zero date): the number too (the
// copy: DateAsNumber). Other pairs return typed as it is.
func TemporalAsNumber(o, g *Column, typed string) string {
	temporal := o.DataType == "date" || o.DataType == "datetime" || o.DataType == "time"
	if temporal && (g.DataType == "bit" || g.DataType == "year") && typed != "?" {
		return "(" + typed + " + 0)"
	}
	return typed
}

// DateAsNumber wraps v, the copy's column of DATE or DATETIME o, for a YEAR or BIT ghost column
// g on MySQL: MySQL's ALTER converts the date's number into a YEAR (out of range but for the zero
// date, which is 0000), where INSERT ... SELECT of the column stores its year (measured on MySQL
// 9.7: '2021-03-04' is refused by the ALTER, stored as 2021 by the copy); into a BIT(8) the
// zero date is 0 and a DATE '0000-00-01' 1 (larger numbers refused), where INSERT ... SELECT
// of the column writes its text (Data too long). Other pairs return v.
func DateAsNumber(o, g *Column, v string) string {
	if (g.DataType == "year" || g.DataType == "bit") && (o.DataType == "date" || o.DataType == "datetime") {
		return "(" + v + " + 0)"
	}
	return v
}

// safeColumnType is true for a type like "datetime(6)" or "decimal(12,3)": letters, digits,
// parentheses and commas only.
func safeColumnType(t string) bool {
	for _, r := range t {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '(' && r != ')' && r != ',' {
			return false
		}
	}
	return t != ""
}

// QuoteString quotes s as an SQL string literal (backslashes and quotes escaped, valid in any
// sql_mode that the writer sessions use).
func QuoteString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
