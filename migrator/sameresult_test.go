package migrator

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// sameResultDB is the database of the tests that compare a migrated table with the server's own
// ALTER TABLE ... ALGORITHM=COPY of the same rows.
const sameResultDB = "gl_sameresult"

// sameResultSetup creates t from create, fills it with the inserts, and returns the pool and an
// executing configuration with a postpone flag file (the caller removes it to cut over).
func sameResultSetup(t *testing.T, serverID uint32, create, alter string, inserts ...string) (*sql.DB, Config, string) {
	t.Helper()
	db := testenv.Database(t, sameResultDB)
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t, want, _t_del, _t_gho, _t_ghc", create)
	testenv.Exec(t, db, inserts...)
	cfg := DefaultConfig()
	cfg.Conn = testenv.PrimaryConfig()
	cfg.Database, cfg.Table, cfg.Alter = sameResultDB, "t", alter
	cfg.AllowOnMaster, cfg.Execute, cfg.OkToDropTable = true, true, true
	cfg.ReplicaServerID = serverID
	cfg.Logger = zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)
	postpone := filepath.Join(t.TempDir(), "postpone")
	if err := os.WriteFile(postpone, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.PostponeCutOverFlagFile, cfg.FlagFileInterval = postpone, 10*time.Millisecond
	return db, cfg, postpone
}

// setGlobal sets a global server variable for the test and restores it afterwards.
func setGlobal(t *testing.T, db *sql.DB, name, value string) {
	t.Helper()
	var old string
	if err := db.QueryRow("SELECT @@global." + name).Scan(&old); err != nil {
		t.Fatal(err)
	}
	testenv.Exec(t, db, fmt.Sprintf("SET GLOBAL %s = %s", name, table.QuoteString(value)))
	t.Cleanup(func() {
		if _, err := db.Exec(fmt.Sprintf("SET GLOBAL %s = %s", name, table.QuoteString(old))); err != nil {
			t.Errorf("restore %s: %v", name, err)
		}
	})
}

// serverSession is a connection with the server's global time zone and sql_mode, as a client that
// sets nothing has: where the server's own ALTER (the oracle) runs.
func serverSession(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		conn.Close()
	})
	if _, err := conn.ExecContext(context.Background(), "SET SESSION time_zone = @@global.time_zone, SESSION sql_mode = @@global.sql_mode"); err != nil {
		t.Fatal(err)
	}
	return conn
}

// runToPostponed starts the migration and waits until it postpones the cut-over.
func runToPostponed(t *testing.T, db *sql.DB, cfg Config) <-chan error {
	t.Helper()
	done := runMigration(t, cfg)
	waitPostponed(t, db, done)
	return done
}

// finishRun lets the postponed migration cut over and waits for its success.
func finishRun(t *testing.T, postpone string, done <-chan error) {
	t.Helper()
	if err := os.Remove(postpone); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("migration: %v", err)
		}
	case <-time.After(90 * time.Second):
		t.Fatal("the migration did not end")
	}
}

// assertSameRows compares every row of a and b (read as text in the pool's UTC session, so a
// TIMESTAMP compares by its instant) and names the first rows that differ.
func assertSameRows(t *testing.T, db *sql.DB, a, b string) {
	t.Helper()
	ra, rb := rowsText(t, db, a), rowsText(t, db, b)
	if strings.Join(ra, "\n") == strings.Join(rb, "\n") {
		return
	}
	n := 0
	for i := 0; i < len(ra) || i < len(rb); i++ {
		var x, y string
		if i < len(ra) {
			x = ra[i]
		}
		if i < len(rb) {
			y = rb[i]
		}
		if x != y && n < 5 {
			t.Errorf("row %d: %s has %q, %s has %q", i, a, x, b, y)
			n++
		}
	}
	t.Errorf("%s (%d rows) differs from %s (%d rows)", a, len(ra), b, len(rb))
}

func rowsText(t *testing.T, db *sql.DB, tbl string) []string {
	t.Helper()
	rows, err := db.Query("SELECT * FROM " + table.QuoteIdent(tbl) + " ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = "NULL"
			if v.Valid {
				parts[i] = v.String
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// assertSameDefinition compares the definitions of a and b (names aside).
func assertSameDefinition(t *testing.T, db *sql.DB, a, b string) {
	t.Helper()
	show := func(name string) string {
		var n, def string
		if err := db.QueryRow("SHOW CREATE TABLE "+table.QuoteIdent(name)).Scan(&n, &def); err != nil {
			t.Fatal(err)
		}
		return strings.Replace(def, "CREATE TABLE `"+name+"`", "CREATE TABLE x", 1)
	}
	if da, db2 := show(a), show(b); da != db2 {
		t.Errorf("definitions differ:\n%s\n%s", da, db2)
	}
}
