package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// TestNamesCompareExactly: on a case-sensitive server (lower_case_table_names=0) tables whose
// names differ only in letter case are different tables, while information_schema compares names
// case-insensitively. A migration of caseu beside CASEU, and of casev beside a user's _CASEV_gho,
// must complete (it swapped, then failed reading the wrong table's id) and leave the twin alone.
func TestNamesCompareExactly(t *testing.T) {
	cases := []struct {
		name, tbl string
		setup     []string
		twin      string
	}{
		{"twin table", "caseu", []string{
			"CREATE TABLE CASEU (id BIGINT NOT NULL PRIMARY KEY, w VARCHAR(10) NOT NULL, x INT, UNIQUE KEY (w))", "INSERT INTO CASEU SELECT seq, seq, seq FROM seq_1_to_50",
			"CREATE TABLE caseu (id INT NOT NULL PRIMARY KEY, v INT NOT NULL)", "INSERT INTO caseu SELECT seq, seq FROM seq_1_to_300",
		}, "CASEU"},
		{"twin of the ghost", "casev", []string{
			"CREATE TABLE _CASEV_gho (id BIGINT NOT NULL PRIMARY KEY, w VARCHAR(10) NOT NULL, x INT)", "INSERT INTO _CASEV_gho SELECT seq, seq, seq FROM seq_1_to_50",
			"CREATE TABLE casev (id INT NOT NULL PRIMARY KEY, v INT NOT NULL)", "INSERT INTO casev SELECT seq, seq FROM seq_1_to_300",
		}, "_CASEV_gho"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := testenv.Database(t, prepareDB)
			var lctn int
			if err := db.QueryRow("SELECT @@lower_case_table_names").Scan(&lctn); err != nil {
				t.Fatal(err)
			}
			if lctn != 0 {
				t.Skipf("lower_case_table_names=%d: names differing in case are one table", lctn)
			}
			testenv.Exec(t, db, c.setup...)
			twinBefore := othersState(t, db, c.tbl)[c.twin]
			cfg := testConfig(t, prepareDB, c.tbl, "ADD COLUMN c INT NULL", nil)
			live(&cfg)
			cfg.OkToDropTable = true
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := mustNew(t, cfg).Run(ctx); err != nil {
				t.Fatalf("the migration failed: %v", err)
			}
			if got := tableColumnNames(t, db, c.tbl); len(got) != 3 {
				t.Errorf("%s has columns %v after the migration, want id, v, c", c.tbl, got)
			}
			if after := othersState(t, db, c.tbl); after[c.twin] != twinBefore {
				t.Errorf("%s changed: before %s, after %s", c.twin, twinBefore, after[c.twin])
			}
			assertLockFree(t, db, c.tbl)
		})
	}
}

// othersState is every table of the schema but tbl, with its row count and checksum.
func othersState(t *testing.T, db *sql.DB, tbl string) map[string]string {
	t.Helper()
	st := map[string]string{}
	for _, name := range testenv.TableNames(t, db, prepareDB, "") {
		if name == tbl {
			continue
		}
		cols := tableColumnNames(t, db, name)
		rows, sum := testenv.Checksum(t, db, prepareDB, name, cols, "`"+cols[0]+"`")
		st[name] = fmt.Sprintf("%d/%s", rows, sum)
	}
	return st
}
