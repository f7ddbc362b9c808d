package checkpoint

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
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
