package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
)

// A --revert of a set names each table's old table in --old-table, in the order of the
// statements; another count is a usage error naming the list to give.
func TestSetOldTables(t *testing.T) {
	set := func(old string) []config.Config {
		tables := make([]config.Config, 2)
		for i, tbl := range []string{"a", "b"} {
			tables[i].Table, tables[i].Revert, tables[i].OldTableName = tbl, true, old
		}
		return tables
	}
	tables := set("_a_del, _b_del")
	if err := setOldTables(tables); err != nil || tables[0].OldTableName != "_a_del" || tables[1].OldTableName != "_b_del" {
		t.Fatalf("got %v, old tables %q and %q", err, tables[0].OldTableName, tables[1].OldTableName)
	}
	for _, old := range []string{"_a_del", "_a_del,_b_del,_c_del"} {
		err := setOldTables(set(old))
		if !errors.Is(err, config.ErrUsage) || !strings.Contains(err.Error(), "comma-separated in the order of the statements (--old-table=_a_del,_b_del)") {
			t.Errorf("--old-table=%s: got %v", old, err)
		}
	}
	tables = set("")
	if err := setOldTables(tables); err != nil || tables[1].OldTableName != "" {
		t.Errorf("no --old-table: got %v, %q", err, tables[1].OldTableName)
	}
}
