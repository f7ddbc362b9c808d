package table

import (
	"strings"
	"testing"
)

// A TIME going to DATETIME/DATE is put on the current date of the server's zone, on the copy
// (column expression) and the applier (a bound TIME): the writer session's own CURRENT_DATE is
// UTC's. Fails on the code that bound the TIME's text to the DATETIME column (refused, 1292).
func TestZoneTimeToDateExpr(t *testing.T) {
	o := &Column{Name: "t", DataType: "time", ColumnType: "time(3)"}
	for _, g := range []string{"datetime", "date"} {
		shift, err := ZoneShiftOf(o, &Column{Name: "t", DataType: g})
		if err != nil || shift != ZoneTimeToDate {
			t.Fatalf("TIME -> %s: shift %v, %v", g, shift, err)
		}
	}
	if shift, err := ZoneShiftOf(o, &Column{Name: "t", DataType: "timestamp"}); err != nil || shift != ZoneTimeToUTC {
		t.Errorf("TIME -> TIMESTAMP: shift %v, %v; want ZoneTimeToUTC", shift, err)
	}
	want := "ADDTIME(CAST(DATE(CONVERT_TZ(UTC_TIMESTAMP(), '+00:00', '+05:30')) AS DATETIME(6)), `t`)"
	if got := ZoneExpr("`t`", ZoneTimeToDate, "+05:30"); got != want {
		t.Errorf("copy expression:\n got %s\nwant %s", got, want)
	}
	want = "ADDTIME(CAST(DATE(CONVERT_TZ(UTC_TIMESTAMP(), '+00:00', '+05:30')) AS DATETIME(6)), CAST(? AS TIME(6)))"
	if got := ZoneValueExpr(ZoneTimeToDate, "+05:30", 0); got != want {
		t.Errorf("applier expression:\n got %s\nwant %s", got, want)
	}
}

// A temporal value bound for a ghost column of another type is typed as the original column, so
// the server converts it as INSERT ... SELECT would; same-type and non-temporal columns bind "?".
func TestBindAsOriginal(t *testing.T) {
	cases := []struct {
		o, oType, g, want string
	}{
		{"datetime", "datetime(6)", "time", "CAST(? AS datetime(6))"},
		{"datetime", "datetime", "varchar", "?"}, // the binlog's text is the ALTER's (zero dates too)
		{"date", "date", "text", "?"},
		{"datetime", "datetime", "int", "CAST(? AS datetime)"},
		{"date", "date", "datetime", "CAST(? AS date)"},
		{"time", "time(2)", "varchar", "CAST(? AS time(2))"},
		{"datetime", "datetime(6)", "datetime", "?"},
		{"decimal", "decimal(10,4)", "int", "CAST(? AS decimal(10,4))"},
		{"decimal", "decimal(10,4)", "decimal", "CAST(? AS decimal(10,4))"},
		{"time", "time) x", "varchar", "?"},
	}
	for _, c := range cases {
		got := BindAsOriginal(&Column{DataType: c.o, ColumnType: c.oType}, &Column{DataType: c.g})
		if got != c.want {
			t.Errorf("%s -> %s: got %s, want %s", c.oType, c.g, got, c.want)
		}
	}
}

// On MySQL a TIME value enters a YEAR or BIT column as its number (HHMMSS), a DATE or DATETIME a
// BIT column, as that server's ALTER stores them; the typed value alone would be the current year,
// or the text.
func TestTemporalAsNumber(t *testing.T) {
	cases := []struct {
		o, oType, g, want string
	}{
		{"time", "time", "year", "(CAST(? AS time) + 0)"},
		{"time", "time(6)", "bit", "(CAST(? AS time(6)) + 0)"},
		{"time", "time", "varchar", "CAST(? AS time)"},
		{"datetime", "datetime", "year", "(CAST(? AS datetime) + 0)"}, // MySQL's ALTER: the number, out of range
		{"datetime", "datetime(6)", "bit", "(CAST(? AS datetime(6)) + 0)"},
		{"date", "date", "bit", "(CAST(? AS date) + 0)"},
		{"time", "time) x", "year", "?"},
	}
	for _, c := range cases {
		o, g := &Column{DataType: c.o, ColumnType: c.oType}, &Column{DataType: c.g}
		if got := TemporalAsNumber(o, g, BindAsOriginal(o, g)); got != c.want {
			t.Errorf("%s -> %s: got %s, want %s", c.oType, c.g, got, c.want)
		}
	}
}

func TestTimestampIntoOtherTypes(t *testing.T) {
	ts := &Column{Name: "ts", DataType: "timestamp", ColumnType: "timestamp(3)", FracDigits: 3}
	for _, g := range []string{"bigint", "float", "varchar", "time", "year", "bit", "datetime", "date"} {
		shift, err := ZoneShiftOf(ts, &Column{Name: "ts", DataType: g})
		if err != nil || shift != ZoneFromUTC {
			t.Errorf("timestamp -> %s: shift %v, err %v; want ZoneFromUTC", g, shift, err)
		}
	}
	if _, err := ZoneShiftOf(&Column{Name: "i", DataType: "int"}, &Column{Name: "i", DataType: "timestamp"}); err == nil {
		t.Errorf("int -> timestamp: want a refusal")
	}
	cases := []struct {
		g     string
		mysql bool
		want  string
	}{
		{"bigint", true, "CAST(v AS DATETIME(3))"},
		{"year", true, "(CAST(v AS DATETIME(3)) + 0)"},
		{"year", false, "CAST(v AS DATETIME(3))"},
		{"bit", true, "(CAST(v AS DATETIME(3)) + 0)"},
		{"bit", false, "CAST(CAST(v AS DATETIME(3)) AS SIGNED)"},
		{"datetime", true, "v"},
	}
	for _, c := range cases {
		if got := WallClockExpr(ts, &Column{DataType: c.g}, ZoneFromUTC, "v", c.mysql); got != c.want {
			t.Errorf("WallClockExpr(-> %s, mysql=%v) = %s, want %s", c.g, c.mysql, got, c.want)
		}
	}
	if got := ZoneValueExpr(ZoneFromUTC, "+01:00", 3); !strings.Contains(got, "CAST(? AS DATETIME(3))") {
		t.Errorf("ZoneValueExpr(ZoneFromUTC, fsp 3) = %s: want the value bound as DATETIME(3)", got)
	}
}

// On MySQL the copy reads a DATE or DATETIME going into a YEAR or a BIT as its number, as the
// server's ALTER converts it (the zero date is 0); INSERT ... SELECT of the column would store
// its year, or its text into a BIT.
func TestDateAsNumber(t *testing.T) {
	col := func(dt string) *Column { return &Column{DataType: dt} }
	for _, c := range []struct{ from, to, want string }{
		{"date", "bit", "(v + 0)"}, {"datetime", "year", "(v + 0)"}, {"datetime", "bit", "(v + 0)"},
		{"date", "int", "v"}, {"time", "bit", "v"}, {"date", "varchar", "v"},
	} {
		if got := DateAsNumber(col(c.from), col(c.to), "v"); got != c.want {
			t.Errorf("DateAsNumber(%s -> %s) = %s, want %s", c.from, c.to, got, c.want)
		}
	}
}
