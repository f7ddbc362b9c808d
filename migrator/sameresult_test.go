package migrator

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// sameResultDB names the databases of the tests that compare a migrated table with the server's
// own ALTER TABLE ... ALGORITHM=COPY of the same rows (one per test: cfg.Database).
const sameResultDB = "gl_sameresult"

// sameResultSetup creates t from create, fills it with the inserts, and returns the pool and an
// executing configuration with a postpone flag file (the caller removes it to cut over).
func sameResultSetup(t *testing.T, create, alter string, inserts ...string) (*sql.DB, config.Config, string) {
	t.Helper()
	db, schema := testenv.OwnTable(t, sameResultDB, create, inserts...)
	cfg := testConfig(t, schema, "t", alter, nil)
	live(&cfg)
	cfg.OkToDropTable = true
	cfg.Logger = cfg.Logger.Level(zerolog.InfoLevel)
	return db, cfg, postpone(t, &cfg)
}

// serverSession is a connection with the server's global time zone and sql_mode and a utf8mb4
// client, as an application that sets nothing else has: where the server's own ALTER (the oracle)
// runs.
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
	if _, err := conn.ExecContext(context.Background(), "SET NAMES utf8mb4"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "SET SESSION time_zone = @@global.time_zone, SESSION sql_mode = @@global.sql_mode"); err != nil {
		t.Fatal(err)
	}
	return conn
}

// runToPostponed starts the migration and waits until it postpones the cut-over.
func runToPostponed(t *testing.T, db *sql.DB, cfg config.Config) <-chan error {
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
	if err := testenv.WaitResult(t, done, 90*time.Second); err != nil {
		t.Fatalf("migration: %v", err)
	}
}

// assertSameAsServerAlter runs the server's own ALTER of oracle (a copy of t's rows) in a session
// with the server's globals, and checks the migrated t has its definition and its rows.
func assertSameAsServerAlter(t *testing.T, db *sql.DB, oracle, alter string) {
	t.Helper()
	conn := serverSession(t, db)
	if _, err := conn.ExecContext(t.Context(), "ALTER TABLE "+oracle+" "+alter+", ALGORITHM=COPY"); err != nil {
		t.Fatalf("the server's own ALTER: %v", err)
	}
	assertSameDefinition(t, db, "t", oracle)
	assertSameRows(t, db, "t", oracle)
}

// oracleSchema names the databases that hold the oracles named like the migrated table
// (oracleElsewhere).
const oracleSchema = "gl_sameresult_oracle"

// oracleElsewhere makes t in a database of its own (returned) an exact copy of schema.t's definition (from its SHOW CREATE
// TABLE, so MySQL keeps its CHECK constraint names, which CREATE ... LIKE renames: they are unique
// per schema and generated from the table's name) and rows. Apply to it the writes made to t
// during the run, then call assertSameAsServerAlterElsewhere.
func oracleElsewhere(t *testing.T, db *sql.DB, schema string) string {
	t.Helper()
	var n, create string
	if err := db.QueryRow("SHOW CREATE TABLE t").Scan(&n, &create); err != nil {
		t.Fatal(err)
	}
	oracle, name := testenv.OwnDatabase(t, oracleSchema)
	testenv.Exec(t, oracle, create, "INSERT INTO t SELECT * FROM "+table.Qualify(schema, "t"))
	return name
}

// assertSameAsServerAlterElsewhere runs the server's own ALTER of oracle.t in a session with the
// server's globals and checks the migrated schema.t has its definition and its rows.
func assertSameAsServerAlterElsewhere(t *testing.T, db *sql.DB, schema, oracle, alter string) {
	t.Helper()
	conn := serverSession(t, db)
	if _, err := conn.ExecContext(t.Context(), "ALTER TABLE "+table.Qualify(oracle, "t")+" "+alter+", ALGORITHM=COPY"); err != nil {
		t.Fatalf("the server's own ALTER: %v", err)
	}
	show := func(in string) string {
		var n, def string
		if err := db.QueryRow("SHOW CREATE TABLE "+table.Qualify(in, "t")).Scan(&n, &def); err != nil {
			t.Fatal(err)
		}
		return def
	}
	if got, want := show(schema), show(oracle); got != want {
		t.Errorf("definitions differ:\n%s\nthe server's ALTER:\n%s", got, want)
	}
	got, want := testenv.RowsText(t, db, schema, "t", "1"), testenv.RowsText(t, db, oracle, "t", "1")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows differ: %d rows, the server's ALTER %d:\n%v\n%v", len(got), len(want), got, want)
	}
}

// assertSameRows compares every row of a and b (read as text in the pool's UTC session, so a
// TIMESTAMP compares by its instant) and names the first rows that differ.
func assertSameRows(t *testing.T, db *sql.DB, a, b string) {
	t.Helper()
	ra, rb := testenv.RowsText(t, db, testenv.DatabaseOf(t, db), a, "1"), testenv.RowsText(t, db, testenv.DatabaseOf(t, db), b, "1")
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
