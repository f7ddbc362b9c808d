package checksum

import (
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
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
		{col("int", "int(11)", "", 0), col("varchar", "varchar(20)", "utf8mb4", 0), "CONVERT(`c` USING utf8mb4)", ""},
		{col("int", "int(11) zerofill", "", 0), col("varchar", "varchar(20)", "utf8mb4", 0), "", "type changes"},
		{col("int", "int(11)", "", 0), col("decimal", "decimal(14,2)", "", 0), "CAST(`c` AS DECIMAL(14,2))", ""},
		{col("float", "float", "", 0), col("float", "float", "", 0), "CAST(`c` AS DOUBLE)", ""},
		{col("float", "float", "", 0), col("double", "double", "", 0), "CAST(`c` AS DOUBLE)", ""},
		{col("double", "double", "", 0), col("float", "float", "", 0), "CAST(CAST(`c` AS FLOAT) AS DOUBLE)", ""},
		{col("double", "double", "", 0), col("double", "double(10,2)", "", 0), "", "type changes"},
		{col("float", "float", "", 0), col("varchar", "varchar(30)", "utf8mb4", 0), "CONVERT(`c` USING utf8mb4)", ""},
		{col("varchar", "varchar(30)", "utf8mb4", 0), col("double", "double", "", 0), "CAST(`c` AS DOUBLE)", ""},
		{col("varchar", "varchar(30)", "utf8mb4", 0), col("int", "int(11)", "", 0), "CAST(ROUND(CAST(`c` AS DECIMAL(65,30))) AS SIGNED)", ""},
		{col("double", "double", "", 0), col("bigint", "bigint(20) unsigned", "", 0), "", "type changes"},
		{col("time", "time(2)", "", 2), col("int", "int(11)", "", 0), "CAST(TRUNCATE((`c` + 0), 0) AS SIGNED)", ""},
		{col("time", "time", "", 0), col("time", "time(3)", "", 3), "CAST(`c` AS TIME(3))", ""},
		{col("timestamp", "timestamp", "", 0), col("varbinary", "varbinary(30)", "", 0), "", "type changes"},
		{col("double", "double", "", 0), col("int", "int(10) unsigned", "", 0), "CAST(ROUND(`c`) AS UNSIGNED)", ""},
		{col("decimal", "decimal(12,3)", "", 0), col("int", "int(11)", "", 0), "CAST(ROUND(`c`) AS SIGNED)", ""},
		{col("timestamp", "timestamp", "", 0), col("varchar", "varchar(30)", "utf8mb4", 0), "", "type changes"},
	}
	for _, c := range cases {
		expr, why := conversion(c.o, c.g, "`c`", dbconn.Flavor{MariaDB: true})
		if expr != c.expr || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("%s -> %s: (%q, %q), want (%q, ...%q...)", c.o.ColumnType, c.g.ColumnType, expr, why, c.expr, c.why)
		}
	}
}

// A NULL and an empty string hash apart: each row carries a NULL marker per column; a text value
// is preceded by its length.
func TestRowExprMarksNulls(t *testing.T) {
	e := rowExpr([]compared{{orig: "`a`", origNullable: "`a`", ghost: "`b`", ghostNull: "`b`", cast: true}}, true, dbconn.Flavor{MariaDB: true})
	if !strings.Contains(e, "ISNULL(`b`)") || !strings.Contains(e, "LENGTH(CAST(`b` AS BINARY)), CAST(`b` AS BINARY)") {
		t.Errorf("row expression %s", e)
	}
}

// A column NOT NULL on both sides has no NULL marker (always 0); a column marked cast is hashed
// through a cast to bytes; a number (fixed) has no length; the row's SHA1 (SHA2 on MySQL) is folded to 64 bits.
func TestRowExprLeavesOutConstants(t *testing.T) {
	e := rowExpr([]compared{
		{orig: "`a`", origNullable: "`a`", ghost: "`a`", ghostNull: "`a`", notNull: true, fixed: true},
		{orig: "`b`", origNullable: "`b`", ghost: "`b`", ghostNull: "`b`", notNull: true, cast: true},
	}, false, dbconn.Flavor{MariaDB: true})
	if e != "CAST(CONV(LEFT(SHA1(CONCAT_WS(',', `a`, LENGTH(CAST(`b` AS BINARY)), CAST(`b` AS BINARY))), 16), 16, 10) AS UNSIGNED)" {
		t.Errorf("row expression %s", e)
	}
	// MySQL 9.7 has no SHA1: SHA2 there
	if e := rowExpr([]compared{{orig: "`a`", origNullable: "`a`", notNull: true, fixed: true}}, false, dbconn.Flavor{}); e != "CAST(CONV(LEFT(SHA2(CONCAT_WS(',', `a`), 256), 16), 16, 10) AS UNSIGNED)" {
		t.Errorf("MySQL row expression %s", e)
	}
}

// Numbers (FLOAT too), dates and byte strings are never cast; of the text columns whose character set stays
// the same, those of the most common collation pair are not cast, every other text column is.
func TestPlanCastsOnlyOtherCollations(t *testing.T) {
	col := func(name, dataType, charset, collation string) table.Column {
		return table.Column{Name: name, DataType: dataType, ColumnType: dataType, Charset: charset, Collation: collation}
	}
	orig := &table.Table{Columns: []table.Column{
		col("n", "int", "", ""), col("d", "datetime", "", ""), col("b", "varbinary", "", ""),
		col("t1", "varchar", "utf8mb4", "utf8mb4_general_ci"), col("t2", "text", "utf8mb4", "utf8mb4_general_ci"),
		col("t3", "varchar", "utf8mb4", "utf8mb4_unicode_ci"), col("t4", "varchar", "latin1", "latin1_swedish_ci"),
		col("f", "float", "", ""),
	}}
	ghost := &table.Table{Columns: []table.Column{
		col("n", "int", "", ""), col("d", "datetime", "", ""), col("b", "varbinary", "", ""),
		col("t1", "varchar", "utf8mb4", "utf8mb4_general_ci"), col("t2", "text", "utf8mb4", "utf8mb4_general_ci"),
		col("t3", "varchar", "utf8mb4", "utf8mb4_unicode_ci"), col("t4", "varchar", "utf8mb4", "utf8mb4_general_ci"),
		col("f", "float", "", ""),
	}}
	var pairs []Pair
	for _, c := range orig.Columns {
		pairs = append(pairs, Pair{Original: c.Name, Ghost: c.Name})
	}
	cols, _, err := plan(orig, ghost, pairs, dbconn.Flavor{MariaDB: true})
	if err != nil {
		t.Fatal(err)
	}
	var cast []string
	for _, c := range cols {
		if c.cast {
			cast = append(cast, c.name)
		}
	}
	if got := strings.Join(cast, ","); got != "t3,t4" {
		t.Errorf("cast columns %s, want t3,t4", got)
	}
}

// The rules that differ by flavor (each found by TestChecksumMatrix on that server): a TIME's or
// DATETIME's fraction is cut into an integer on MariaDB, rounded on MySQL; a FLOAT -> BIGINT is
// left out on MySQL (its ALTER stores -2^63 for 3.4e38, without an error); a converted DOUBLE is
// read as JSON on both sides on MySQL (a DOUBLE expression's text is at most 22 characters there).
func TestConversionByFlavor(t *testing.T) {
	col := func(name, dataType, columnType string) table.Column {
		return table.Column{Name: name, DataType: dataType, ColumnType: columnType, Nullable: true}
	}
	orig := &table.Table{Columns: []table.Column{col("tm", "time", "time(2)"), col("f", "float", "float"), col("i", "int", "int")}}
	ghost := &table.Table{Columns: []table.Column{col("tm", "int", "int"), col("f", "bigint", "bigint"), col("i", "double", "double")}}
	pairs := []Pair{{Original: "tm", Ghost: "tm"}, {Original: "f", Ghost: "f"}, {Original: "i", Ghost: "i"}}
	for _, c := range []struct {
		flavor  dbconn.Flavor
		want    []string // orig|ghost of each compared column
		skipped int
	}{
		{dbconn.Flavor{MariaDB: true}, []string{"CAST(TRUNCATE((`tm` + 0), 0) AS SIGNED)|`tm`", "CAST(ROUND(`f`) AS SIGNED)|`f`", "CAST(`i` AS DOUBLE)|`i`"}, 0},
		{dbconn.Flavor{Major: 9, Minor: 7}, []string{"CAST(ROUND((`tm` + 0)) AS SIGNED)|`tm`", "CAST(CAST(`i` AS DOUBLE) AS JSON)|CAST(`i` AS JSON)"}, 1},
	} {
		cols, skip, err := plan(orig, ghost, pairs, c.flavor)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, cc := range cols {
			got = append(got, cc.orig+"|"+cc.ghost)
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") || len(skip) != c.skipped {
			t.Errorf("%s: compared %q, %d left out; want %q, %d", c.flavor, got, len(skip), c.want, c.skipped)
		}
	}
}
