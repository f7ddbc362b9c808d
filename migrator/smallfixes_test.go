package migrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// TestCharacterLongNames: the server limits names to 64 characters, not bytes. A 59-character
// Cyrillic table name (118 bytes) has helper names of 64 characters: the dry run used to refuse
// it; the server accepts the ghost and the migration goes through. 60 characters are refused.
func TestCharacterLongNames(t *testing.T) {
	t.Parallel() // a database of its own
	name := strings.Repeat("ж", 59)
	if table.TooLong(table.GhostName(name)) || !table.TooLong(table.GhostName(name+"ж")) {
		t.Fatalf("TooLong counts bytes: %d characters", len([]rune(table.GhostName(name))))
	}
	db, schema := testenv.OwnDatabase(t, prepareDB)
	testenv.Exec(t, db, "CREATE TABLE `"+name+"` (id INT PRIMARY KEY, v INT)", "INSERT INTO `"+name+"` SELECT seq, seq FROM seq_1_to_100")
	cfg := testConfig(t, schema, name, "ADD COLUMN c INT NULL", nil)
	live(&cfg)
	cfg.OkToDropTable = true
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := mustNew(t, cfg).Run(ctx); err != nil {
		t.Fatalf("the migration of a 59-character name failed: %v", err)
	}
	if cols := tableColumnNames(t, db, name); len(cols) != 3 {
		t.Errorf("columns after the migration: %v", cols)
	}
	cfg.Table = name + "ж"
	if _, err := New(cfg); err == nil {
		t.Error("a 60-character name was accepted: its ghost name has 65 characters")
	}
}

// TestUnpostponeKeepsADirectory: unpostpone removes the postpone flag file; given a directory by
// mistake it used to delete it (os.Remove removes an empty directory). It is kept, and said so.
func TestUnpostponeKeepsADirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "flagdir")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := prepareConfig(t, "t", "ADD c INT", nil)
	cfg.PostponeCutOverFlagFile = dir
	err := mustNew(t, cfg).Postpone(false)
	if err == nil || !strings.Contains(err.Error(), "is a directory: not removed") {
		t.Errorf("unpostpone with a directory as flag file: %v", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("the directory is gone: %v", err)
	}
}

// TestShellWord: the revert hint is pasted into a shell: names with anything but plain
// characters are quoted.
func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{"orders": "orders", "_orders_del": "_orders_del", "my table": "'my table'",
		"a'b": `'a'\''b'`, "x;rm -rf": "'x;rm -rf'", "$(id)": "'$(id)'", "": "''", "тест": "'тест'"} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
