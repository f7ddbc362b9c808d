package migrator

import (
	"database/sql"
	"fmt"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Other sessions' routine maintenance during a run (a nightly mysqlcheck over every table):
// OPTIMIZE TABLE of the original and of each helper table, ANALYZE and CHECK TABLE, while the
// cut-over is postponed. Each is ridden out: the run completes with the server's own ALTER's
// result. An OPTIMIZE rebuilds the table (InnoDB gives it a new table id) without changing a row:
// it must not be taken for the ghost being replaced.
func TestRoutineMaintenanceDuringTheRun(t *testing.T) {
	t.Parallel() // a database of its own
	// OPTIMIZE of each table (the one that rebuilds); ANALYZE and CHECK once each (they read).
	cases := [][2]string{{"OPTIMIZE TABLE", "original"}, {"OPTIMIZE TABLE", "ghost"}, {"OPTIMIZE TABLE", "changelog"},
		{"ANALYZE TABLE", "ghost"}, {"CHECK TABLE", "original"}}
	for _, c := range cases {
		stmt, which := c[0], c[1]
		t.Run(stmt+" "+which, func(t *testing.T) {
			alter := "ADD COLUMN c INT NOT NULL DEFAULT 3"
			db, cfg, postponeFile := sameResultSetup(t, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20) NOT NULL)", alter,
				"INSERT INTO t SELECT seq, CONCAT('r', seq) FROM seq_1_to_3000")
			testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
			done := runToPostponed(t, db, cfg)
			name := map[string]string{"original": "t", "ghost": table.GhostName("t"), "changelog": table.ChangelogName("t")}[which]
			maintain(t, db, stmt+" "+table.QuoteIdent(name))
			for _, tbl := range []string{"t", "want"} {
				testenv.Exec(t, db, fmt.Sprintf("UPDATE %s SET v = CONCAT(v, '+') WHERE id <= 10", tbl),
					fmt.Sprintf("INSERT INTO %s (id, v) VALUES (5000, 'after')", tbl))
			}
			finishRun(t, postponeFile, done)
			assertSameAsServerAlter(t, db, "want", alter)
			if left := testenv.TableNames(t, db, cfg.Database, "_t_"); len(left) > 0 {
				t.Errorf("helper tables left: %v", left)
			}
		})
	}
}

// maintain runs a maintenance statement (it returns a result set) and reads its result.
func maintain(t *testing.T, db *sql.DB, stmt string) {
	t.Helper()
	rows, err := db.Query(stmt)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	defer rows.Close()
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}
