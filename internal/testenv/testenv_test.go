package testenv

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPoll(t *testing.T) {
	n := 0
	if err := Poll(context.Background(), time.Second, time.Millisecond, "third call", func() (bool, error) {
		n++
		return n == 3, nil
	}); err != nil || n != 3 {
		t.Fatalf("Poll: %v after %d calls, want nil after 3", err, n)
	}
	boom := errors.New("boom")
	if err := Poll(context.Background(), time.Second, time.Millisecond, "x", func() (bool, error) { return false, boom }); err != boom {
		t.Fatalf("Poll returned %v, want the condition's error", err)
	}
	start := time.Now()
	err := Poll(context.Background(), 20*time.Millisecond, time.Millisecond, "never", func() (bool, error) { return false, nil })
	if err == nil || !strings.Contains(err.Error(), "never: not reached within 20ms") || time.Since(start) < 20*time.Millisecond {
		t.Fatalf("Poll of a condition never met: %v after %s", err, time.Since(start))
	}
}

func TestLogBuffer(t *testing.T) {
	logs := &LogBuffer{}
	log := Logger(t, logs)
	log.Info().Str("component", "testenv").Msg("hello")
	if !logs.Contains(`"message":"hello"`) || !logs.Contains(`"component":"testenv"`) {
		t.Fatalf("log buffer holds %q", logs.String())
	}
}

func TestTableHelpers(t *testing.T) {
	db := Table(t, "gl_testenv", "CREATE TABLE t (id INT PRIMARY KEY, v INT NULL, s VARCHAR(8))",
		"INSERT INTO t VALUES (2, 20, 'b'), (1, NULL, 'a')")
	if cols := Columns(t, db, "gl_testenv", "t"); !reflect.DeepEqual(cols, []string{"id", "v", "s"}) {
		t.Errorf("columns %v", cols)
	}
	if !HasColumn(t, db, "gl_testenv", "t", "v") || HasColumn(t, db, "gl_testenv", "t", "w") {
		t.Error("HasColumn")
	}
	if got := Existing(t, db, "gl_testenv", "t", "nosuch"); !reflect.DeepEqual(got, map[string]bool{"t": true}) {
		t.Errorf("existing %v", got)
	}
	if n := CountRows(t, db, "gl_testenv", "t"); n != 2 {
		t.Errorf("%d rows", n)
	}
	if got := Int64s(t, db, "gl_testenv", "t", "id", "id"); !reflect.DeepEqual(got, map[int64]int64{1: 1, 2: 2}) {
		t.Errorf("ids %v", got)
	}
	if got := RowsText(t, db, "gl_testenv", "t", "id"); !reflect.DeepEqual(got, []string{"1|NULL|a", "2|20|b"}) {
		t.Errorf("rows %q", got)
	}
}

func TestKillAndWait(t *testing.T) {
	db := Open(t, PrimaryConfig(), "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := KillAndWait(ctx, db, id); err != nil {
		t.Fatal(err)
	}
	if alive, err := InProcesslist(ctx, db, id); err != nil || alive {
		t.Fatalf("connection %d still listed (%v)", id, err)
	}
	if err := KillAndWait(ctx, db, id); err == nil || !strings.Contains(err.Error(), "1094") {
		t.Fatalf("killing a gone connection: %v, want error 1094", err)
	}
}
