package migrator

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The child table t of these tests references p; the migrated table is t (so the changelog is _t_ghc).
const (
	fkParent = "CREATE TABLE p (id INT NOT NULL PRIMARY KEY) ENGINE=InnoDB"
	fkRows   = "INSERT INTO p SELECT seq FROM seq_1_to_10"
	fkChild  = "INSERT INTO t SELECT seq, 1 + seq % 10, seq FROM seq_1_to_2000"
)

func fkChildTable(actions string) string {
	return "CREATE TABLE t (id INT NOT NULL PRIMARY KEY, pid INT NULL, v INT NOT NULL, CONSTRAINT fk_t_p FOREIGN KEY (pid) REFERENCES p (id) " +
		actions + ") ENGINE=InnoDB"
}

// TestDiscardForeignKeysLosesCascadedChanges: the server runs ON DELETE/UPDATE CASCADE and SET
// NULL inside InnoDB, outside the row binlog, so with --discard-foreign-keys alone the rows a
// parent's delete removes came back after the cut-over. Such a child table is refused (even with
// --skip-foreign-key-checks) with one line naming the key and its action, nothing left on the
// server; --allow-cascading-foreign-keys-data-loss lets it run.
func TestDiscardForeignKeysLosesCascadedChanges(t *testing.T) {
	cases := []struct {
		name, actions, named string
		skip                 bool
	}{
		{"on delete cascade", "ON DELETE CASCADE", "fk_t_p -> p ON DELETE CASCADE", false},
		{"on update cascade", "ON UPDATE CASCADE", "fk_t_p -> p ON UPDATE CASCADE", false},
		{"set null, skip checks", "ON DELETE SET NULL ON UPDATE SET NULL", "fk_t_p -> p ON DELETE SET NULL ON UPDATE SET NULL", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			testenv.OnlyMariaDB(t, "MySQL 9.7 logs the actions (innodb_native_foreign_keys=OFF): TestLoggedCascadesMigrate")
			db := testenv.Database(t, prepareDB)
			testenv.Exec(t, db, fkParent, fkRows, fkChildTable(c.actions), fkChild)
			before := captureState(t, db)
			cfg := testConfig(t, prepareDB, "t", "ADD COLUMN x INT NULL", nil)
			live(&cfg)
			cfg.DiscardForeignKeys, cfg.SkipForeignKeyChecks = !c.skip, c.skip
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := mustNew(t, cfg).Run(ctx)
			want := "glr_prepare.t has foreign keys with actions the server runs inside InnoDB, outside the row binlog (" + c.named + "): rows they delete and references they change during the migration would come back unchanged after the cut-over"
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--allow-cascading-foreign-keys-data-loss") {
				t.Fatalf("got %v, want a refusal saying %q and naming the flag", err, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the refusal is not one line: %q", err)
			}
			assertUnchanged(t, db, before, "t")
		})
	}
	t.Run("allowed", testCascadeLossAllowed)
}

// testCascadeLossAllowed runs the migration with --allow-cascading-foreign-keys-data-loss and
// deletes a parent row while the cut-over is postponed: the run completes, and the child rows the
// cascade deleted in the original before the checksum are found by the checksum and deleted from
// the ghost too (those deleted after its snapshot would come back: the loss the flag accepts).
func testCascadeLossAllowed(t *testing.T) {
	testenv.OnlyMariaDB(t, "MySQL 9.7 logs the actions: no loss to allow (TestLoggedCascadesMigrate)")
	db := testenv.Database(t, prepareDB)
	testenv.Exec(t, db, fkParent, fkRows, fkChildTable("ON DELETE CASCADE"), fkChild)
	logs := &testenv.LogBuffer{}
	cfg := prepareConfig(t, "t", "ADD COLUMN x INT NULL", logs)
	live(&cfg)
	cfg.DiscardForeignKeys, cfg.AllowCascadingForeignKeysDataLoss = true, true
	flag := postpone(t, &cfg)
	done := runMigration(t, cfg)
	waitPostponed(t, db, done)

	var cascaded int
	if err := db.QueryRow("SELECT COUNT(*) FROM t WHERE pid = 1").Scan(&cascaded); err != nil || cascaded == 0 {
		t.Fatalf("children of parent 1: %d (%v)", cascaded, err)
	}
	testenv.Exec(t, db, "DELETE FROM p WHERE id = 1", "UPDATE t SET v = -v WHERE pid = 2")
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 60*time.Second); err != nil {
		t.Fatalf("migration with --allow-cascading-foreign-keys-data-loss: %v", err)
	}

	var inOld, back, updated int
	if err := db.QueryRow("SELECT COUNT(*) FROM _t_del WHERE pid = 1").Scan(&inOld); err != nil || inOld != 0 {
		t.Fatalf("the cascade did not delete the children in the original: %d (%v)", inOld, err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM t WHERE pid = 1").Scan(&back); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM t WHERE pid = 2 AND v < 0").Scan(&updated); err != nil || updated == 0 {
		t.Fatalf("the binlogged update of the children of parent 2 was not applied: %d (%v)", updated, err)
	}
	// MariaDB does not log the cascade's deletions, so the ghost kept the children; the checksum
	// before the cut-over (which the flag requires) finds them and copies their chunks again.
	repaired := logs.Contains("checksum: chunk differs")
	if back != 0 || !repaired {
		t.Errorf("rows deleted by the cascade and back in the new table: %d of %d, want 0 (repaired by the checksum)", back, cascaded)
	}
	if !strings.Contains(logs.String(), "--allow-cascading-foreign-keys-data-loss") || !strings.Contains(logs.String(), "fk_t_p -> p ON DELETE CASCADE") {
		t.Error("the run did not warn about the cascading key it let through")
	}
	if fks := testenv.TableNames(t, db, prepareDB, "_t_g"); len(fks) != 0 {
		t.Errorf("helper tables left: %v", fks)
	}
}

// TestLoggedCascadesMigrate: where the server logs what a foreign key's actions change (MySQL 9.7,
// innodb_native_foreign_keys=OFF: its SQL layer runs them), a child table with ON DELETE CASCADE
// and ON UPDATE CASCADE migrates with --discard-foreign-keys alone (no data-loss flag), and the
// rows a parent's delete and a parent's key change cascade to during the run reach the new table
// through the applier (the checksum off, so nothing else could repair them).
func TestLoggedCascadesMigrate(t *testing.T) {
	testenv.OnlyMySQL(t, "MariaDB runs a foreign key's actions inside InnoDB, unlogged: refused (TestDiscardForeignKeysLosesCascadedChanges)")
	db := testenv.Database(t, prepareDB)
	testenv.Exec(t, db, fkParent, fkRows, fkChildTable("ON DELETE CASCADE ON UPDATE CASCADE"), fkChild)
	cfg := prepareConfig(t, "t", "ADD COLUMN x INT NULL", nil)
	live(&cfg)
	cfg.DiscardForeignKeys, cfg.Checksum = true, false
	if err := runWriting(t, db, cfg, "DELETE FROM p WHERE id = 1", "UPDATE p SET id = 20 WHERE id = 2"); err != nil {
		t.Fatalf("migration of a child table whose cascades are logged: %v", err)
	}
	var deleted, moved, differ int
	q := func(query string, into *int) {
		if err := db.QueryRow(query).Scan(into); err != nil {
			t.Fatal(err)
		}
	}
	q("SELECT COUNT(*) FROM t WHERE pid IN (1, 2)", &deleted)
	q("SELECT COUNT(*) FROM t WHERE pid = 20", &moved)
	q(`SELECT (SELECT COUNT(*) FROM t) + (SELECT COUNT(*) FROM _t_del) - 2 * (SELECT COUNT(*) FROM t JOIN _t_del o
		ON o.id = t.id AND o.pid <=> t.pid AND o.v = t.v)`, &differ)
	if deleted != 0 || moved != 200 || differ != 0 {
		t.Errorf("new table: %d rows of parents 1 and 2 (want 0), %d of parent 20 (want 200), %d rows unlike the original's", deleted, moved, differ)
	}
}
