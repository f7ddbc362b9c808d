package migrator

import (
	"context"
	"database/sql"
	"os"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// strictZeroDateMode is a strict global sql_mode with both zero date checks (MySQL's default has
// them; MariaDB's does not).
const strictZeroDateMode = "STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// zeroDateCase is a column holding value (written under a permissive sql_mode) and an ALTER.
// refused says the server's own ALTER refuses it under strictZeroDateMode (checked by the test
// before the tool runs: the server is the judge).
type zeroDateCase struct {
	name, column, value, alter string
	refused                    bool
}

var zeroDateCases = []zeroDateCase{
	{"zero datetime to timestamp", "dt DATETIME NULL", "0000-00-00 00:00:00", "MODIFY dt TIMESTAMP NULL", true},
	{"zero date to datetime", "dt DATE NULL", "0000-00-00", "MODIFY dt DATETIME NULL", true},
	{"zero in date to datetime", "dt DATE NULL", "2020-00-10", "MODIFY dt DATETIME NULL", true},
	{"zero in datetime to timestamp", "dt DATETIME NULL", "2020-00-10 00:00:00", "MODIFY dt TIMESTAMP NULL", true},
	{"zero timestamp to datetime", "dt TIMESTAMP NULL", "0000-00-00 00:00:00", "MODIFY dt DATETIME NULL", true},
	{"zero datetime untouched", "dt DATETIME NULL", "0000-00-00 00:00:00", "ADD COLUMN c INT NULL", true},
	{"zero datetime to varchar", "dt DATETIME NULL", "0000-00-00 00:00:00", "MODIFY dt VARCHAR(30) NULL", false},
	{"year zero datetime to date", "dt DATETIME NULL", "0000-01-01 00:00:00", "MODIFY dt DATE NULL", false},
}

// zeroDateTable makes prepareDB.t with rows 1..200 holding valid dates in c's column, plus row
// 201 holding c.value when withZero (written under an empty sql_mode).
func zeroDateTable(t *testing.T, db *sql.DB, c zeroDateCase, withZero bool) {
	t.Helper()
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS t_oracle",
		"CREATE TABLE t (id INT PRIMARY KEY, "+c.column+", v INT NOT NULL DEFAULT 0)",
		"INSERT INTO t (id, dt) SELECT seq, '2021-03-04' FROM seq_1_to_200")
	if withZero {
		testenv.ExecWithSQLMode(t, prepareDB, "", "INSERT INTO t (id, dt) VALUES (201, '"+c.value+"')")
	}
}

// serverRefuses runs c's ALTER on a copy of t in a session with the server's global settings and
// says whether the server refused it.
func serverRefuses(t *testing.T, db *sql.DB, c zeroDateCase) bool {
	t.Helper()
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t_oracle", "CREATE TABLE t_oracle LIKE t")
	testenv.ExecWithSQLMode(t, prepareDB, "", "INSERT INTO t_oracle SELECT * FROM t")
	_, err := serverSession(t, db).ExecContext(context.Background(), "ALTER TABLE t_oracle "+c.alter+", ALGORITHM=COPY")
	testenv.Exec(t, db, "DROP TABLE t_oracle")
	return err != nil
}

// TestZeroDatesJudgedLikeServerALTER: under a strict global sql_mode with NO_ZERO_DATE and
// NO_ZERO_IN_DATE, the server's own ALTER refuses a table holding a zero date or a date with a
// zero part in a column it stores as a date (a column it does not touch too); the tool refuses it
// as well, whether the row is copied or written during the run (applied from the binary log), and
// leaves the original as it was. Where the server accepts the value (into a string, a zero year),
// the tool migrates.
func TestZeroDatesJudgedLikeServerALTER(t *testing.T) {
	db := testenv.Database(t, prepareDB)
	setGlobal(t, db, "sql_mode", strictZeroDateMode)
	for i, c := range zeroDateCases {
		t.Run("copied "+c.name, func(t *testing.T) {
			zeroDateTable(t, db, c, true)
			if got := serverRefuses(t, db, c); got != c.refused {
				t.Fatalf("the server's ALTER refused: %v, the case says %v", got, c.refused)
			}
			before := captureState(t, db)
			cfg := testConfig(t, prepareDB, "t", c.alter, nil)
			executing(&cfg, uint32(77981+i))
			cfg.OkToDropTable = true
			err := mustNew(t, cfg).Run(context.Background())
			if !c.refused {
				if err != nil {
					t.Fatalf("the tool refused what the server's ALTER accepts: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("the tool migrated a zero date the server's ALTER refuses")
			}
			t.Logf("refusal: %v", err)
			assertUnchanged(t, db, before, "t")
		})
	}
	for i, c := range zeroDateCases {
		if !c.refused {
			continue
		}
		t.Run("applied "+c.name, func(t *testing.T) {
			zeroDateTable(t, db, c, false)
			cfg := testConfig(t, prepareDB, "t", c.alter, nil)
			executing(&cfg, uint32(77991+i))
			flag := postpone(t, &cfg)
			done := runMigration(t, cfg)
			waitPostponed(t, db, done)
			testenv.ExecWithSQLMode(t, prepareDB, "", "INSERT INTO t (id, dt) VALUES (201, '"+c.value+"')")
			if !serverRefuses(t, db, c) {
				t.Fatal("the server's ALTER accepts the table with the row written during the run")
			}
			if err := os.Remove(flag); err != nil {
				t.Fatal(err)
			}
			err := waitFailed(t, done, "with a zero date the server's ALTER refuses")
			t.Logf("refusal: %v", err)
			for _, helper := range []string{"_t_gho", "_t_ghc", "_t_del"} {
				if names := testenv.TableNames(t, db, prepareDB, helper); len(names) > 0 {
					t.Errorf("helper table %s left behind", helper)
				}
			}
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 201 {
				t.Errorf("the original has %d rows (%v), want 201", n, err)
			}
		})
	}
}

// zeroDateChecks: each zero date check counts only with a strict mode, as the server applies it.
func TestZeroDateChecks(t *testing.T) {
	for _, c := range []struct {
		mode           string
		zero, zeroPart bool
	}{
		{strictZeroDateMode, true, true},
		{"STRICT_ALL_TABLES,NO_ZERO_DATE", true, false},
		{"NO_ZERO_DATE,NO_ZERO_IN_DATE", false, false}, // not strict: the ALTER only warns
		{"STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION", false, false},
	} {
		if z, p := zeroDateChecks(c.mode); z != c.zero || p != c.zeroPart {
			t.Errorf("zeroDateChecks(%q) = %v, %v; want %v, %v", c.mode, z, p, c.zero, c.zeroPart)
		}
	}
}
