package copier

import (
	"database/sql"
	"reflect"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

func testKeyRange(t *testing.T) *keyRange {
	t.Helper()
	orig := &table.Table{Schema: "s", Name: "t", Columns: []table.Column{
		{Name: "a", DataType: "int", ColumnType: "int(10) unsigned", Unsigned: true},
		{Name: "b", DataType: "varchar", ColumnType: "varchar(10)", Charset: "utf8mb4", Collation: "utf8mb4_general_ci"},
		{Name: "c", DataType: "decimal", ColumnType: "decimal(10,2) unsigned"},
		{Name: "d", DataType: "text"},
	}}
	// The migrator's Plan maps c to c2 (TestCopierConfigColumnLists checks the lists it builds).
	cfg := &Config{Original: orig, OriginalKey: table.Key{Name: "k", Columns: []string{"a", "b", "c"}}, GhostTable: "_t_gho",
		GhostColumns: []string{"a", "b", "c2", "d"}, SelectExprs: []string{"`a`", "`b`", "`c`", "`d`"}}
	k, err := newKeyRange(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeyRangeCompare(t *testing.T) {
	k := testKeyRange(t)
	vals := []sql.RawBytes{sql.RawBytes("7"), sql.RawBytes("x"), sql.RawBytes("1.50")}
	got, args := k.compare(vals, false, true)
	want := "(`a` > ?) OR (`a` = ? AND `b` > CONVERT(? USING utf8mb4) COLLATE utf8mb4_general_ci) OR " +
		"(`a` = ? AND `b` = CONVERT(? USING utf8mb4) COLLATE utf8mb4_general_ci AND `c` > CAST(? AS DECIMAL(10,2)))"
	if got != want {
		t.Fatalf("compare:\n got %s\nwant %s", got, want)
	}
	wantArgs := []any{uint64(7), uint64(7), []byte("x"), uint64(7), []byte("x"), "1.50"}
	if !reflect.DeepEqual(args, wantArgs) {
		t.Fatalf("args: got %#v want %#v", args, wantArgs)
	}
	got, _ = k.compare(vals, true, false)
	if want := "(`a` < ?) OR (`a` = ? AND `b` < CONVERT(? USING utf8mb4) COLLATE utf8mb4_general_ci) OR " +
		"(`a` = ? AND `b` = CONVERT(? USING utf8mb4) COLLATE utf8mb4_general_ci AND `c` <= CAST(? AS DECIMAL(10,2)))"; got != want {
		t.Fatalf("inclusive upper:\n got %s\nwant %s", got, want)
	}
}

func TestKeyRangeCopySQL(t *testing.T) {
	k := testKeyRange(t)
	lo := []sql.RawBytes{sql.RawBytes("1"), sql.RawBytes("a"), sql.RawBytes("0")}
	q, args := k.copySQL(lo, true, lo)
	want := "INSERT IGNORE INTO `s`.`_t_gho` (`a`, `b`, `c2`, `d`) SELECT `a`, `b`, `c`, `d` FROM `s`.`t` FORCE INDEX (`k`) WHERE ("
	if len(q) < len(want) || q[:len(want)] != want {
		t.Fatalf("copy SQL starts %q", q)
	}
	if len(args) != 12 {
		t.Fatalf("copy SQL has %d args, want 12", len(args))
	}
}

// The missing-row count matches the ghost's key through the expressions the copy writes it with.
func TestKeyRangeMissingSQL(t *testing.T) {
	k := testKeyRange(t)
	k.cfg.GhostKey = table.Key{Name: "gk", Columns: []string{"a", "c2"}}
	k.cfg.GhostKeyExprs = []string{"`s`.`t`.`a`", "`s`.`t`.`c`"}
	lo := []sql.RawBytes{sql.RawBytes("1"), sql.RawBytes("a"), sql.RawBytes("0")}
	q, args := k.missingSQL(lo, false, lo)
	want := " AND NOT EXISTS (SELECT 1 FROM `s`.`_t_gho` AS g WHERE g.`a` = `s`.`t`.`a` AND g.`c2` = `s`.`t`.`c`)"
	if !strings.HasPrefix(q, "SELECT COUNT(*) FROM `s`.`t` FORCE INDEX (`k`) WHERE (") || !strings.HasSuffix(q, want) {
		t.Errorf("missing-row SQL: %s", q)
	}
	if len(args) != 12 {
		t.Errorf("missing-row SQL has %d args, want 12", len(args))
	}
}

func TestKeyRangeRefusesUnorderableKeys(t *testing.T) {
	cfg := &Config{Original: &table.Table{Name: "t", Columns: []table.Column{{Name: "b", DataType: "bit"}}},
		OriginalKey: table.Key{Name: "k", Columns: []string{"b"}}}
	if _, err := newKeyRange(cfg); err == nil {
		t.Fatal("a BIT shared key was accepted for chunking")
	}
}

func TestDuplicateKeyName(t *testing.T) {
	cases := map[string]string{
		"Duplicate entry '5' for key 'u'":             "u",
		"Duplicate entry 'a-b' for key 'tbl.PRIMARY'": "PRIMARY",
		"something else":                              "",
	}
	for msg, want := range cases {
		if got := duplicateKeyName(msg); got != want {
			t.Errorf("duplicateKeyName(%q) = %q, want %q", msg, got, want)
		}
	}
}
