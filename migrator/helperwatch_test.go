package migrator

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// TestHelperChangesStopMigration: while a migration waits in a postponed cut-over, someone else
// alters, replaces or drops one of its helper tables (ghost, changelog, checkpoint), puts a
// trigger on the ghost, or writes the original (or a helper) in a session that logs statements
// instead of rows (with --checksum=false and --assume-rbr, which used to let the changes be lost).
// Each stops the run by itself, within seconds, with one line naming the statement and the table;
// nothing is swapped and the original keeps its definition and every row, the change included.
func TestHelperChangesStopMigration(t *testing.T) {
	sbr := "SET SESSION binlog_format = 'STATEMENT'"
	cases := []struct {
		name  string
		stmts []string
		want  error
		says  string
	}{
		{"drop the ghost", []string{"DROP TABLE _t_gho"}, binlogapply.ErrHelperChanged, "DROP TABLE statement on glr_ddlwatch._t_gho, this run's ghost table"},
		{"replace the ghost", []string{"DROP TABLE _t_gho", "CREATE TABLE _t_gho LIKE t"}, binlogapply.ErrHelperChanged, "this run's ghost table"},
		{"ghost to MyISAM", []string{"ALTER TABLE _t_gho ENGINE=MyISAM"}, binlogapply.ErrHelperChanged, "ALTER TABLE statement on glr_ddlwatch._t_gho"},
		{"columns of the ghost", []string{"ALTER TABLE `_t_gho` DROP COLUMN c, ADD COLUMN w INT"}, binlogapply.ErrHelperChanged, "ALTER TABLE statement on glr_ddlwatch._t_gho"},
		{"trigger on the ghost", []string{"CREATE TRIGGER tg AFTER INSERT ON _t_gho FOR EACH ROW SET @x = 1"}, binlogapply.ErrHelperChanged, "CREATE TRIGGER statement on glr_ddlwatch._t_gho"},
		// The binlog watch or the heartbeat may notice first: both name the changelog table.
		{"drop the changelog", []string{"DROP TABLE _t_ghc"}, binlogapply.ErrHelperChanged, "changelog table"},
		{"alter the changelog", []string{"ALTER TABLE glr_ddlwatch._t_ghc ADD COLUMN z INT"}, binlogapply.ErrHelperChanged, "this run's changelog table"},
		{"drop the checkpoint", []string{"DROP TABLE _t_ghk"}, binlogapply.ErrHelperChanged, "this run's checkpoint table"},
		{"statement-logged update", []string{sbr, "UPDATE t SET v = v + 1 WHERE id <= 151"}, binlogapply.ErrStatementLogged, "UPDATE statement writing glr_ddlwatch.t"},
		{"statement-logged insert", []string{sbr, "INSERT INTO t (id, e, v) VALUES (9001, 'a', 1)"}, binlogapply.ErrStatementLogged, "INSERT statement writing glr_ddlwatch.t"},
		{"statement-logged delete", []string{sbr, "DELETE FROM /* x */ `glr_ddlwatch`.`t` WHERE id > 1990"}, binlogapply.ErrStatementLogged, "DELETE statement writing glr_ddlwatch.t"},
		{"statement-logged write of the ghost", []string{sbr, "DELETE FROM _t_gho WHERE id = 1"}, binlogapply.ErrStatementLogged, "writing glr_ddlwatch._t_gho"},
		{"statement-logged write of the changelog", []string{sbr, "DELETE FROM _t_ghc"}, binlogapply.ErrHelperChanged, "this run's changelog table"},
		{"statement-logged write through a view", []string{sbr, "UPDATE v_t SET v = v + 1 WHERE id <= 5"}, binlogapply.ErrStatementLogged,
			"UPDATE statement writing glr_ddlwatch.v_t (a view of glr_ddlwatch.t)"},
		{"statement-logged write through a view of a view", []string{sbr, "DELETE FROM vv_t WHERE id = 7"}, binlogapply.ErrStatementLogged,
			"DELETE statement writing glr_ddlwatch.vv_t (a view of glr_ddlwatch.v_t)"},
		{"statement-logged write through a trigger", []string{sbr, "INSERT INTO x_t (id) VALUES (9002)"}, binlogapply.ErrStatementLogged,
			"INSERT statement writing glr_ddlwatch.x_t (a trigger of glr_ddlwatch.x_t names glr_ddlwatch.t)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := testenv.Table(t, ddlWatchDB, "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b','c') NOT NULL, v INT)",
				"INSERT INTO t SELECT seq, ELT(1 + seq % 3, 'a', 'b', 'c'), seq FROM seq_1_to_2000")
			// Writers of t that a statement does not name: views, and another table's trigger.
			testenv.Exec(t, db, "CREATE OR REPLACE VIEW v_t AS SELECT id, e, v FROM t", "CREATE OR REPLACE VIEW vv_t AS SELECT id, v FROM v_t",
				"DROP TABLE IF EXISTS x_t", "CREATE TABLE x_t (id INT PRIMARY KEY)",
				"CREATE TRIGGER x_t_ai AFTER INSERT ON x_t FOR EACH ROW INSERT INTO t (id, e, v) VALUES (NEW.id, 'a', 0)")
			cfg := configtest.Config(t, ddlWatchDB, "t", "ADD COLUMN c INT NULL", nil)
			postpone(t, &cfg)
			cfg.Checksum, cfg.AssumeRBR, cfg.Checkpoint = false, true, true
			cfg.Logger = cfg.Logger.Level(zerolog.InfoLevel)
			done := runMigration(t, cfg)
			waitPostponed(t, db, done)

			conn, err := db.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range c.stmts {
				if _, err := conn.ExecContext(context.Background(), q); err != nil {
					t.Fatalf("%q: %v", q, err)
				}
			}
			conn.Close()
			changed := time.Now()
			testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")

			// The cut-over stays postponed: the run must stop by itself.
			err = waitFailed(t, done, "although a helper table was changed or a row change was logged as a statement")
			took := time.Since(changed)
			t.Logf("stopped after %s: %v", took.Round(time.Millisecond), err)
			if took > 10*time.Second {
				t.Errorf("the run stopped %s after the change, want within seconds", took.Round(time.Second))
			}
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "nothing was swapped") {
				t.Errorf("got %v, want %v saying %q and that nothing was swapped", err, c.want, c.says)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is not one line: %q", err)
			}
			cols := []string{"id", "e", "v"}
			gotRows, got := testenv.Checksum(t, db, ddlWatchDB, "t", cols, "id")
			wantRows, want := testenv.Checksum(t, db, ddlWatchDB, "want", cols, "id")
			if got != want || gotRows != wantRows {
				t.Errorf("the original does not hold its rows (%d rows, want %d)", gotRows, wantRows)
			}
			if ncols := len(testenv.Columns(t, db, ddlWatchDB, "t")); ncols != 3 {
				t.Errorf("the original has %d columns, want 3: the ghost was swapped in", ncols)
			}
		})
	}
}

// TestGhostProvenBeforeSwap: a change of the ghost the binlog does not show (sql_log_bin=0)
// during a postponed cut-over, which the run used to swap in (exit 0: the requested column
// missing, a MyISAM table, a foreign trigger): under the cut-over's lock the run proves the ghost
// is the table it built, with the definition and triggers it left, and stops at the first attempt
// with one line; the original keeps its name, definition and rows.
func TestGhostProvenBeforeSwap(t *testing.T) {
	cases := []struct {
		name  string
		stmts []string
		says  string
	}{
		{"replaced", []string{"DROP TABLE _t_gho", "CREATE TABLE _t_gho LIKE t"}, "another table was put under its name"},
		{"MyISAM", []string{"ALTER TABLE _t_gho ENGINE=MyISAM"}, "another table was put under its name"},
		{"columns", []string{"ALTER TABLE _t_gho DROP COLUMN c, ADD COLUMN w INT, ALGORITHM=INSTANT"}, "changed its definition"},
		{"trigger", []string{"CREATE TRIGGER tg AFTER INSERT ON _t_gho FOR EACH ROW SET @x = 1"}, "changed its triggers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := testenv.Table(t, ddlWatchDB, "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b','c') NOT NULL, v INT)",
				"INSERT INTO t SELECT seq, ELT(1 + seq % 3, 'a', 'b', 'c'), seq FROM seq_1_to_2000")
			cfg := configtest.Config(t, ddlWatchDB, "t", "ADD COLUMN c INT NULL", nil)
			flag := postpone(t, &cfg)
			cfg.Logger = cfg.Logger.Level(zerolog.InfoLevel)
			done := runMigration(t, cfg)
			waitPostponed(t, db, done)
			// Unlogged, so on the replica too: replication must not break on the ghost's rows.
			testenv.WaitReplica(t)
			execUnlogged(t, db, c.stmts)
			execUnlogged(t, testenv.Open(t, testenv.ReplicaConfig(), ddlWatchDB), c.stmts)
			released := time.Now()
			if err := os.Remove(flag); err != nil {
				t.Fatal(err)
			}
			err := waitFailed(t, done, "with a ghost table changed behind its back")
			took := time.Since(released)
			t.Logf("stopped after %s: %v", took.Round(time.Millisecond), err)
			if !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "not the table this run built") || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %q, want one line saying %q", err, c.says)
			}
			if took > 10*time.Second {
				t.Errorf("the run stopped %s after the release, want at the first attempt", took.Round(time.Second))
			}
			if ncols := len(testenv.Columns(t, db, ddlWatchDB, "t")); ncols != 3 {
				t.Errorf("the original has %d columns, want 3: the ghost was swapped in", ncols)
			}
			if rows := testenv.CountRows(t, db, ddlWatchDB, "t"); rows != 2000 {
				t.Errorf("the original has %d rows, want 2000", rows)
			}
		})
	}
}

// execUnlogged runs stmts on db in one session with sql_log_bin=0.
func execUnlogged(t *testing.T, db *sql.DB, stmts []string) {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range append([]string{"SET SESSION sql_log_bin = 0"}, stmts...) {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
	}
}

// TestChangelogDroppedUnloggedStops: the changelog dropped where the binlog does not show it
// (sql_log_bin=0) used to leave the run throttled for ever ("lag unknown", warnings without end).
// The heartbeat finds the table gone and stops the run in one line within seconds.
func TestChangelogDroppedUnloggedStops(t *testing.T) {
	db := testenv.Table(t, ddlWatchDB, "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b','c') NOT NULL, v INT)",
		"INSERT INTO t SELECT seq, ELT(1 + seq % 3, 'a', 'b', 'c'), seq FROM seq_1_to_2000")
	cfg := configtest.Config(t, ddlWatchDB, "t", "ADD COLUMN c INT NULL", nil)
	postpone(t, &cfg)
	cfg.Logger = cfg.Logger.Level(zerolog.InfoLevel)
	done := runMigration(t, cfg)
	waitPostponed(t, db, done)
	testenv.WaitReplica(t)
	execUnlogged(t, db, []string{"DROP TABLE _t_ghc"})
	execUnlogged(t, testenv.Open(t, testenv.ReplicaConfig(), ddlWatchDB), []string{"DROP TABLE _t_ghc"})
	dropped := time.Now()
	err := waitFailed(t, done, "with its changelog gone")
	took := time.Since(dropped)
	t.Logf("stopped after %s: %v", took.Round(time.Millisecond), err)
	if !errors.Is(err, binlogapply.ErrHelperChanged) || !strings.Contains(err.Error(), "the changelog table glr_ddlwatch._t_ghc no longer exists") || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %q, want one line saying the changelog is gone", err)
	}
	if took > 10*time.Second {
		t.Errorf("the run stopped %s after the drop, want within seconds", took.Round(time.Second))
	}
	if rows := testenv.CountRows(t, db, ddlWatchDB, "t"); rows != 2000 || len(testenv.Columns(t, db, ddlWatchDB, "t")) != 3 {
		t.Errorf("the original changed: %d rows", rows)
	}
}
