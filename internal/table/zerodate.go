package table

import (
	"fmt"
	"strings"
)

// Zero dates written during a run into a number or a TIME. A DATE, DATETIME or TIMESTAMP holding a
// zero date ('0000-00-00'), or a zero month or day ('2020-00-10'), written earlier under a lax
// sql_mode, is converted by the server's own ALTER into a number, a TIME (and on MySQL a YEAR)
// even under a strict NO_ZERO_DATE/NO_ZERO_IN_DATE sql_mode: the copy reads the column and gets the
// same. The applier's typed value (CAST(? AS DATETIME)) is refused by those modes instead, so such
// a value is written from its text (ZeroDateWrite). Measured on MariaDB 10.11, 11.8 and MySQL 9.7,
// strict sql_mode with NO_ZERO_DATE and NO_ZERO_IN_DATE:
//
//   - into an integer, DECIMAL, FLOAT or DOUBLE: the number YYYYMMDD or YYYYMMDDHHMMSS.ffffff
//     ('2020-00-10' is 20200010, '0000-00-00 12:34:56.5' 123456.5); into an integer MySQL rounds
//     the fraction (123457) and MariaDB cuts it (123456); out of range is refused;
//   - into a TIME: the time part ('00:00:00' for a DATE), rounded to the TIME's precision on MySQL,
//     cut on MariaDB, as a TIME(6) value stored into a TIME column is;
//   - into a YEAR on MySQL: the number (the zero date is 0000, a zero month or day out of range);
//     MariaDB's ALTER refuses them (Incorrect datetime value), and so does the typed value;
//   - into a BIT: MySQL's ALTER gives NULL for a DATETIME(6) with a zero month, a number elsewhere;
//     the typed value is refused (kept: never a silent difference).

// IsZeroDate says the text of a DATE, DATETIME or TIMESTAMP value holds the zero date.
func IsZeroDate(text string) bool { return strings.HasPrefix(text, "0000-00-00") }

// IsZeroInDate says the text of a DATE, DATETIME or TIMESTAMP value has a zero month or day but is
// not the zero date.
func IsZeroInDate(text string) bool {
	return len(text) >= 10 && !IsZeroDate(text) && (text[5:7] == "00" || text[8:10] == "00")
}

// ZeroDateWrite is the SQL expression (one placeholder) that writes a zero date, or a date with a
// zero month or day, of original column o into ghost column g as the server's ALTER converts it,
// and the value to bind for the value's text (ZeroDateArg). ok is false where the typed value's
// refusal is kept: other types, a BIT, a YEAR on MariaDB.
func ZeroDateWrite(o, g *Column, mariaDB bool) (expr string, asTime bool, ok bool) {
	if o.DataType != "date" && o.DataType != "datetime" && o.DataType != "timestamp" {
		return "", false, false
	}
	number := "CAST(? AS DECIMAL(20,6))"
	switch g.DataType {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
		if mariaDB {
			return "TRUNCATE(" + number + ", 0)", false, true
		}
		return "ROUND(" + number + ")", false, true
	case "decimal", "numeric", "float", "double", "real", "double precision":
		return number, false, true
	case "year":
		return number, false, !mariaDB
	case "time":
		return "CAST(? AS TIME(6))", true, true
	}
	return "", false, false
}

// ZeroDateArg is the value ZeroDateWrite's expression binds for the text of a DATE, DATETIME or
// TIMESTAMP value: its time part when asTime ("00:00:00" for a DATE), else its number's digits
// ("20200010123456.500000").
func ZeroDateArg(text string, asTime bool) string {
	date, clock, _ := strings.Cut(text, " ")
	if asTime {
		if clock == "" {
			return "00:00:00"
		}
		return clock
	}
	whole, frac, _ := strings.Cut(date+strings.NewReplacer(":", "").Replace(clock), ".")
	whole = strings.TrimLeft(strings.ReplaceAll(whole, "-", ""), "0")
	if whole == "" {
		whole = "0"
	}
	if frac != "" {
		return whole + "." + frac
	}
	return whole
}

// ZeroTimestampExpr is the copy's expression for TIMESTAMP column col (original o, ZoneFromUTC)
// going into ghost column g of a type ZeroDateWrite converts (a number, a TIME, MySQL's YEAR),
// where the writers' sql_mode has NO_ZERO_DATE: wall is the converted wall clock (WallClockExpr of
// the unguarded ZoneExpr), and a zero TIMESTAMP gives the server's ALTER's 0 or '00:00:00' instead
// of a zero date the mode refuses (MariaDB's IF() would give NULL for it). The number is rounded
// into an integer on MySQL and cut on MariaDB, as their ALTERs convert a TIMESTAMP(6). ok is
// false for the other targets: the zero date guard stays (ZeroDateGuard).
func ZeroTimestampExpr(o, g *Column, col, wall string, mariaDB bool) (string, bool) {
	if o.DataType != "timestamp" {
		return "", false
	}
	expr, asTime, ok := ZeroDateWrite(o, g, mariaDB)
	if !ok {
		return "", false
	}
	if asTime {
		return fmt.Sprintf("IF(%s = 0, CAST('00:00:00' AS TIME(6)), CAST(%s AS TIME(6)))", col, wall), true
	}
	// expr converts a bound DECIMAL: the wall clock's number takes the placeholder's place.
	return fmt.Sprintf("IF(%s = 0, 0, %s)", col, strings.Replace(expr, "CAST(? AS DECIMAL(20,6))", "("+wall+" + 0)", 1)), true
}
