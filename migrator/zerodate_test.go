package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// strictZeroDateMode is a strict global sql_mode with both zero date checks (MySQL's default has
// them; MariaDB's does not).
const strictZeroDateMode = "STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// zeroDateCase is a column holding value (written under a permissive sql_mode) and an ALTER.
// refused says the server's own ALTER refuses it under strictZeroDateMode (checked by the test
// before the tool runs: the server is the judge); refusedOnMariaDB, when set, says so on MariaDB
// instead.
type zeroDateCase struct {
	name, column, value, alter string
	refused                    bool
	refusedOnMariaDB           *bool
}

// refusedOn is c's expected verdict on flavor f.
func (c zeroDateCase) refusedOn(f dbconn.Flavor) bool {
	if f.MariaDB && c.refusedOnMariaDB != nil {
		return *c.refusedOnMariaDB
	}
	return c.refused
}

var yes = true

var zeroDateCases = []zeroDateCase{
	{"zero datetime to timestamp", "dt DATETIME NULL", "0000-00-00 00:00:00", "MODIFY dt TIMESTAMP NULL", true, nil},
	{"zero date to datetime", "dt DATE NULL", "0000-00-00", "MODIFY dt DATETIME NULL", true, nil},
	{"zero in date to datetime", "dt DATE NULL", "2020-00-10", "MODIFY dt DATETIME NULL", true, nil},
	{"zero in datetime to timestamp", "dt DATETIME NULL", "2020-00-10 00:00:00", "MODIFY dt TIMESTAMP NULL", true, nil},
	{"zero timestamp to datetime", "dt TIMESTAMP NULL", "0000-00-00 00:00:00", "MODIFY dt DATETIME NULL", true, nil},
	{"zero datetime untouched", "dt DATETIME NULL", "0000-00-00 00:00:00", "ADD COLUMN c INT NULL", true, nil},
	{"zero datetime to varchar", "dt DATETIME NULL", "0000-00-00 00:00:00", "MODIFY dt VARCHAR(30) NULL", false, nil},
	{"zero datetime(3) to varchar", "dt DATETIME(3) NULL", "0000-00-00 00:00:00", "MODIFY dt VARCHAR(30) NULL", false, nil},
	{"zero in date to char", "dt DATE NULL", "2020-00-10", "MODIFY dt CHAR(10) NULL", false, nil},
	{"year zero datetime to date", "dt DATETIME NULL", "0000-01-01 00:00:00", "MODIFY dt DATE NULL", false, nil},
	// Into a number or a TIME the server's ALTER converts them (issue 29): rows written during the
	// run were refused (the typed value is a date the writers' sql_mode refuses).
	{"zero date to int", "dt DATE NULL", "0000-00-00", "MODIFY dt INT NULL", false, nil},
	{"zero in datetime to bigint", "dt DATETIME NULL", "2020-00-10 12:34:56", "MODIFY dt BIGINT NULL", false, nil},
	{"zero datetime(6) to bigint", "dt DATETIME(6) NULL", "0000-00-00 12:34:56.5", "MODIFY dt BIGINT NULL", false, nil},
	{"zero in datetime(6) to decimal", "dt DATETIME(6) NULL", "2020-05-00 00:00:00.5", "MODIFY dt DECIMAL(22,6) NULL", false, nil},
	{"zero in date to double", "dt DATE NULL", "2020-05-00", "MODIFY dt DOUBLE NULL", false, nil},
	{"zero in date to time", "dt DATE NULL", "2020-00-10", "MODIFY dt TIME NULL", false, nil},
	{"zero datetime(6) to time", "dt DATETIME(6) NULL", "0000-00-00 12:34:56.5", "MODIFY dt TIME NULL", false, nil},
	{"zero timestamp to bigint", "dt TIMESTAMP NULL", "0000-00-00 00:00:00", "MODIFY dt BIGINT NULL", false, nil},
	{"zero timestamp(6) to decimal", "dt TIMESTAMP(6) NULL", "0000-00-00 00:00:00", "MODIFY dt DECIMAL(22,6) NULL", false, nil},
	{"zero timestamp to time", "dt TIMESTAMP NULL", "0000-00-00 00:00:00", "MODIFY dt TIME NULL", false, nil},
	// Into a BIT the server's ALTER converts the number too, and a zero TIMESTAMP into a string its
	// text (issue 29): rows written during the run were refused, and a zero TIMESTAMP copied.
	{"zero date to bit", "dt DATE NULL", "0000-00-00", "MODIFY dt BIT(64) NULL", false, nil},
	{"zero in date to bit", "dt DATE NULL", "2020-05-00", "MODIFY dt BIT(64) NULL", false, nil},
	{"zero in datetime(6) to bit", "dt DATETIME(6) NULL", "2020-00-10 12:34:56.5", "MODIFY dt BIT(64) NULL", false, nil},
	{"zero datetime(6) to bit", "dt DATETIME(6) NULL", "0000-00-00 00:00:00.999999", "MODIFY dt BIT(64) NULL", false, nil},
	{"zero timestamp to bit", "dt TIMESTAMP NULL", "0000-00-00 00:00:00", "MODIFY dt BIT(64) NULL", false, nil},
	{"zero timestamp(6) to bit", "dt TIMESTAMP(6) NULL", "0000-00-00 00:00:00", "MODIFY dt BIT(64) NULL", false, nil},
	{"zero timestamp to varchar", "dt TIMESTAMP NULL", "0000-00-00 00:00:00", "MODIFY dt VARCHAR(30) NULL", false, nil},
	{"zero timestamp(6) to char", "dt TIMESTAMP(6) NULL", "0000-00-00 00:00:00", "MODIFY dt CHAR(30) NULL", false, nil},
	{"zero timestamp(3) to blob", "dt TIMESTAMP(3) NULL", "0000-00-00 00:00:00", "MODIFY dt BLOB NULL", false, nil},
	// A YEAR takes no other date (MySQL's ALTER converts the number: out of range; MariaDB's
	// refuses the date): the other rows hold NULL there (yearCase).
	{"zero date to year", "dt DATE NULL", "0000-00-00", "MODIFY dt YEAR NULL", false, &yes},
	{"zero in date to year", "dt DATE NULL", "2020-00-10", "MODIFY dt YEAR NULL", true, nil},
	{"zero datetime to year", "dt DATETIME NULL", "0000-00-00 00:00:00", "MODIFY dt YEAR NULL", false, &yes},
	{"date to year", "dt DATE NULL", "2021-03-05", "MODIFY dt YEAR NULL", true, nil},
}

// yearCase says the other rows of case c hold NULL rather than a date (c's ALTER makes a YEAR).
func yearCase(c zeroDateCase) bool { return strings.HasSuffix(c.alter, "YEAR NULL") }

// zeroDateTable makes schema.t with rows 1..200 holding valid dates in c's column, plus row
// 201 holding c.value when withZero (written under an empty sql_mode).
func zeroDateTable(t *testing.T, db *sql.DB, schema string, c zeroDateCase, withZero bool) {
	t.Helper()
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS t_oracle", "DROP TABLE IF EXISTS _t_del",
		"CREATE TABLE t (id INT PRIMARY KEY, "+c.column+", v INT NOT NULL DEFAULT 0)",
		"INSERT INTO t (id, dt) SELECT seq, "+map[bool]string{false: "'2021-03-04'", true: "NULL"}[yearCase(c)]+" FROM seq_1_to_200")
	if withZero {
		testenv.ExecWithSQLMode(t, schema, "", "INSERT INTO t (id, dt) VALUES (201, '"+c.value+"')")
	}
}

// serverRefuses runs c's ALTER on a copy of t in a session with the server's global settings and
// says whether the server refused it.
func serverRefuses(t *testing.T, db *sql.DB, schema string, c zeroDateCase) bool {
	t.Helper()
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t_oracle", "CREATE TABLE t_oracle LIKE t")
	testenv.ExecWithSQLMode(t, schema, "", "INSERT INTO t_oracle SELECT * FROM t")
	_, err := serverSession(t, db).ExecContext(context.Background(), "ALTER TABLE t_oracle "+c.alter+", ALGORITHM=COPY")
	testenv.Exec(t, db, "DROP TABLE t_oracle")
	return err != nil
}

// TestZeroDatesJudgedLikeServerALTER: under a strict global sql_mode with NO_ZERO_DATE and
// NO_ZERO_IN_DATE, the server's own ALTER refuses a table holding a zero date or a date with a
// zero part in a column it stores as a date (a column it does not touch too); the tool refuses it
// as well, whether the row is copied or written during the run (applied from the binary log), and
// leaves the original as it was. Where the server accepts the value (into a string, a zero year),
// the tool migrates and gives what the server gives. Under a strict sql_mode without those checks
// (MariaDB's default) the server's verdict on each case decides alike.
func TestZeroDatesJudgedLikeServerALTER(t *testing.T) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	modes := []string{strictZeroDateMode, "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"}
	for m, mode := range modes {
		t.Run(fmt.Sprintf("mode %d", m), func(t *testing.T) {
			testenv.SetGlobal(t, admin, "sql_mode", mode) // for every case of the mode, which run alone on the sandbox
			for _, c := range zeroDateCases {
				for _, applied := range []bool{false, true} {
					name := "copied " + c.name
					if applied {
						name = "applied " + c.name
					}
					t.Run(name, func(t *testing.T) {
						t.Parallel() // each case in a database of its own
						db, schema := testenv.OwnDatabase(t, prepareDB)
						refused := judgeZeroDateCase(t, db, schema, c, applied)
						if want := c.refusedOn(testenv.Flavor(t)); mode == strictZeroDateMode && refused != want {
							t.Errorf("the server's ALTER refused: %v, the case says %v", refused, want)
						}
					})
				}
			}
		})
	}
}

// judgeZeroDateCase migrates table t holding c's value (copied, or written while the cut-over is
// postponed when applied) and checks the tool against the server's own ALTER of the same rows:
// both refuse (the original untouched, no helper table left) or both give the same table. It
// returns whether the server refused.
func judgeZeroDateCase(t *testing.T, db *sql.DB, schema string, c zeroDateCase, applied bool) bool {
	t.Helper()
	zeroDateTable(t, db, schema, c, !applied)
	cfg := testConfig(t, schema, "t", c.alter, nil)
	live(&cfg)
	var flag string
	if applied {
		flag = postpone(t, &cfg)
	}
	done := runMigration(t, cfg)
	if applied {
		waitPostponed(t, db, done)
		testenv.ExecWithSQLMode(t, schema, "", "INSERT INTO t (id, dt) VALUES (201, '"+c.value+"')")
	}
	refused := serverRefuses(t, db, schema, c)
	if applied {
		if err := os.Remove(flag); err != nil {
			t.Fatal(err)
		}
	}
	err := testenv.WaitResult(t, done, 90*time.Second)
	switch {
	case refused && err == nil:
		t.Fatal("the tool migrated a table the server's ALTER refuses")
	case !refused && err != nil:
		t.Fatalf("the tool refused a table the server's ALTER accepts: %v", err)
	case refused:
		t.Logf("refusal: %v", err)
		for _, helper := range []string{"_t_gho", "_t_ghc", "_t_del"} {
			if names := testenv.TableNames(t, db, schema, helper); len(names) > 0 {
				t.Errorf("helper table %s left behind", helper)
			}
		}
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 201 {
			t.Errorf("the original has %d rows (%v), want 201", n, err)
		}
	default:
		compareWithServerALTER(t, db, schema, c.alter)
	}
	return refused
}
