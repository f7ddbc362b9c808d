package cutover

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The recovery after a crashed run, called directly. The migrator's tests run it through
// --recover-cut-over (migrator/recover_test.go): the refusal of a normal run, the roll back.

// crashed creates each named table in testDB with one row saying which table it was born as.
func crashed(t *testing.T, db *sql.DB, names ...string) {
	t.Helper()
	for _, n := range names {
		q := table.Qualify(testDB, n)
		testenv.Exec(t, db, "CREATE TABLE "+q+" (id INT PRIMARY KEY, born VARCHAR(64) NOT NULL) ENGINE=InnoDB",
			"INSERT INTO "+q+" VALUES (1, '"+n+"')")
	}
}

// tablesOf lists the tables whose names contain tbl, sorted, each with the name it was born as:
// "_t_del=_t_del,t=_t_gho" says t is the former ghost.
func tablesOf(t *testing.T, db *sql.DB, tbl string) string {
	t.Helper()
	names := testenv.TableNames(t, db, testDB, tbl)
	slices.Sort(names)
	for i, n := range names {
		var born string
		if err := db.QueryRow("SELECT born FROM " + table.Qualify(testDB, n)).Scan(&born); err != nil {
			t.Fatalf("read %s: %v", n, err)
		}
		names[i] = n + "=" + born
	}
	return strings.Join(names, ",")
}

func recoverCrashed(t *testing.T, db *sql.DB, tbl string, lockTimeout time.Duration) error {
	t.Helper()
	return RecoverCrashed(context.Background(), CrashConfig{DB: db, Schema: testDB, Table: tbl,
		LockTimeout: lockTimeout, Logger: zerolog.New(zerolog.NewTestWriter(t))})
}

func TestRecoverCrashedTimestampedOld(t *testing.T) {
	db := testenv.Database(t, testDB)
	crashed(t, db, "_t2_20250101000000_del", "_t2_20260101000000_del", "_t2_gho")
	err := CheckCrashed(context.Background(), db, testDB, "t2", nil)
	if err == nil || !strings.Contains(err.Error(), "t2 is missing but _t2_20260101000000_del and _t2_gho exist") {
		t.Fatalf("check: got %v, want the died-cut-over refusal naming the newest old table", err)
	}
	if err := recoverCrashed(t, db, "t2", time.Second); err != nil {
		t.Fatalf("recover: %v", err)
	}
	// t2 is the newest old table again; the other old table is left alone.
	if got := tablesOf(t, db, "t2"); got != "_t2_20250101000000_del=_t2_20250101000000_del,t2=_t2_20260101000000_del" {
		t.Fatalf("tables after recovery: %s, want t2 born as the newest old table", got)
	}
}

func TestRecoverCrashedRefusesUnknownStates(t *testing.T) {
	db := testenv.Database(t, testDB)
	cases := []struct {
		name, tbl string
		tables    []string
	}{
		{"original and ghost missing", "t5", []string{"_t5_del"}},
		{"only the ghost", "t6", []string{"_t6_gho"}},
		{"which old one", "t7", []string{"_t7_del", "_t7_20260101000000_del", "_t7_gho"}},
		{"nothing at all", "t8", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			crashed(t, db, c.tables...)
			if err := CheckCrashed(context.Background(), db, testDB, c.tbl, nil); err != nil {
				t.Errorf("check refused a state no crashed run leaves: %v", err)
			}
			before := tablesOf(t, db, c.tbl)
			err := recoverCrashed(t, db, c.tbl, time.Second)
			if err == nil || !strings.Contains(err.Error(), "a state a cut-over does not leave") {
				t.Errorf("%s (%s): got %v, want a refusal describing the state", c.tbl, before, err)
			}
			if after := tablesOf(t, db, c.tbl); after != before {
				t.Errorf("%s: refused recovery changed the tables from %q to %q", c.tbl, before, after)
			}
		})
	}
}

// A RENAME of our tables queued on the server (a silently cut client's) is waited for, never
// killed: recovery refuses while it stays, and acts on the state it leaves once it has run.
func TestRecoverCrashedWaitsForQueuedRename(t *testing.T) {
	db := testenv.Database(t, testDB)
	crashed(t, db, "_t9_del", "_t9_gho", "_t9_ghc")
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
		_, err := db.ExecContext(ctx, "RENAME TABLE "+table.Qualify(testDB, "_t9_gho")+" TO "+table.Qualify(testDB, "t9"))
		renameDone <- err
	}()
	seen := func() bool {
		found, err := queuedRenames(ctx, db, dbconn.ProcesslistTable(ctx, db), testDB, "t9", nil)
		return err == nil && len(found) == 1
	}
	for deadline := time.Now().Add(10 * time.Second); !seen(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the queued rename was not seen within 10s")
		}
	}

	err = recoverCrashed(t, db, "t9", 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "RENAME TABLE still queued") {
		t.Fatalf("recover with a queued rename: got %v, want a refusal naming it", err)
	}
	names := testenv.TableNames(t, db, testDB, "t9") // not their rows: _t9_gho is locked
	slices.Sort(names)
	if got := strings.Join(names, ","); got != "_t9_del,_t9_ghc,_t9_gho" {
		t.Fatalf("refused recovery changed the tables: %s", got)
	}

	// Release the lock while a recovery waits: the queued rename completes the swap first.
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, _ = locker.ExecContext(ctx, "UNLOCK TABLES")
	}()
	if err := recoverCrashed(t, db, "t9", 10*time.Second); err != nil {
		t.Fatalf("recover after the queued rename ran: %v", err)
	}
	if err := <-renameDone; err != nil {
		t.Fatalf("queued rename: %v", err)
	}
	if got := tablesOf(t, db, "t9"); got != "_t9_del=_t9_del,_t9_ghc=_t9_ghc,t9=_t9_gho" {
		t.Fatalf("tables %s, want t9 the former ghost (the queued rename ran, recovery saw a completed swap and changed nothing)", got)
	}
}

// A --revert that died between its renames left the live table under the revert's old name and
// the old table it swaps back: with the revert's names (read by the migrator from its changelog)
// the refusal names them and the recovery renames the live table back, keeping the old table.
// Without them, the state is one no migration leaves: refused, nothing changed.
func TestRecoverCrashedRevert(t *testing.T) {
	db := testenv.Database(t, testDB)
	for _, c := range []struct {
		tbl string
		rev changelog.RevertNames
	}{
		{"t10", changelog.RevertNames{Ghost: "_t10_del", Old: "_t10_rev_del"}}, // a revert
		{"t11", changelog.RevertNames{Ghost: "_t11_rev_del", Old: "_t11_del"}}, // the revert of a revert
	} {
		crashed(t, db, c.rev.Ghost, c.rev.Old, table.ChangelogName(c.tbl))
		before := tablesOf(t, db, c.tbl)
		if err := CheckCrashed(context.Background(), db, testDB, c.tbl, nil); err != nil {
			t.Errorf("%s: check without the revert's names refused: %v", c.tbl, err)
		}
		if err := recoverCrashed(t, db, c.tbl, time.Second); err == nil || !strings.Contains(err.Error(), "a state a cut-over does not leave") {
			t.Errorf("%s: recovery without the revert's names: %v, want a refusal", c.tbl, err)
		}
		if after := tablesOf(t, db, c.tbl); after != before {
			t.Fatalf("%s: refused recovery changed the tables from %q to %q", c.tbl, before, after)
		}
		err := CheckCrashed(context.Background(), db, testDB, c.tbl, &c.rev)
		want := c.tbl + " is missing but " + c.rev.Old + " and " + c.rev.Ghost + " exist: a previous --revert died during its cut-over"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: check: %v, want %q", c.tbl, err, want)
		}
		err = RecoverCrashed(context.Background(), CrashConfig{DB: db, Schema: testDB, Table: c.tbl, Revert: &c.rev,
			LockTimeout: time.Second, Logger: zerolog.New(zerolog.NewTestWriter(t))})
		if err != nil {
			t.Fatalf("%s: recover: %v", c.tbl, err)
		}
		names := []string{c.rev.Ghost + "=" + c.rev.Ghost, c.tbl + "=" + c.rev.Old}
		slices.Sort(names)
		if got, want := tablesOf(t, db, c.tbl), strings.Join(names, ","); got != want {
			t.Errorf("%s: tables after recovery: %s, want %s (the live table back, the old table kept, the changelog dropped)", c.tbl, got, want)
		}
	}
}
