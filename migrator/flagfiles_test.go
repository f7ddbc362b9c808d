package migrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const flagFilesDB = "gl_flagfiles"

// TestPostponeThenPanicFlagFile: the cut-over waits while the postpone flag file exists (state
// "postponed" in the changelog); the panic flag file then aborts the run with ErrPanicFlag, the
// original untouched and the ghost and changelog dropped.
func TestPostponeThenPanicFlagFile(t *testing.T) {
	db := testenv.Database(t, flagFilesDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO t SELECT seq, seq FROM seq_1_to_2000")
	_, before := testenv.Checksum(t, db, flagFilesDB, "t", []string{"id", "v"}, "id")

	dir := t.TempDir()
	postpone, panicFile := filepath.Join(dir, "postpone"), filepath.Join(dir, "panic")
	if err := os.WriteFile(postpone, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Conn = testenv.PrimaryConfig()
	cfg.Database, cfg.Table, cfg.Alter = flagFilesDB, "t", "ADD COLUMN c INT NULL"
	cfg.AllowOnMaster, cfg.Execute = true, true
	cfg.ReplicaServerID = 77001
	cfg.PostponeCutOverFlagFile, cfg.PanicFlagFile = postpone, panicFile
	cfg.FlagFileInterval = 10 * time.Millisecond
	cfg.Logger = zerolog.New(zerolog.NewTestWriter(t))
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()

	// Wait for the postponed state, the run still going.
	waitPostponed(t, db, done)
	// While postponed, changes keep being applied; then panic.
	testenv.Exec(t, db, "UPDATE t SET v = v + 1 WHERE id <= 10")
	_, before = testenv.Checksum(t, db, flagFilesDB, "t", []string{"id", "v"}, "id")
	if err := os.WriteFile(panicFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrPanicFlag) {
			t.Fatalf("run ended with %v, want ErrPanicFlag", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not stop after the panic flag file appeared")
	}
	_, after := testenv.Checksum(t, db, flagFilesDB, "t", []string{"id", "v"}, "id")
	if after != before {
		t.Fatal("the original table changed after a panic")
	}
	if left := testenv.TableNames(t, db, flagFilesDB, "_t_"); len(left) != 0 {
		t.Fatalf("helper tables left after a panic: %v", left)
	}
}

func isMissingTable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1146
}
