package table

import (
	"fmt"
	"strings"
)

// Zero dates written during a run into a number, a TIME, a BIT or (a zero TIMESTAMP) a string. A
// DATE, DATETIME or TIMESTAMP holding a zero date ('0000-00-00'), or a zero month or day
// ('2020-00-10'), written earlier under a lax sql_mode, is converted by the server's own ALTER into
// a number, a TIME, a BIT (and on MySQL a YEAR) even under a strict NO_ZERO_DATE/NO_ZERO_IN_DATE
// sql_mode: the copy reads the column and gets the same. The applier's typed value (CAST(? AS
// DATETIME)) is refused by those modes instead, so such a value is written from its text
// (ZeroDateWrite). Measured on MariaDB 10.11, 11.8 and MySQL 9.7, strict sql_mode with
// NO_ZERO_DATE and NO_ZERO_IN_DATE:
//
//   - into an integer, DECIMAL, FLOAT or DOUBLE: the number YYYYMMDD or YYYYMMDDHHMMSS.ffffff
//     ('2020-00-10' is 20200010, '0000-00-00 12:34:56.5' 123456.5); into an integer MySQL rounds
//     the fraction (123457) and MariaDB cuts it (123456); out of range is refused;
//   - into a BIT: the number as into an integer (rounded on MySQL, cut on MariaDB:
//     '2020-00-10 12:34:56.5' is 20200010123457 / 20200010123456 in a BIT(64)); a number wider
//     than the BIT is refused (Data too long);
//   - into a TIME: the time part ('00:00:00' for a DATE), rounded to the TIME's precision on MySQL,
//     cut on MariaDB, as a TIME(6) value stored into a TIME column is;
//   - into a YEAR on MySQL: the number (the zero date is 0000, a zero month or day out of range);
//     MariaDB's ALTER refuses them (Incorrect datetime value), and so does the typed value;
//   - a zero TIMESTAMP into a string (CHAR, VARCHAR, TEXT, BINARY, BLOB...): its text, with the
//     TIMESTAMP's fractional digits ('0000-00-00 00:00:00.000000' from a TIMESTAMP(6)), which is
//     the binlog's text of it. A DATE or DATETIME enters a string as its text already
//     (BindAsOriginal).

// ZeroArg says what ZeroDateWrite's expression binds for a value's text (ZeroDateArg).
type ZeroArg int

const (
	ZeroAsNumber ZeroArg = iota // the number's digits: "20200010123456.500000"
	ZeroAsTime                  // the time part: "12:34:56.500000", "00:00:00" for a DATE
	ZeroAsText                  // the text itself
)

// IsZeroDate says the text of a DATE, DATETIME or TIMESTAMP value holds the zero date.
func IsZeroDate(text string) bool { return strings.HasPrefix(text, "0000-00-00") }

// IsZeroInDate says the text of a DATE, DATETIME or TIMESTAMP value has a zero month or day but is
// not the zero date.
func IsZeroInDate(text string) bool {
	return len(text) >= 10 && !IsZeroDate(text) && (text[5:7] == "00" || text[8:10] == "00")
}

// ZeroDateWrite is the SQL expression (one placeholder) that writes a zero date, or a date with a
// zero month or day, of original column o into ghost column g as the server's ALTER converts it,
// and what to bind for the value's text (ZeroDateArg). ok is false where the typed value's
// refusal is kept: other types, a YEAR on MariaDB.
func ZeroDateWrite(o, g *Column, mariaDB bool) (expr string, arg ZeroArg, ok bool) {
	if o.DataType != "date" && o.DataType != "datetime" && o.DataType != "timestamp" {
		return "", 0, false
	}
	number := "CAST(? AS DECIMAL(20,6))"
	switch g.DataType {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "bit":
		if mariaDB {
			return "TRUNCATE(" + number + ", 0)", ZeroAsNumber, true
		}
		return "ROUND(" + number + ")", ZeroAsNumber, true
	case "decimal", "numeric", "float", "double", "real", "double precision":
		return number, ZeroAsNumber, true
	case "year":
		return number, ZeroAsNumber, !mariaDB
	case "time":
		return "CAST(? AS TIME(6))", ZeroAsTime, true
	}
	if o.DataType == "timestamp" && stringTypes[g.DataType] {
		return "?", ZeroAsText, true
	}
	return "", 0, false
}

// ZeroDateArg is the value ZeroDateWrite's expression binds for the text of a DATE, DATETIME or
// TIMESTAMP value: its time part for ZeroAsTime ("00:00:00" for a DATE), its number's digits
// ("20200010123456.500000") for ZeroAsNumber, the text for ZeroAsText.
func ZeroDateArg(text string, arg ZeroArg) string {
	date, clock, _ := strings.Cut(text, " ")
	switch arg {
	case ZeroAsText:
		return text
	case ZeroAsTime:
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
// going into ghost column g of a type ZeroDateWrite converts (a number, a BIT, a TIME, MySQL's
// YEAR, a string), where the writers' sql_mode has NO_ZERO_DATE: wall is the converted wall clock
// (WallClockExpr of the unguarded ZoneExpr), and a zero TIMESTAMP gives the server's ALTER's 0,
// '00:00:00' or '0000-00-00 00:00:00[.000000]' instead of a zero date the mode refuses (MariaDB's
// IF() would give NULL for it). The number is rounded into an integer or a BIT on MySQL and cut on
// MariaDB, as their ALTERs convert a TIMESTAMP(6). ok is false for the other targets: the zero
// date guard stays (ZeroDateGuard).
func ZeroTimestampExpr(o, g *Column, col, wall string, mariaDB bool) (string, bool) {
	if o.DataType != "timestamp" {
		return "", false
	}
	expr, arg, ok := ZeroDateWrite(o, g, mariaDB)
	switch {
	case !ok:
		return "", false
	case arg == ZeroAsTime:
		return fmt.Sprintf("IF(%s = 0, CAST('00:00:00' AS TIME(6)), CAST(%s AS TIME(6)))", col, wall), true
	case arg == ZeroAsText:
		// The wall clock as text: an IF() of a string and a DATETIME is a string on both flavors.
		return fmt.Sprintf("IF(%s = 0, %s, CAST(%s AS CHAR))", col, QuoteString(zeroTimestampText(o.FracDigits)), wall), true
	}
	// expr converts a bound DECIMAL: the wall clock's number takes the placeholder's place.
	return fmt.Sprintf("IF(%s = 0, 0, %s)", col, strings.Replace(expr, "CAST(? AS DECIMAL(20,6))", "("+wall+" + 0)", 1)), true
}

// zeroTimestampText is the text of a zero TIMESTAMP with fsp fractional digits, as the server's
// ALTER writes it into a string column.
func zeroTimestampText(fsp int) string {
	if fsp = max(0, min(fsp, 6)); fsp > 0 {
		return "0000-00-00 00:00:00." + strings.Repeat("0", fsp)
	}
	return "0000-00-00 00:00:00"
}
