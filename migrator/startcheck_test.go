package migrator

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// startCheckConfig is an executing migration of prepareDB.t adding a column, with hook run after
// preparation and before the binlog position is read (the seams returned).
func startCheckConfig(t *testing.T, hook func(ctx context.Context) error) (config.Config, seams) {
	cfg := prepareConfig(t, "t", "ADD COLUMN c INT NULL", nil)
	live(&cfg)
	return cfg, seams{beforeStream: hook}
}

// assertOriginalOnly checks that prepareDB holds only t and the other tables named, that t has
// the columns want and 500 rows, and that the migration lock is free.
func assertOriginalOnly(t *testing.T, db *sql.DB, want []string, others ...string) {
	t.Helper()
	names, tables := testenv.TableNames(t, db, prepareDB, ""), append(slices.Clone(others), "t")
	slices.Sort(names)
	slices.Sort(tables)
	if !slices.Equal(names, tables) {
		t.Errorf("tables left: %v, want %v", names, tables)
	}
	if cols := tableColumnNames(t, db, "t"); strings.Join(cols, ",") != strings.Join(want, ",") {
		t.Errorf("the original has columns %v, want %v", cols, want)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 500 {
		t.Errorf("the original has %d rows, want 500", n)
	}
	assertLockFree(t, db, "t")
}

// TestDDLBeforeStreamStartStopsMigration: a change of the original's definition or triggers made
// after preparation read it and before the binlog stream's start position is not in the stream,
// so the DDL watcher cannot see it; the migration stops with ErrOriginalAltered and the fix hint
// instead of swapping in a ghost built from the stale definition. The original keeps its
// definition as changed and every row; no helper table is left and the lock is free.
func TestDDLBeforeStreamStartStopsMigration(t *testing.T) {
	cases := []struct {
		name, ddl, what string
		cols            []string
	}{
		{"alter", "ALTER TABLE t MODIFY e ENUM('c','b','a') NOT NULL", "definition", []string{"id", "e", "v"}},
		{"add column", "ALTER TABLE t ADD COLUMN w INT NOT NULL DEFAULT 7", "definition", []string{"id", "e", "v", "w"}},
		{"create trigger", "CREATE TRIGGER trg_t AFTER INSERT ON t FOR EACH ROW SET @x = 1", "triggers", []string{"id", "e", "v"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := testenv.Database(t, prepareDB)
			testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b','c') NOT NULL, v INT)",
				"INSERT INTO t SELECT seq, ELT(1 + seq % 3, 'a', 'b', 'c'), seq FROM seq_1_to_500")
			ran := false
			cfg, s := startCheckConfig(t, func(ctx context.Context) error {
				ran = true
				_, err := db.ExecContext(ctx, c.ddl)
				return err
			})
			err := newWithSeams(t, cfg, s).Run(context.Background())
			if !ran {
				t.Fatal("the hook did not run")
			}
			t.Logf("the migration failed: %v", err)
			if !errors.Is(err, binlogapply.ErrOriginalAltered) {
				t.Fatalf("want ErrOriginalAltered, got %v", err)
			}
			for _, want := range []string{"glr_prepare.t was changed between the preparation and the start of the binlog stream", c.what, "restart the migration"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q", want)
				}
			}
			assertOriginalOnly(t, db, c.cols)
		})
	}
}

// prepareXA leaves an XA transaction prepared on the primary (it outlives its connection on
// MariaDB 10.5+) and rolls it back at the end of the test.
//
//nolint:contextcheck // its own context: the transaction outlives the hook that prepares it
func prepareXA(t *testing.T, db *sql.DB, gtrid string) {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	xid := "'" + gtrid + "','b',7"
	for _, q := range []string{"XA START " + xid, "INSERT INTO other VALUES (1)", "XA END " + xid, "XA PREPARE " + xid} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		if _, err := conn.ExecContext(ctx, "XA ROLLBACK "+xid); err != nil {
			t.Errorf("XA ROLLBACK %s: %v", xid, err)
		}
		conn.Close()
	})
}

// TestPreparedXARefusesMigration: an XA transaction prepared before the binlog stream starts
// would stop the run mid-way when it commits (the stream never saw its rows), so the migration
// refuses to start, naming how many there are and the fix, and leaves nothing behind: as a
// pre-flight check, and again right after the start position when one was prepared in between.
func TestPreparedXARefusesMigration(t *testing.T) {
	testenv.Serial(t) // a prepared XA transaction refuses every migration's start
	for _, c := range []struct {
		name   string
		before bool // prepared before the run, else between preparation and the stream start
	}{{"before the run", true}, {"before the stream", false}} {
		t.Run(c.name, func(t *testing.T) {
			db := testenv.Database(t, prepareDB)
			testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b','c') NOT NULL, v INT)",
				"INSERT INTO t SELECT seq, ELT(1 + seq % 3, 'a', 'b', 'c'), seq FROM seq_1_to_500",
				"CREATE TABLE other (id INT PRIMARY KEY)")
			if c.before {
				prepareXA(t, db, "gl-xa-1")
			}
			cfg, s := startCheckConfig(t, func(context.Context) error {
				if !c.before {
					prepareXA(t, db, "gl-xa-2")
				}
				return nil
			})
			err := newWithSeams(t, cfg, s).Run(context.Background())
			t.Logf("the migration failed: %v", err)
			if err == nil {
				t.Fatal("the migration ran with a prepared XA transaction")
			}
			for _, want := range []string{"holds 1 prepared XA transaction(s)", "XA COMMIT <xid> / XA ROLLBACK <xid>", "and retry", ",X'62',7"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q", want)
				}
			}
			assertOriginalOnly(t, db, []string{"id", "e", "v"}, "other")
		})
	}
}

// TestHelperTableFailureLeavesNothing: a run that fails while creating its helper tables (here the
// checkpoint table, which appeared after the checks) drops what it created, the ghost and the
// changelog, and nothing it did not create: the server is as it was, but for the table that got
// in the way.
func TestHelperTableFailureLeavesNothing(t *testing.T) {
	db := testenv.Database(t, prepareDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b','c') NOT NULL, v INT)",
		"INSERT INTO t SELECT seq, ELT(1 + seq % 3, 'a', 'b', 'c'), seq FROM seq_1_to_500")
	cfg, s := startCheckConfig(t, nil)
	cfg.Checkpoint = true
	s.afterChangelog = func(ctx context.Context) error {
		_, err := db.ExecContext(ctx, "CREATE TABLE _t_ghk (x INT)")
		return err
	}
	err := newWithSeams(t, cfg, s).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "create checkpoint table _t_ghk") {
		t.Fatalf("want the checkpoint table's creation to fail, got %v", err)
	}
	assertOriginalOnly(t, db, []string{"id", "e", "v"}, "_t_ghk")
}
