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
