package checksum

import (
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

func TestConversion(t *testing.T) {
	col := func(dataType, columnType, charset string, frac int) *table.Column {
		return &table.Column{Name: "c", DataType: dataType, ColumnType: columnType, Charset: charset, FracDigits: frac}
	}
	cases := []struct {
		o, g      *table.Column
		expr, why string // why: a word of the reason it is not compared
	}{
		{col("int", "int(11)", "", 0), col("int", "int(11)", "", 0), "`c`", ""},
		{col("int", "int(11)", "", 0), col("bigint", "bigint(20)", "", 0), "`c`", ""},
		{col("int", "int(11)", "", 0), col("int", "int(11) zerofill", "", 0), "", "type changes"},
		{col("varchar", "varchar(20)", "latin1", 0), col("varchar", "varchar(40)", "utf8mb4", 0), "CONVERT(`c` USING utf8mb4)", ""},
		{col("varchar", "varchar(20)", "utf8mb4", 0), col("char", "char(20)", "utf8mb4", 0), "TRIM(TRAILING ' ' FROM `c`)", ""},
		{col("decimal", "decimal(10,2)", "", 0), col("decimal", "decimal(12,4) unsigned", "", 0), "CAST(`c` AS DECIMAL(12,4))", ""},
		{col("datetime", "datetime", "", 0), col("datetime", "datetime(3)", "", 3), "CAST(`c` AS DATETIME(3))", ""},
		{col("datetime", "datetime(3)", "", 3), col("datetime", "datetime", "", 0), "", "type changes"},
		{col("int", "int(11)", "", 0), col("varchar", "varchar(20)", "utf8mb4", 0), "", "type changes"},
		{col("float", "float", "", 0), col("double", "double", "", 0), "", "type changes"},
	}
	for _, c := range cases {
		expr, why := conversion(c.o, c.g, "`c`")
		if expr != c.expr || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("%s -> %s: (%q, %q), want (%q, ...%q...)", c.o.ColumnType, c.g.ColumnType, expr, why, c.expr, c.why)
		}
	}
}

// A NULL and an empty string hash apart: each row carries a NULL marker per column.
func TestRowExprMarksNulls(t *testing.T) {
	e := rowExpr([]compared{{orig: "`a`", origNullable: "`a`", ghost: "`b`", ghostNull: "`b`"}}, true)
	if !strings.Contains(e, "ISNULL(`b`)") || !strings.Contains(e, "CAST(`b` AS BINARY)") {
		t.Errorf("row expression %s", e)
	}
}

// A column NOT NULL on both sides has no NULL marker (always 0); numbers and times are hashed
// without a cast to bytes, text with one.
func TestRowExprLeavesOutConstants(t *testing.T) {
	e := rowExpr([]compared{
		{orig: "`a`", origNullable: "`a`", ghost: "`a`", ghostNull: "`a`", notNull: true, plain: true},
		{orig: "`b`", origNullable: "`b`", ghost: "`b`", ghostNull: "`b`", notNull: true},
	}, false)
	if e != "CRC32(CONCAT_WS('|', `a`, CAST(`b` AS BINARY)))" {
		t.Errorf("row expression %s", e)
	}
}
