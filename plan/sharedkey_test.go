package plan

import (
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// A shared key column is accepted only when its conversion cannot make two distinct keys equal, or
// when it is a CHAR/VARCHAR whose rows are then addressed by their exact bytes (ComparedByBytes:
// every other character set or collation).
func TestKeyColumnConversion(t *testing.T) {
	col := func(columnType, collation string) *table.Column {
		c := &table.Column{Name: "k", ColumnType: columnType, DataType: columnType, Unsigned: strings.HasSuffix(columnType, " unsigned")}
		if i := strings.IndexAny(columnType, "( "); i >= 0 {
			c.DataType = columnType[:i]
		}
		if collation != "" {
			c.Collation, c.Charset = collation, strings.SplitN(collation, "_", 2)[0]
		}
		if c.DataType == "enum" || c.DataType == "set" {
			c.EnumValues = table.ParseEnumValues(columnType)
		}
		if i := strings.IndexByte(columnType, '('); i >= 0 && (c.DataType == "datetime" || c.DataType == "time" || c.DataType == "timestamp") {
			c.FracDigits, _ = typeArgs(columnType)
		}
		return c
	}
	cases := []struct {
		from, fromColl, to, toColl string
		injective                  bool // accepted (by bytes or not)
	}{
		{"int(11)", "", "int(11)", "", true},
		{"int(11)", "", "bigint(20)", "", true},
		{"smallint(5) unsigned", "", "int(11)", "", true},
		{"int(10) unsigned", "", "bigint(20) unsigned", "", true},
		// Any integer type into another: a value keeps its value or is refused (strict copy and
		// applier), so no two keys merge.
		{"int(10) unsigned", "", "int(11)", "", true},
		{"int(11)", "", "int(10) unsigned", "", true},
		{"int(11)", "", "bigint(20) unsigned", "", true},
		{"bigint(20)", "", "int(11)", "", true},
		{"int(11)", "", "varchar(20)", "utf8mb4_bin", false},
		{"varchar(10)", "utf8mb4_bin", "varchar(20)", "utf8mb4_bin", true},
		{"varchar(10)", "utf8mb4_bin", "varchar(10)", "utf8mb4_general_ci", true},
		{"varchar(10)", "utf8mb3_general_ci", "varchar(10)", "utf8mb4_general_ci", true}, // CONVERT TO utf8mb4
		{"varchar(10)", "utf8mb3_bin", "varchar(10)", "utf8mb4_bin", true},
		{"varchar(10)", "utf8mb3_general_ci", "varchar(10)", "utf8mb4_unicode_ci", true},
		// A binary collation tells apart whatever the original's did: keys stay distinct.
		{"varchar(10)", "utf8mb3_general_ci", "varchar(10)", "utf8mb4_bin", true},
		{"varchar(10)", "utf8mb3_general_ci", "varchar(10)", "utf8mb4_0900_bin", true},
		{"varchar(10)", "utf8mb3_bin", "varchar(10)", "utf8mb4_nopad_bin", true},
		{"varchar(10)", "latin1_swedish_ci", "varchar(10)", "utf8mb4_bin", true},
		{"varchar(10)", "latin1_swedish_ci", "varchar(10)", "latin1_bin", true},
		{"varchar(10)", "utf8mb4_0900_ai_ci", "varchar(10)", "utf8mb4_0900_bin", true},
		{"varchar(10)", "utf8mb4_general_ci", "varchar(10)", "utf8mb4_bin", true},
		// NO PAD into PAD SPACE: 'a' and 'a ' differ in the original, are equal in the ghost (by bytes).
		{"varchar(10)", "utf8mb4_0900_ai_ci", "varchar(10)", "utf8mb4_bin", true},
		{"varchar(10)", "utf8mb4_nopad_bin", "varchar(10)", "utf8mb4_bin", true},
		// The utf8mb4 defaults of MySQL and MariaDB 11.8 equate 'ss' and 'ß', which utf8mb3_general_ci
		// tells apart; a _bin original is finer than any _ci: addressed by bytes.
		{"varchar(10)", "utf8mb3_general_ci", "varchar(10)", "utf8mb4_0900_ai_ci", true},
		{"varchar(10)", "utf8mb3_general_ci", "varchar(10)", "utf8mb4_uca1400_ai_ci", true},
		{"varchar(10)", "utf8mb3_bin", "varchar(10)", "utf8mb4_0900_ai_ci", true},
		{"varchar(10)", "latin1_bin", "varchar(10)", "utf8mb4_0900_ai_ci", true},
		{"varchar(10)", "utf8mb4_general_ci", "varchar(10)", "utf8mb3_bin", true}, // a narrower character set: a character it lacks fails, as in the ALTER
		{"varchar(10)", "gbk_chinese_ci", "varchar(10)", "utf8mb4_bin", true},
		{"varchar(10)", "utf8mb4_general_ci", "varchar(10)", "utf8mb3_general_ci", true},
		{"varchar(10)", "latin1_swedish_ci", "varchar(10)", "utf8mb4_general_ci", true},
		{"varchar(10)", "utf8mb4_bin", "varchar(5)", "utf8mb4_bin", false},
		{"varchar(10)", "utf8mb4_bin", "char(10)", "utf8mb4_bin", false},
		{"varchar(10)", "utf8mb4_general_ci", "int(11)", "", false},
		{"varbinary(16)", "", "varbinary(32)", "", true},
		{"binary(16)", "", "varbinary(16)", "", false},
		{"decimal(10,2)", "", "decimal(12,4)", "", true},
		{"decimal(10,2)", "", "decimal(10,1)", "", false},
		{"decimal(10,2)", "", "decimal(10,4)", "", false},
		{"decimal(10,2) unsigned", "", "decimal(10,2)", "", true},
		{"datetime(6)", "", "datetime", "", false},
		{"datetime", "", "datetime(3)", "", true},
		{"datetime(6)", "", "timestamp(6)", "", false},
		{"date", "", "datetime", "", false},
		{"enum('a','b')", "utf8mb4_general_ci", "enum('b','a')", "utf8mb4_general_ci", true},
		{"enum('b','c')", "utf8mb4_general_ci", "enum('a','b','c')", "utf8mb4_general_ci", true},
		{"enum('a','b')", "utf8mb4_general_ci", "enum('a')", "utf8mb4_general_ci", false},
		{"enum('a','b')", "utf8mb4_general_ci", "enum('A','b')", "utf8mb4_general_ci", true}, // one member under the collation
		{"enum('a','b')", "utf8mb4_general_ci", "enum('c','b')", "utf8mb4_general_ci", false},
		{"enum('a','b')", "utf8mb4_bin", "enum('a','b')", "utf8mb4_general_ci", false},
		{"set('x','y')", "utf8mb4_general_ci", "set('w','x','z','y')", "utf8mb4_general_ci", true},
		{"set('x','y')", "utf8mb4_general_ci", "set('y','x')", "utf8mb4_general_ci", false}, // 'x,y' would become 'y,x'
		{"set('x','y')", "utf8mb4_general_ci", "set('w','y','x')", "utf8mb4_general_ci", false},
		{"set('x','y')", "utf8mb4_general_ci", "set('x')", "utf8mb4_general_ci", false},
		{"enum('1','2')", "utf8mb4_general_ci", "set('1','2')", "utf8mb4_general_ci", false},
	}
	for _, c := range cases {
		t.Run(c.from+" "+c.fromColl+" -> "+c.to+" "+c.toColl, func(t *testing.T) {
			o, g := col(c.from, c.fromColl), col(c.to, c.toColl)
			why := keyColumnConversion(o, g)
			if (why == "") != c.injective {
				t.Errorf("%s %s -> %s %s: got %q, want accepted=%v", c.from, c.fromColl, c.to, c.toColl, why, c.injective)
			}
			// By bytes exactly when accepted although keys may not stay distinct.
			wantBytes := c.injective && collationChanges(o, g) && !KeysStayDistinct(o, g)
			if got := ComparedByBytes(o, g); got != wantBytes {
				t.Errorf("%s %s -> %s %s: compared by bytes %v, want %v", c.from, c.fromColl, c.to, c.toColl, got, wantBytes)
			}
		})
	}
}

// The plan names the key columns addressed by their bytes and gives the copy their conditions: a
// CHAR/VARCHAR key value compared in the ghost column's collation, and by its bytes where the
// collation change may equate keys.
func TestPlanKeyByBytes(t *testing.T) {
	orig := &table.Table{Schema: "s", Name: "t", Columns: []table.Column{
		{Name: "g", DataType: "int", ColumnType: "int"},
		{Name: "k", DataType: "varchar", ColumnType: "varchar(20)", Charset: "utf8mb3", Collation: "utf8mb3_general_ci"},
	}}
	ghost := &table.Table{Schema: "s", Name: "_t_gho", Columns: []table.Column{
		{Name: "g", DataType: "int", ColumnType: "int"},
		{Name: "k", DataType: "varchar", ColumnType: "varchar(20)", Charset: "utf8mb4", Collation: "utf8mb4_0900_ai_ci"},
	}}
	key := table.Key{Name: "PRIMARY", Columns: []string{"g", "k"}}
	p := &Plan{Original: orig, Ghost: ghost, OriginalKey: key, GhostKey: key,
		Columns: []ColumnPair{{Original: "g", Ghost: "g"}, {Original: "k", Ghost: "k"}}}
	if got := p.GhostKeyByBytes(); len(got) != 1 || got[0] != "k" {
		t.Errorf("GhostKeyByBytes = %v, want [k]", got)
	}
	exprs := p.GhostKeyExprs("o")
	if want := "CONVERT(o.`k` USING utf8mb4) COLLATE utf8mb4_0900_ai_ci"; exprs[1] != want || exprs[0] != "o.`g`" {
		t.Errorf("GhostKeyExprs = %q, want [o.`g` %s]", exprs, want)
	}
	match := p.GhostKeyBytesMatch("o", "g")
	if want := "CAST(g.`k` AS BINARY) = CAST(CONVERT(" + exprs[1] + " USING utf8mb4) AS BINARY)"; match[0] != "" || match[1] != want {
		t.Errorf("GhostKeyBytesMatch = %q, want [\"\" %s]", match, want)
	}
	ghost.Columns[1].Collation = "utf8mb4_general_ci" // keys stay distinct: nothing by bytes
	if got := p.GhostKeyByBytes(); len(got) != 0 {
		t.Errorf("GhostKeyByBytes = %v for utf8mb3_general_ci into utf8mb4_general_ci, want none", got)
	}
}
