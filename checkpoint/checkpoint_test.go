package checkpoint

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Records round-trip exactly (binary key values included), only the last one is kept, and an
// empty table says ErrNone.
func TestWriteAndLast(t *testing.T) {
	db := testenv.Database(t, "gl_checkpoint")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	testenv.Exec(t, db, DDL("gl_checkpoint", "_t_ghk"))
	if _, err := Last(ctx, db, "gl_checkpoint", "_t_ghk"); !errors.Is(err, ErrNone) {
		t.Fatalf("empty table: %v, want ErrNone", err)
	}
	first := Record{File: "binlog.000003", Pos: 4567, GTID: "0-1-42"}
	if err := Write(ctx, db, "gl_checkpoint", "_t_ghk", first); err != nil {
		t.Fatal(err)
	}
	got, err := Last(ctx, db, "gl_checkpoint", "_t_ghk")
	if err != nil || got.File != first.File || got.Pos != first.Pos || got.GTID != first.GTID || got.Key != nil {
		t.Fatalf("first record read back as %+v (%v)", got, err)
	}
	second := Record{File: "binlog.000004", Pos: 99, Key: []sql.RawBytes{sql.RawBytes("12"), {0, 0xff, '"', 0}}, RowsCopied: 7, EventsApplied: 3}
	if err := Write(ctx, db, "gl_checkpoint", "_t_ghk", second); err != nil {
		t.Fatal(err)
	}
	got, err = Last(ctx, db, "gl_checkpoint", "_t_ghk")
	if err != nil || got.File != second.File || got.Pos != 99 || got.RowsCopied != 7 || got.EventsApplied != 3 ||
		len(got.Key) != 2 || !bytes.Equal(got.Key[0], second.Key[0]) || !bytes.Equal(got.Key[1], second.Key[1]) {
		t.Fatalf("second record read back as %+v (%v)", got, err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM gl_checkpoint._t_ghk").Scan(&n); err != nil || n != 1 {
		t.Errorf("%d records kept (%v), want 1", n, err)
	}
	logs, err := BinaryLogs(ctx, db)
	if err != nil || len(logs) == 0 {
		t.Fatalf("binary logs: %v, %v", logs, err)
	}
	if slices.Contains(logs, "binlog.999999") {
		t.Error("a binary log that does not exist is listed")
	}
}

// A cut-over record's Swap and a record's Alter round-trip (a column name in any charset
// included); a table made before the swap and alter columns existed reads as records without a
// Swap or an Alter, and Upgrade adds the columns.
func TestSwapAndUpgrade(t *testing.T) {
	db := testenv.Database(t, "gl_checkpoint")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	testenv.Exec(t, db, DDL("gl_checkpoint", "_s_ghk"))
	swap := &Swap{Ghost: "_s_gho", Old: "_s_del", Renames: map[string]string{"a": "b", "größe": "Size"}}
	alter := &Alter{Alter: "CHANGE `A` `B` `INT` , ADD `C` `VARCHAR` ( 3 ) DEFAULT 'ü''x'", CopiedFrom: map[string]string{"b": "a", "größe": "Größe"}}
	if err := Write(ctx, db, "gl_checkpoint", "_s_ghk", Record{File: "binlog.000001", Pos: 4, CutOver: true, Swap: swap, Alter: alter}); err != nil {
		t.Fatal(err)
	}
	got, err := Last(ctx, db, "gl_checkpoint", "_s_ghk")
	if err != nil || !got.CutOver || got.Swap == nil || !reflect.DeepEqual(*got.Swap, *swap) {
		t.Fatalf("cut-over record read back as %+v, swap %+v (%v), want swap %+v", got, got.Swap, err, swap)
	}
	if got.Alter == nil || !reflect.DeepEqual(*got.Alter, *alter) {
		t.Fatalf("alter read back as %+v, want %+v", got.Alter, alter)
	}
	if err := Write(ctx, db, "gl_checkpoint", "_s_ghk", Record{File: "binlog.000001", Pos: 8, CutOver: true, Swap: &Swap{Ghost: "g", Old: "o"}}); err != nil {
		t.Fatal(err)
	}
	if got, err = Last(ctx, db, "gl_checkpoint", "_s_ghk"); err != nil || got.Swap == nil || got.Swap.Renames == nil || len(got.Swap.Renames) != 0 {
		t.Fatalf("a swap without renames read back as %+v (%v), want an empty, non-nil Renames", got.Swap, err)
	}

	// An older table: the DDL without the swap and alter columns.
	testenv.Exec(t, db, DDL("gl_checkpoint", "_o_ghk"), "ALTER TABLE gl_checkpoint._o_ghk DROP COLUMN "+swapColumn+", DROP COLUMN "+alterColumn,
		"INSERT INTO gl_checkpoint._o_ghk (binlog_file, binlog_pos, gtid, rows_copied, events_applied, is_cutover) VALUES ('binlog.000002', 5, '', 0, 0, 1)")
	got, err = Last(ctx, db, "gl_checkpoint", "_o_ghk")
	if err != nil || got.File != "binlog.000002" || got.Pos != 5 || !got.CutOver || got.Swap != nil || got.Alter != nil {
		t.Fatalf("older table's record read back as %+v, swap %v (%v), want the record without a swap", got, got.Swap, err)
	}
	for range 2 { // the second Upgrade finds the column and does nothing
		if err := Upgrade(ctx, db, "gl_checkpoint", "_o_ghk"); err != nil {
			t.Fatalf("upgrade: %v", err)
		}
	}
	if err := Write(ctx, db, "gl_checkpoint", "_o_ghk", Record{File: "binlog.000002", Pos: 9, CutOver: true, Swap: swap, Alter: alter}); err != nil {
		t.Fatalf("write to the upgraded table: %v", err)
	}
	if got, err = Last(ctx, db, "gl_checkpoint", "_o_ghk"); err != nil || got.Swap == nil || !reflect.DeepEqual(*got.Swap, *swap) || got.Alter == nil || !reflect.DeepEqual(*got.Alter, *alter) {
		t.Fatalf("upgraded table's record read back with swap %+v, alter %+v (%v)", got.Swap, got.Alter, err)
	}
}
