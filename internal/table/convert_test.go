package table

import (
	"strings"
	"testing"
)

func TestBitBytes(t *testing.T) {
	for typ, want := range map[string]int{"bit(1)": 1, "bit(8)": 1, "bit(9)": 2, "bit(64)": 8, "bit": 1} {
		if got := BitBytes(&Column{DataType: "bit", ColumnType: typ}); got != want {
			t.Errorf("BitBytes(%s) = %d, want %d", typ, got, want)
		}
	}
}

// The conversions are chosen by type family on both sides; the matrix (localtests) checks their
// results against the server.
func TestConvertExprChoice(t *testing.T) {
	col := func(dt string) *Column { return &Column{DataType: dt, ColumnType: dt} }
	cases := []struct {
		from, to, want string
		mysql          bool
	}{
		{"float", "varchar", "CAST(v AS CHAR)", false},
		{"double", "blob", "CAST(v AS CHAR)", false},
		{"float", "int", "v", false},
		{"year", "char", "LPAD(v, 4, '0')", false},
		{"year", "int", "v", false},
		{"int", "varchar", "v", false},
		{"decimal", "enum", "CAST(ROUND(v) AS SIGNED)", false},
		{"decimal", "set", "CAST(ROUND(v) AS SIGNED)", false},
		{"varchar", "bit", "CAST(v AS SIGNED)", true},
		{"text", "bit", "CAST(v AS SIGNED)", false},
		{"blob", "bit", leadingInteger("v"), true},
		{"bit", "varchar", "v", true},
		{"json", "bit", "CAST(CAST(v AS JSON) AS SIGNED)", true},
		{"mediumtext", "decimal", leadingDecimal("v"), true},
		{"mediumtext", "decimal", "v", false},
		{"varchar", "decimal", "v", true},
		// MySQL's ALTER converts these through the original's text (convert.go)
		{"int", "enum", "CAST(v AS CHAR)", true},
		{"int", "enum", "v", false},
		{"year", "enum", "CAST(v AS CHAR)", true},
		{"double", "enum", "CAST(v AS CHAR)", true},
		{"decimal", "enum", "CAST(ROUND(v) AS SIGNED)", true},
		{"int", "set", "v", true},
		{"float", "time", "CAST(v AS CHAR)", true},
		{"double", "time", "v", false},
		{"json", "time", "CAST(v AS CHAR)", true},
		{"json", "int", "CAST(v AS CHAR)", true},
		{"json", "datetime", "CAST(v AS CHAR)", true},
		{"json", "decimal", "v", true},
		{"float", "bigint", floatIntoBigint("v"), true},
		{"float", "bigint", floatClampBigint("v"), false},
		{"double", "bigint", "v", true},
		{"float", "int", "v", true},
		{"decimal", "date", "CAST(v AS CHAR)", true},
		{"decimal", "datetime", "CAST(v AS CHAR)", true},
		{"decimal", "datetime", "v", false},
		{"decimal", "time", "v", true},
		// MariaDB's ALTER stores a date's or time's number in a BIT, its fraction cut
		{"date", "bit", "CAST(v AS SIGNED)", false},
		{"datetime", "bit", "CAST(v AS SIGNED)", false},
		{"time", "bit", "CAST(v AS SIGNED)", false},
		{"time", "bit", "v", true},
		{"date", "int", "v", false},
	}
	for _, c := range cases {
		if got := ConvertExpr(col(c.from), col(c.to), "v", c.mysql); got != c.want {
			t.Errorf("ConvertExpr(%s -> %s) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
	if !BindsByNumber(col("enum"), col("decimal")) || BindsByNumber(col("enum"), col("varchar")) || BindsByNumber(col("int"), col("int")) {
		t.Error("BindsByNumber: ENUM/SET into numbers only")
	}
	if !BindsBitAsBytes(col("bit"), col("blob")) || BindsBitAsBytes(col("bit"), col("varchar")) {
		t.Error("BindsBitAsBytes: BIT into TEXT/BLOB only")
	}
	if got := BindAsOriginal(col("double"), col("int")); got != "CAST(? AS DOUBLE)" {
		t.Errorf("BindAsOriginal(double -> int) = %q", got)
	}
	if got := BindAsOriginal(col("double"), col("double")); got != "?" {
		t.Errorf("BindAsOriginal(double -> double) = %q", got)
	}
}

func TestImplicitDefault(t *testing.T) {
	for dt, want := range map[string]string{"int": "0", "varchar": "''", "enum": "1", "set": "''", "date": "'0000-00-00'",
		"time": "'00:00:00'", "year": "0", "bit": "0", "json": "''"} {
		if got, ok := ImplicitDefault(&Column{DataType: dt}); !ok || got != want {
			t.Errorf("ImplicitDefault(%s) = %q, %v; want %q", dt, got, ok, want)
		}
	}
	if got, _ := ImplicitDefault(&Column{DataType: "datetime", FracDigits: 3}); got != "'0000-00-00 00:00:00.000'" {
		t.Errorf("ImplicitDefault(datetime(3)) = %q", got)
	}
	if _, ok := ImplicitDefault(&Column{DataType: "point"}); ok {
		t.Error("ImplicitDefault(point): want none")
	}
}

func TestBindDecimalTyped(t *testing.T) {
	o := &Column{DataType: "decimal", ColumnType: "decimal(12,3) unsigned"}
	if got := BindAsOriginal(o, &Column{DataType: "year", ColumnType: "year(4)"}); got != "CAST(? AS decimal(12,3))" {
		t.Errorf("BindAsOriginal(decimal -> year) = %q", got)
	}
}

// On MySQL a number becoming JSON is its text parsed as JSON, as MySQL's ALTER converts it (a
// DECIMAL 2.500 is the JSON 2.5); a YEAR's text has four digits. In the copy and in the applier,
// whose FLOAT/DOUBLE is typed in a derived table's column first.
func TestConvertExprNumberToJSON(t *testing.T) {
	js := &Column{DataType: "json"}
	cases := []struct {
		o    *Column
		v    string
		want string
	}{
		{&Column{DataType: "decimal"}, "`c`", "CAST(CAST(`c` AS CHAR CHARACTER SET utf8mb4) AS JSON)"},
		{&Column{DataType: "int"}, "?", "CAST(CAST(? AS CHAR CHARACTER SET utf8mb4) AS JSON)"},
		{&Column{DataType: "year"}, "`y`", "CAST(CAST(LPAD(`y`, 4, '0') AS CHAR CHARACTER SET utf8mb4) AS JSON)"},
		{&Column{DataType: "bit"}, "`b`", "`b`"},
		{&Column{DataType: "varchar"}, "`s`", "`s`"},
	}
	for _, c := range cases {
		if got := ConvertExpr(c.o, js, c.v, true); got != c.want {
			t.Errorf("%s -> json: got %s, want %s", c.o.DataType, got, c.want)
		}
	}
	want := "(SELECT CAST(CAST(gl_f.x AS CHAR CHARACTER SET utf8mb4) AS JSON) FROM (SELECT CAST(? AS DOUBLE) AS x) AS gl_f)"
	if got := FloatValueExpr(&Column{DataType: "double"}, js, true); got != want {
		t.Errorf("applier's DOUBLE -> json: got %s, want %s", got, want)
	}
}

// The applier types a FLOAT or DOUBLE in a derived table's column where the copy's conversion
// reads the column's text, or reads it twice: its placeholder appears once.
func TestFloatValueExpr(t *testing.T) {
	flt, dbl := &Column{DataType: "float"}, &Column{DataType: "double"}
	cases := []struct {
		o, g  *Column
		mysql bool
		want  string
	}{
		{flt, &Column{DataType: "bigint"}, true, "(SELECT " + floatIntoBigint("gl_f.x") + " FROM (SELECT CAST(? AS FLOAT) AS x) AS gl_f)"},
		{flt, &Column{DataType: "bigint"}, false, "(SELECT " + floatClampBigint("gl_f.x") + " FROM (SELECT CAST(? AS FLOAT) AS x) AS gl_f)"},
		{dbl, &Column{DataType: "bigint"}, true, "?"},
		{dbl, &Column{DataType: "time"}, true, "(SELECT CAST(gl_f.x AS CHAR) FROM (SELECT CAST(? AS DOUBLE) AS x) AS gl_f)"},
		{dbl, &Column{DataType: "time"}, false, "?"},
		{flt, &Column{DataType: "enum"}, true, "(SELECT CAST(gl_f.x AS CHAR) FROM (SELECT CAST(? AS FLOAT) AS x) AS gl_f)"},
		{flt, &Column{DataType: "varchar"}, false, "(SELECT CAST(gl_f.x AS CHAR) FROM (SELECT CAST(? AS FLOAT) AS x) AS gl_f)"},
		{&Column{DataType: "int"}, &Column{DataType: "enum"}, true, "?"},
	}
	for _, c := range cases {
		got := FloatValueExpr(c.o, c.g, c.mysql)
		if got != c.want {
			t.Errorf("FloatValueExpr(%s -> %s, mysql %v) = %s, want %s", c.o.DataType, c.g.DataType, c.mysql, got, c.want)
		}
		if n := strings.Count(got, "?"); n != 1 {
			t.Errorf("FloatValueExpr(%s -> %s): %d placeholders", c.o.DataType, c.g.DataType, n)
		}
	}
}
