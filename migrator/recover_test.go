package migrator

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// recoverDB is the database of the recovery tests.
const recoverDB = "gl_recover_migrator"

func recoverConfig(t *testing.T, tbl string, recover bool) config.Config {
	t.Helper()
	cfg := testConfig(t, recoverDB, tbl, "ADD COLUMN c INT NULL", nil)
	cfg.RecoverCutOver = recover
	cfg.CutOverLockTimeout = time.Second
	return cfg
}

// runRecover runs --recover-cut-over (no ALTER needed) on tbl.
func runRecover(t *testing.T, tbl string, timeout time.Duration) error {
	t.Helper()
	cfg := recoverConfig(t, tbl, true)
	cfg.Alter = ""
	cfg.CutOverLockTimeout = timeout
	m, err := New(cfg)
	if err != nil {
		t.Fatalf("New with --recover-cut-over and no --alter: %v", err)
	}
	return m.Run(context.Background())
}

// makeTables creates each named table with one marker row saying which table it was born as.
func makeTables(t *testing.T, db *sql.DB, names ...string) {
	t.Helper()
	for _, n := range names {
		testenv.Exec(t, db, "DROP TABLE IF EXISTS `"+n+"`",
			"CREATE TABLE `"+n+"` (id INT PRIMARY KEY, born VARCHAR(64) NOT NULL) ENGINE=InnoDB",
			"INSERT INTO `"+n+"` VALUES (1, '"+n+"')")
	}
}

// bornAs returns the marker row of the table now named name ("" when it does not exist).
func bornAs(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var born string
	err := db.QueryRow("SELECT born FROM `" + name + "` WHERE id = 1").Scan(&born)
	if err != nil && !strings.Contains(err.Error(), "1146") {
		t.Fatalf("read %s: %v", name, err)
	}
	return born
}

func listTables(t *testing.T, db *sql.DB, tbl string) string {
	t.Helper()
	names := testenv.TableNames(t, db, recoverDB, tbl)
	slices.Sort(names)
	return strings.Join(names, ",")
}

func TestRecoverRefusalAndRollBack(t *testing.T) {
	db := testenv.Database(t, recoverDB)
	makeTables(t, db, "_t1_del", "_t1_gho", "_t1_ghc")

	// A normal run recognises the state and changes nothing.
	m := mustNew(t, recoverConfig(t, "t1", false))
	err := m.Run(context.Background())
	want := recoverDB + ".t1 is missing but _t1_del and _t1_gho exist: a previous run died during its cut-over; run again with --recover-cut-over to restore t1 (nothing was changed)"
	if err == nil || err.Error() != want {
		t.Fatalf("run on a died cut-over: got %v, want %q", err, want)
	}
	if got := listTables(t, db, "t1"); got != "_t1_del,_t1_ghc,_t1_gho" {
		t.Fatalf("the refused run changed the tables: %s", got)
	}
	// Even when told to drop the ghost, the refusal comes first.
	cfg := recoverConfig(t, "t1", false)
	cfg.InitiallyDropGhostTable = true
	if err := mustNew(t, cfg).Run(context.Background()); err == nil || err.Error() != want {
		t.Fatalf("run with --initially-drop-ghost-table: got %v, want %q", err, want)
	}

	if err := runRecover(t, "t1", time.Second); err != nil {
		t.Fatalf("recover: %v", err)
	}
	if got := listTables(t, db, "t1"); got != "t1" {
		t.Fatalf("after recovery the tables are %q, want only t1 (ghost and changelog dropped)", got)
	}
	if got := bornAs(t, db, "t1"); got != "_t1_del" {
		t.Fatalf("t1 is the table born as %q, want the original (_t1_del)", got)
	}
	// Recovering again finds nothing to do.
	if err := runRecover(t, "t1", time.Second); err != nil {
		t.Fatalf("second recovery: %v", err)
	}
}

func TestRecoverNothingToDo(t *testing.T) {
	db := testenv.Database(t, recoverDB)
	// Nothing was renamed: original, ghost, changelog.
	makeTables(t, db, "t3", "_t3_gho", "_t3_ghc")
	if err := runRecover(t, "t3", time.Second); err != nil {
		t.Fatalf("recover with nothing renamed: %v", err)
	}
	if got := listTables(t, db, "t3"); got != "_t3_ghc,_t3_gho,t3" {
		t.Fatalf("recovery changed the tables: %s", got)
	}
	// The swap completed: t4 is the former ghost, the original is _t4_del, no ghost.
	makeTables(t, db, "_t4_del", "_t4_ghc")
	testenv.Exec(t, db, "CREATE TABLE t4 (id INT PRIMARY KEY, born VARCHAR(64) NOT NULL)", "INSERT INTO t4 VALUES (1, '_t4_gho')")
	if err := runRecover(t, "t4", time.Second); err != nil {
		t.Fatalf("recover after a completed swap: %v", err)
	}
	if got := listTables(t, db, "t4"); got != "_t4_del,_t4_ghc,t4" || bornAs(t, db, "t4") != "_t4_gho" {
		t.Fatalf("recovery changed the tables: %s", got)
	}
	// A normal run then follows the usual rules: helper tables refuse.
	err := mustNew(t, recoverConfig(t, "t4", false)).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "left by an earlier migration") {
		t.Fatalf("run after a completed swap: got %v, want the helper-table refusal", err)
	}
}
