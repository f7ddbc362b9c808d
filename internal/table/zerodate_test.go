package table

import "testing"

// The applier writes a zero date going into a number or a TIME from its text: its number's digits
// or its time part (zerodate.go). localtests/cases/conv_strict_zero_dates_to_numbers judges the
// values against the server's own ALTER on every flavor.
func TestZeroDateArg(t *testing.T) {
	cases := []struct {
		text   string
		asTime bool
		want   string
	}{
		{"0000-00-00", false, "0"},
		{"2020-00-10", false, "20200010"},
		{"0000-00-00 12:34:56.500000", false, "123456.500000"},
		{"2020-00-10 12:34:56", false, "20200010123456"},
		{"0000-00-00 00:00:00", false, "0"},
		{"0000-00-00", true, "00:00:00"},
		{"2020-05-00 23:59:59.999999", true, "23:59:59.999999"},
	}
	for _, c := range cases {
		if got := ZeroDateArg(c.text, c.asTime); got != c.want {
			t.Errorf("ZeroDateArg(%q, %v) = %q, want %q", c.text, c.asTime, got, c.want)
		}
	}
	if !IsZeroDate("0000-00-00 00:00:00") || IsZeroInDate("0000-00-00") || !IsZeroInDate("2020-05-00") || IsZeroInDate("2020-05-01 00:00:00") {
		t.Errorf("IsZeroDate / IsZeroInDate misjudge their texts")
	}
	dt := &Column{DataType: "datetime"}
	if _, _, ok := ZeroDateWrite(dt, &Column{DataType: "bit"}, false); ok {
		t.Errorf("DATETIME -> BIT: want the refusal kept (MySQL's ALTER gives NULL for some values)")
	}
	if _, _, ok := ZeroDateWrite(dt, &Column{DataType: "year"}, true); ok {
		t.Errorf("DATETIME -> YEAR on MariaDB: want the refusal kept (its ALTER refuses)")
	}
	if e, asTime, ok := ZeroDateWrite(dt, &Column{DataType: "time"}, true); !ok || !asTime || e != "CAST(? AS TIME(6))" {
		t.Errorf("DATETIME -> TIME: got %q %v %v", e, asTime, ok)
	}
}

// A zero TIMESTAMP going into a number or a TIME is copied as the server's ALTER converts it (0,
// '00:00:00') under NO_ZERO_DATE, not through the zone conversion that cannot hold it; other
// targets keep the zero date guard. Judged by migrator.TestZeroDatesJudgedLikeServerALTER.
func TestZeroTimestampExpr(t *testing.T) {
	ts := &Column{DataType: "timestamp", FracDigits: 6}
	cases := []struct {
		g       string
		mariaDB bool
		want    string
		ok      bool
	}{
		{"bigint", true, "IF(c = 0, 0, TRUNCATE((w + 0), 0))", true},
		{"bigint", false, "IF(c = 0, 0, ROUND((w + 0)))", true},
		{"decimal", false, "IF(c = 0, 0, (w + 0))", true},
		{"time", true, "IF(c = 0, CAST('00:00:00' AS TIME(6)), CAST(w AS TIME(6)))", true},
		{"varchar", false, "", false},
		{"bit", false, "", false},
	}
	for _, c := range cases {
		got, ok := ZeroTimestampExpr(ts, &Column{DataType: c.g}, "c", "w", c.mariaDB)
		if got != c.want || ok != c.ok {
			t.Errorf("-> %s (mariaDB %v): got %q %v, want %q %v", c.g, c.mariaDB, got, ok, c.want, c.ok)
		}
	}
	if _, ok := ZeroTimestampExpr(&Column{DataType: "datetime"}, &Column{DataType: "bigint"}, "c", "w", false); ok {
		t.Errorf("a DATETIME original: want no zero TIMESTAMP expression")
	}
}
