package checkpoint

import (
	"bytes"
	"context"
	"database/sql"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// fakeCopy is a copy that has copied rows up to key.
type fakeCopy struct {
	key  []sql.RawBytes
	rows int64
}

func (c fakeCopy) CompleteUpTo() []sql.RawBytes { return c.key }
func (c fakeCopy) Copied() int64                { return c.rows }

// writerFor is a Writer on schema._w_ghk (created) whose applier stands at binlog.000007:1234.
func writerFor(t *testing.T, db *sql.DB, schema string) *Writer {
	t.Helper()
	testenv.Exec(t, db, DDL(schema, "_w_ghk"))
	return &Writer{
		DB: db, Schema: schema, Table: "_w_ghk", Interval: 5 * time.Millisecond,
		Due:     func() bool { return true },
		Applied: func() (Position, int64) { return Position{File: "binlog.000007", Pos: 1234, GTID: "0-1-9"}, 42 },
		Copy:    func() Copy { return nil },
		From:    []sql.RawBytes{sql.RawBytes("17")},
		Alter:   AlterOf("ADD COLUMN `C` INT", map[string]string{"ID": "Id", "c": "c"}, nil),
		Log:     testenv.Logger(t, nil),
	}
}

// Run writes only while Due says so, and each record is the applied position and, before the copy
// starts, the key a resumed copy starts above; once it has started, how far it is complete.
func TestWriterRun(t *testing.T) {
	db := testenv.Database(t, "gl_checkpoint_writer")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := writerFor(t, db, "gl_checkpoint_writer")
	var asked atomic.Int64
	w.Due = func() bool { return asked.Add(1) > 3 } // not due at the first three ticks
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	waitWritten(ctx, t, w)
	if n := asked.Load(); n < 4 {
		t.Errorf("a checkpoint was written after %d ticks, want none before the fourth (not due)", n)
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("Run returned %v, want nil", err)
	}
	rec, err := Last(ctx, db, "gl_checkpoint_writer", "_w_ghk")
	if err != nil || rec.File != "binlog.000007" || rec.Pos != 1234 || rec.GTID != "0-1-9" || rec.EventsApplied != 42 || rec.RowsCopied != 0 ||
		len(rec.Key) != 1 || string(rec.Key[0]) != "17" || rec.CutOver || rec.Swap != nil {
		t.Fatalf("record %+v (%v), want the applied position and the resume key", rec, err)
	}
	if rec.Alter == nil || rec.Alter.Alter != "ADD COLUMN `C` INT" || rec.Alter.CopiedFrom["id"] != "id" || len(rec.Alter.CopiedFrom) != 2 {
		t.Errorf("alter %+v, want the ALTER and its column mapping in lower case", rec.Alter)
	}

	w.Copy = func() Copy { return fakeCopy{key: []sql.RawBytes{{0, 0xff}}, rows: 99} }
	if err := w.Write(ctx); err != nil {
		t.Fatal(err)
	}
	rec, err = Last(ctx, db, "gl_checkpoint_writer", "_w_ghk")
	if err != nil || rec.RowsCopied != 99 || len(rec.Key) != 1 || !bytes.Equal(rec.Key[0], []byte{0, 0xff}) {
		t.Fatalf("record %+v (%v), want the copy's key and count", rec, err)
	}
}

// The cut-over checkpoint is marked, says what the swap did, and does not count as a checkpoint a
// --resume could continue from.
func TestWriterCutOver(t *testing.T) {
	db := testenv.Database(t, "gl_checkpoint_writer")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w := writerFor(t, db, "gl_checkpoint_writer")
	w.Copy = func() Copy { return fakeCopy{key: []sql.RawBytes{sql.RawBytes("2000")}, rows: 2000} }
	at := Position{File: "binlog.000008", Pos: 77}
	if err := w.WriteCutOver(ctx, at, Swap{Ghost: "_w_gho", Old: "_w_del"}); err != nil {
		t.Fatal(err)
	}
	if w.Written() {
		t.Error("Written after the cut-over checkpoint only, want false")
	}
	rec, err := Last(ctx, db, "gl_checkpoint_writer", "_w_ghk")
	if err != nil || !rec.CutOver || rec.File != at.File || rec.Pos != at.Pos || rec.EventsApplied != 42 || rec.RowsCopied != 2000 ||
		rec.Swap == nil || rec.Swap.Ghost != "_w_gho" || rec.Swap.Old != "_w_del" || rec.Alter == nil || string(rec.Key[0]) != "2000" {
		t.Fatalf("cut-over record %+v, swap %+v (%v)", rec, rec.Swap, err)
	}
}

// waitWritten waits until w has written a checkpoint.
func waitWritten(ctx context.Context, t *testing.T, w *Writer) {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !w.Written() {
		select {
		case <-ctx.Done():
			t.Fatal("no checkpoint written")
		case <-tick.C:
		}
	}
}
