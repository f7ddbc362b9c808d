package migrator

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// ddlWatchDB is the database of the DDL-during-migration tests.
const ddlWatchDB = "glr_ddlwatch"

// TestDDLOnOriginalStopsMigration: a change of the original's definition or triggers made while
// the migration runs, in any spelling (an executable comment, a driver's "--\n" comment, CREATE
// TRIGGER), stops the migration with ErrOriginalAltered and a line naming the statement kind and
// the table; nothing is swapped, the original keeps its name and every row, no helper table is
// left. The ENUM reorder is the data-loss case: swapping in the stale ghost would remap every e
// by index.
func TestDDLOnOriginalStopsMigration(t *testing.T) {
	cases := []struct {
		name, ddl, kind string
	}{
		{"executable comment", "/*! ALTER TABLE t MODIFY e ENUM('c','b','a') */", "ALTER TABLE"},
		{"versioned comment", "/*M!100100 ALTER TABLE `glr_ddlwatch`.`t` MODIFY e ENUM('c','b','a') */", "ALTER TABLE"},
		{"driver dash comment", "--\nALTER TABLE t MODIFY e ENUM('c','b','a')", "ALTER TABLE"},
		{"create trigger", "CREATE TRIGGER trg_t AFTER INSERT ON t FOR EACH ROW SET @x = 1", "CREATE TRIGGER"},
	}
	if !testenv.Flavor(t).MariaDB { // MySQL reads /*M! as a comment: its own versioned form instead
		cases[1].ddl = "/*!80000 ALTER TABLE `glr_ddlwatch`.`t` MODIFY e ENUM('c','b','a') */"
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

			// A write before the DDL, the DDL as the application sends it (verbatim: no
			// client-side comment stripping), then the cut-over is released.
			testenv.Exec(t, db, "INSERT INTO t VALUES (5001, 'c', 5001)")
			conn, err := db.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(context.Background(), c.ddl); err != nil {
				t.Fatalf("%q: %v", c.ddl, err)
			}
			conn.Close()
			// Written after the DDL: its row event carries e by index in the new definition.
			testenv.Exec(t, db, "INSERT INTO t (id, e, v) VALUES (5002, 'a', 5002)")
			testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
			if err := os.Remove(flag); err != nil {
				t.Fatal(err)
			}

			err = waitFailed(t, done, "with a stale ghost table")
			t.Logf("the migration failed: %v", err)
			if !errors.Is(err, binlogapply.ErrOriginalAltered) {
				t.Fatalf("want ErrOriginalAltered, got %v", err)
			}
			for _, want := range []string{c.kind + " statement on glr_ddlwatch.t", "nothing was swapped", "restart the migration"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q: %v", want, err)
				}
			}
			cols := []string{"id", "e", "v"}
			gotRows, got := testenv.Checksum(t, db, ddlWatchDB, "t", cols, "id")
			_, want := testenv.Checksum(t, db, ddlWatchDB, "want", cols, "id")
			if got != want || gotRows != 2002 {
				t.Errorf("the original does not hold its rows (%d rows)", gotRows)
			}
			if ncols := len(testenv.Columns(t, db, ddlWatchDB, "t")); ncols != 3 {
				t.Errorf("the original has %d columns, want 3: the stale ghost was swapped in", ncols)
			}
			if left := testenv.TableNames(t, db, ddlWatchDB, "_t_"); len(left) != 0 {
				t.Errorf("helper tables left: %v", left)
			}
		})
	}
}
