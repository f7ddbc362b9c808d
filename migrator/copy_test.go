package migrator

import (
	"reflect"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// The copy writes each ghost column from its original column (c is renamed c2), and matches the
// ghost's key through the same expressions.
func TestCopierConfigColumnLists(t *testing.T) {
	orig := &table.Table{Schema: "s", Name: "t", Columns: []table.Column{
		{Name: "a", DataType: "int", ColumnType: "int(10) unsigned", Unsigned: true},
		{Name: "b", DataType: "varchar", ColumnType: "varchar(10)", Charset: "utf8mb4", Collation: "utf8mb4_general_ci"},
		{Name: "c", DataType: "decimal", ColumnType: "decimal(10,2) unsigned"},
		{Name: "d", DataType: "text"},
	}}
	p := &plan.Plan{Original: orig, OriginalKey: table.Key{Name: "k", Columns: []string{"a", "b", "c"}},
		GhostKey: table.Key{Name: "gk", Columns: []string{"a", "c2", "extra"}}, GhostTable: "_t_gho", EstimatedRows: 42,
		Columns: []plan.ColumnPair{{Original: "a", Ghost: "a"}, {Original: "b", Ghost: "b"}, {Original: "c", Ghost: "c2"}, {Original: "d", Ghost: "d"}}}
	cfg := copierConfig(p)
	if want := []string{"a", "b", "c2", "d"}; !reflect.DeepEqual(cfg.GhostColumns, want) {
		t.Errorf("ghost columns %v, want %v", cfg.GhostColumns, want)
	}
	if want := []string{"`a`", "`b`", "`c`", "`d`"}; !reflect.DeepEqual(cfg.SelectExprs, want) {
		t.Errorf("select expressions %v, want %v", cfg.SelectExprs, want)
	}
	if want := []string{"`s`.`t`.`a`", "`s`.`t`.`c`", "`s`.`t`.`extra`"}; !reflect.DeepEqual(cfg.GhostKeyExprs, want) {
		t.Errorf("ghost key expressions %v, want %v", cfg.GhostKeyExprs, want)
	}
	if cfg.Original != orig || cfg.GhostTable != "_t_gho" || cfg.OriginalKey.Name != "k" || cfg.GhostKey.Name != "gk" || cfg.EstimatedRows != 42 {
		t.Errorf("tables, keys or estimate not carried: %+v", cfg)
	}
}
