package migrator

import (
	"database/sql"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// DATETIME <-> TIMESTAMP changes are converted in the server's global time zone, as the server's
// own ALTER does, in the copy and in the binlog apply: with a fixed offset and with a zone whose
// daylight-saving transitions fall inside the data (the rows on both sides of each transition, the
// repeated hour included), rows copied and rows changed during the migration.
func TestTimestampConversionFollowsServerTimeZone(t *testing.T) {
	for _, zone := range []string{"+05:30", "America/New_York"} {
		t.Run(strings.ReplaceAll(zone, "/", "_"), func(t *testing.T) {
			testTimestampConversion(t, zone)
		})
	}
}

// The values on both sides of New York's 2020 transitions (spring gap 02:00-03:00 on March 8,
// repeated 01:00-02:00 on November 1), read as wall clocks.
var zoneEdgeValues = []string{
	"2020-03-08 01:59:59", "2020-03-08 03:00:00", "2020-03-08 03:30:00",
	"2020-11-01 00:59:59", "2020-11-01 01:00:00", "2020-11-01 01:30:00.5", "2020-11-01 01:59:59", "2020-11-01 02:00:00",
	"2020-06-01 12:01:00", "1970-01-02 00:00:00", "2038-01-18 00:00:00", "0000-00-00 00:00:00",
}

func testTimestampConversion(t *testing.T, zone string) {
	create := "CREATE TABLE t (id INT PRIMARY KEY, dt DATETIME(1) NULL, ts TIMESTAMP(1) NULL, d DATE NULL, keep TIMESTAMP NULL)"
	var inserts []string
	for i, v := range zoneEdgeValues {
		// ts and keep are written in the UTC session of the pool: their instants are v UTC.
		inserts = append(inserts, "INSERT INTO t VALUES ("+strconv.Itoa(i+1)+", '"+v+"', '"+v+"', '"+v[:10]+"', '"+v+"')")
	}
	alter := "MODIFY dt TIMESTAMP(1) NULL, MODIFY ts DATETIME(1) NULL, MODIFY d TIMESTAMP NULL"
	db, cfg, postpone := sameResultSetup(t, create, alter, inserts...)
	testenv.SetGlobal(t, db, "time_zone", zone)
	if !testenv.Flavor(t).MariaDB {
		// MySQL's default sql_mode (NO_ZERO_DATE, strict) refuses the zero value in the oracle's
		// ALTER; this test is about time zones: MariaDB's default sql_mode, which accepts it.
		testenv.SetGlobal(t, db, "sql_mode", "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION")
	}
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")

	done := runToPostponed(t, db, cfg)
	// Changes applied from the binlog: the same edge values, inserted and updated.
	for i, v := range zoneEdgeValues {
		id := strconv.Itoa(100 + i)
		for _, tbl := range []string{"t", "want"} {
			testenv.Exec(t, db,
				"INSERT INTO "+tbl+" VALUES ("+id+", '2021-01-01 00:00:00', '2021-01-01 00:00:00', '2021-01-01', '"+v+"')",
				"UPDATE "+tbl+" SET dt = '"+v+"', ts = '"+v+"', d = '"+v[:10]+"' WHERE id = "+id,
				"UPDATE "+tbl+" SET dt = '"+v+"', ts = '"+v+"', d = '"+v[:10]+"' WHERE id = "+strconv.Itoa(i+1))
		}
	}
	finishRun(t, postpone, done)

	assertSameAsServerAlter(t, db, "want", alter)
}

// A wall clock inside a daylight-saving gap has no TIMESTAMP: the server's own ALTER refuses it, and
// so does the migration (rows copied and rows applied alike), leaving the original in place.
func TestTimestampConversionRefusesDSTGap(t *testing.T) {
	create := "CREATE TABLE t (id INT PRIMARY KEY, dt DATETIME NULL)"
	for _, applied := range []bool{false, true} {
		t.Run(map[bool]string{false: "copied", true: "applied"}[applied], func(t *testing.T) {
			db, cfg, postpone := sameResultSetup(t, create, "MODIFY dt TIMESTAMP NULL",
				"INSERT INTO t VALUES (1, '2020-03-08 01:59:59'), (2, '2020-03-08 03:00:00')")
			testenv.SetGlobal(t, db, "time_zone", "America/New_York")
			if !applied {
				testenv.Exec(t, db, "INSERT INTO t VALUES (3, '2020-03-08 02:30:00')")
				if err := os.Remove(postpone); err != nil {
					t.Fatal(err)
				}
				err := waitFailed(t, runMigration(t, cfg), "over a wall clock in a daylight-saving gap")
				assertGapRefused(t, db, err)
				return
			}
			done := runToPostponed(t, db, cfg)
			testenv.Exec(t, db, "UPDATE t SET dt = '2020-03-08 02:30:00' WHERE id = 2")
			if err := os.Remove(postpone); err != nil {
				t.Fatal(err)
			}
			assertGapRefused(t, db, waitFailed(t, done, "over a wall clock in a daylight-saving gap"))
		})
	}
}

func assertGapRefused(t *testing.T, db *sql.DB, err error) {
	t.Helper()
	if !strings.Contains(err.Error(), table.ZoneRefusal) {
		t.Errorf("error does not name the time zone problem: %v", err)
	}
	if got := testenv.TableNames(t, db, testenv.DatabaseOf(t, db), ""); strings.Join(got, ",") != "t" {
		t.Errorf("tables after the refusal: %v, want only t", got)
	}
}
