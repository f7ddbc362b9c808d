package migrator

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const flagFilesDB = "gl_flagfiles"

// TestPostponeThenPanicFlagFile: the cut-over waits while the postpone flag file exists (state
// "postponed" in the changelog); the panic flag file then aborts the run with ErrPanicFlag, the
// original untouched and the ghost and changelog dropped.
func TestPostponeThenPanicFlagFile(t *testing.T) {
	db := testenv.Table(t, flagFilesDB, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO t SELECT seq, seq FROM seq_1_to_2000")

	cfg := configtest.Config(t, flagFilesDB, "t", "ADD COLUMN c INT NULL", nil)
	postpone(t, &cfg)
	panicFile := filepath.Join(t.TempDir(), "panic")
	cfg.PanicFlagFile = panicFile
	done := runMigration(t, cfg)

	// Wait for the postponed state, the run still going.
	waitPostponed(t, db, done)
	// While postponed, changes keep being applied; then panic.
	testenv.Exec(t, db, "UPDATE t SET v = v + 1 WHERE id <= 10")
	_, before := testenv.Checksum(t, db, flagFilesDB, "t", []string{"id", "v"}, "id")
	if err := os.WriteFile(panicFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 30*time.Second); !errors.Is(err, ErrPanicFlag) {
		t.Fatalf("run ended with %v, want ErrPanicFlag", err)
	}
	_, after := testenv.Checksum(t, db, flagFilesDB, "t", []string{"id", "v"}, "id")
	if after != before {
		t.Fatal("the original table changed after a panic")
	}
	if left := testenv.TableNames(t, db, flagFilesDB, "_t_"); len(left) != 0 {
		t.Fatalf("helper tables left after a panic: %v", left)
	}
}
