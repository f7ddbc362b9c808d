package migrator

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// recoverDB is the database of the recovery tests.
const recoverDB = "gl_recover_migrator"

func recoverConfig(t *testing.T, tbl string, recover bool) Config {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Conn = testenv.PrimaryConfig()
	cfg.Database, cfg.Table, cfg.Alter = recoverDB, tbl, "ADD COLUMN c INT NULL"
	cfg.AllowOnMaster, cfg.RecoverCutOver = true, recover
	cfg.CutOverLockTimeout = time.Second
	cfg.Logger = zerolog.New(zerolog.NewTestWriter(t))
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

func TestRecoverTimestampedOld(t *testing.T) {
	db := testenv.Database(t, recoverDB)
	makeTables(t, db, "_t2_20250101000000_del", "_t2_20260101000000_del", "_t2_gho")
	err := mustNew(t, recoverConfig(t, "t2", false)).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "t2 is missing but _t2_20260101000000_del and _t2_gho exist") {
		t.Fatalf("run: got %v, want the died-cut-over refusal naming the newest old table", err)
	}
	if err := runRecover(t, "t2", time.Second); err != nil {
		t.Fatalf("recover: %v", err)
	}
	if got := bornAs(t, db, "t2"); got != "_t2_20260101000000_del" {
		t.Fatalf("t2 is the table born as %q, want the newest old table", got)
	}
	if got := listTables(t, db, "t2"); got != "_t2_20250101000000_del,t2" {
		t.Fatalf("tables after recovery: %s", got)
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

func TestRecoverRefusesUnknownStates(t *testing.T) {
	db := testenv.Database(t, recoverDB)
	cases := []struct {
		tbl    string
		tables []string
	}{
		{"t5", []string{"_t5_del"}},                                      // original and ghost missing
		{"t6", []string{"_t6_gho"}},                                      // only the ghost
		{"t7", []string{"_t7_del", "_t7_20260101000000_del", "_t7_gho"}}, // which old one?
		{"t8", nil}, // nothing at all
	}
	for _, c := range cases {
		makeTables(t, db, c.tables...)
		before := listTables(t, db, c.tbl)
		err := runRecover(t, c.tbl, time.Second)
		if err == nil || !strings.Contains(err.Error(), "a state a cut-over does not leave") {
			t.Errorf("%s (%s): got %v, want a refusal describing the state", c.tbl, before, err)
		}
		if after := listTables(t, db, c.tbl); after != before {
			t.Errorf("%s: refused recovery changed the tables from %q to %q", c.tbl, before, after)
		}
	}
}

// A RENAME of our tables queued on the server (a silently cut client's) is waited for, never
// killed: recovery refuses while it stays, and acts on the state it leaves once it has run.
func TestRecoverWaitsForQueuedRename(t *testing.T) {
	db := testenv.Database(t, recoverDB)
	makeTables(t, db, "_t9_del", "_t9_gho", "_t9_ghc")
	ctx := context.Background()
	locker, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	if _, err := locker.ExecContext(ctx, "LOCK TABLES `_t9_gho` WRITE"); err != nil {
		t.Fatal(err)
	}
	renameDone := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(ctx, "RENAME TABLE `"+recoverDB+"`.`_t9_gho` TO `"+recoverDB+"`.`t9`")
		renameDone <- err
	}()
	waitFor(t, func() bool {
		found, err := queuedRenames(ctx, db, recoverDB, "t9")
		return err == nil && len(found) == 1
	})

	err = runRecover(t, "t9", 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "RENAME TABLE still queued") {
		t.Fatalf("recover with a queued rename: got %v, want a refusal naming it", err)
	}
	if got := listTables(t, db, "t9"); got != "_t9_del,_t9_ghc,_t9_gho" {
		t.Fatalf("refused recovery changed the tables: %s", got)
	}

	// Release the lock while a recovery waits: the queued rename completes the swap first.
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, _ = locker.ExecContext(ctx, "UNLOCK TABLES")
	}()
	if err := runRecover(t, "t9", 10*time.Second); err != nil {
		t.Fatalf("recover after the queued rename ran: %v", err)
	}
	if err := <-renameDone; err != nil {
		t.Fatalf("queued rename: %v", err)
	}
	if got := bornAs(t, db, "t9"); got != "_t9_gho" {
		t.Fatalf("t9 is %q, want the former ghost (the queued rename ran, recovery saw a completed swap)", got)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
