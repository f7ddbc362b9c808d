// Package testenv is the test support every package shares: it connects tests to the sandbox
// servers started by script/sandbox, and holds the plumbing tests would otherwise copy: a log
// buffer to assert on (logs.go), tables and their columns and rows (tables.go), waiting for a
// condition instead of sleeping (wait.go), killing sessions (sessions.go), and the replica
// server id of each binlog stream with the command-line flags of a migration (serverid.go). The
// write load that records acknowledged writes is internal/loadgen.
//
// Invariants: settings come from the GHOSTLITE_TEST_* variables printed by `script/sandbox env`
// (defaults: the sandbox's own ports and user). When the sandbox does not answer, a test is
// skipped when run by hand, and fails under CI=true: CI never passes on skipped integration tests.
// Each test works in a database of its own (OwnDatabase; Database for a package's shared one),
// so packages run at once (script/test's -p) and tests of a package may call t.Parallel. Every
// test that connects holds the sandbox's serial lock shared; a test that changes server-wide
// state (SetGlobal, a prepared XA transaction, a restart, replication stopped) calls Serial and
// runs alone on the sandbox, across processes (serial.go).
// Every replica server id a test uses comes from NextServerID, never picked by hand: two streams
// with one id on one server cut each other off. testenv imports no package of the tool but
// internal leaves, so any package's own tests (package migrator included) may use it; the
// config.Config of a migration is built by config/configtest.
package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"hash/crc32"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func port(name string, def int) int {
	p, err := strconv.Atoi(env(name, strconv.Itoa(def)))
	if err != nil {
		return def
	}
	return p
}

// PrimaryConfig is the sandbox primary's connection settings.
func PrimaryConfig() dbconn.Config {
	return dbconn.Config{
		Host:     env("GHOSTLITE_TEST_HOST", "127.0.0.1"),
		Port:     port("GHOSTLITE_TEST_PORT", 23306),
		User:     env("GHOSTLITE_TEST_USER", "ghostlite"),
		Password: env("GHOSTLITE_TEST_PASSWORD", "ghostlite"),
		Timeout:  3 * time.Second,
	}
}

// ReplicaConfig is the sandbox replica's connection settings.
func ReplicaConfig() dbconn.Config {
	c := PrimaryConfig()
	c.Port = port("GHOSTLITE_TEST_REPLICA_PORT", 23307)
	return c
}

// Unavailable skips the test, or fails it under CI=true.
func Unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("sandbox required under CI=true: %s (start it with script/sandbox up)", why)
	}
	t.Skipf("sandbox not available: %s (start it with script/sandbox up)", why)
}

// Open connects to the server described by c, in schema, or skips/fails the test.
func Open(t testing.TB, c dbconn.Config, schema string) *sql.DB {
	t.Helper()
	sandboxSerial().holdShared(t) // until the test ends, no Serial test runs (serial.go); it may wait for one
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Only an unreachable server counts as "no sandbox"; any other failure is a real one.
	if conn, err := net.DialTimeout("tcp", c.Addr(), 2*time.Second); err != nil {
		Unavailable(t, err.Error())
	} else {
		_ = conn.Close() // a probe: only the dial mattered
	}
	db, err := dbconn.Open(ctx, c, schema)
	if err != nil {
		t.Fatalf("sandbox at %s: %v", c.Addr(), err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Database creates (or empties) the database name on the primary and returns a pool on it.
// Use one database per test package: name it after the package, e.g. "gl_migrator". The sandbox
// replica creates a gl_* database but applies none of its tables (script/sandbox's
// replica_filters): a test that reads the replica names its database glr_*, e.g. "glr_throttle".
func Database(t testing.TB, name string) *sql.DB {
	t.Helper()
	admin := Open(t, PrimaryConfig(), "")
	ctx := context.Background()
	for _, q := range []string{
		"DROP DATABASE IF EXISTS " + quote(name),
		"CREATE DATABASE " + quote(name),
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	SeqTables(t, admin, name)
	return Open(t, PrimaryConfig(), name)
}

// OwnDatabase creates a database for this test alone, named prefix_<8 hex digits of a hash of the
// test's name>, and returns a pool on it and its name: tests of one package that each take their
// own may run in parallel (t.Parallel). The database is dropped when the test passes.
func OwnDatabase(t testing.TB, prefix string) (*sql.DB, string) {
	t.Helper()
	name := fmt.Sprintf("%s_%08x", prefix, crc32.ChecksumIEEE([]byte(t.Name())))
	db := Database(t, name)
	t.Cleanup(func() {
		if !t.Failed() {
			_, _ = db.Exec("DROP DATABASE IF EXISTS " + quote(name)) // best effort: the next run recreates it
		}
	})
	return db, name
}

// DatabaseOf is the database db's sessions work in (the schema given to Open or Database).
func DatabaseOf(t testing.TB, db *sql.DB) string {
	t.Helper()
	var name sql.NullString
	if err := db.QueryRow("SELECT DATABASE()").Scan(&name); err != nil || !name.Valid {
		t.Fatalf("the pool's database: %v (%v)", name.String, err)
	}
	return name.String
}

// Exec runs statements and fails the test on the first error.
func Exec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// SetGlobal sets a global server variable for the test and restores it afterwards; the test runs
// alone on the sandbox (Serial). value is
// written as a number when it is one, else as a string literal ('OFF', 'READ-UNCOMMITTED').
func SetGlobal(t testing.TB, db *sql.DB, name, value string) {
	t.Helper()
	Serial(t) // every session of the sandbox sees it
	var old sql.NullString
	if err := db.QueryRow("SELECT @@global." + name).Scan(&old); err != nil {
		t.Fatal(err)
	}
	Exec(t, db, fmt.Sprintf("SET GLOBAL %s = %s", name, globalValue(value)))
	t.Cleanup(func() {
		if _, err := db.Exec(fmt.Sprintf("SET GLOBAL %s = %s", name, globalValue(old.String))); err != nil {
			t.Errorf("restore %s: %v", name, err)
		}
	})
}

func globalValue(v string) string {
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return v
	}
	return table.QuoteString(v)
}

// TableNames lists the tables of schema whose names contain substr ("" for all).
func TableNames(t testing.TB, db *sql.DB, schema, substr string) []string {
	t.Helper()
	// MySQL's stand-ins for MariaDB's sequence tables (SeqTables) are not the test's tables
	rows, err := db.Query(`SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?
		AND NOT (TABLE_TYPE = 'VIEW' AND TABLE_NAME LIKE 'seq\_%') ORDER BY TABLE_NAME`, schema)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(n, substr) {
			names = append(names, n)
		}
	}
	return names
}

// Checksum returns a checksum of every row of schema.tbl over the given columns, ordered by
// orderBy: equal checksums mean equal data, compared on the server. Values are hashed as their
// bytes (CAST AS BINARY), so a float or decimal is compared by its full text, not rounded.
func Checksum(t testing.TB, db *sql.DB, schema, tbl string, columns []string, orderBy string) (rows int64, sum string) {
	t.Helper()
	exprs := make([]string, len(columns))
	for i, c := range columns {
		exprs[i] = fmt.Sprintf("COALESCE(HEX(CAST(%s AS BINARY)), 'NULL')", quote(c))
	}
	q := fmt.Sprintf(`SELECT COUNT(*), COALESCE(LEFT(SHA2(GROUP_CONCAT(LEFT(SHA2(CONCAT_WS('|', %s), 256), 32) ORDER BY %s SEPARATOR ''), 256), 32), '')
		FROM %s.%s`, strings.Join(exprs, ", "), orderBy, quote(schema), quote(tbl))
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET SESSION group_concat_max_len = 1073741824"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, q).Scan(&rows, &sum); err != nil {
		t.Fatalf("checksum %s.%s: %v", schema, tbl, err)
	}
	return rows, sum
}

// WaitReplica waits (at most 2 minutes: the replica applies the writes of every test package,
// and they run at once) until the sandbox replica has applied everything the primary has logged
// so far.
func WaitReplica(t testing.TB) {
	t.Helper()
	primary := Open(t, PrimaryConfig(), "")
	defer primary.Close()
	replica := Open(t, ReplicaConfig(), "")
	defer replica.Close()
	posSQL, waitSQL := "SELECT @@gtid_binlog_pos", "SELECT MASTER_GTID_WAIT(?, 120)"
	if !Flavor(t).MariaDB {
		posSQL, waitSQL = "SELECT @@gtid_executed", "SELECT WAIT_FOR_EXECUTED_GTID_SET(?, 120)"
	}
	var pos string
	if err := primary.QueryRow(posSQL).Scan(&pos); err != nil {
		t.Fatal(err)
	}
	var res sql.NullInt64
	if err := replica.QueryRow(waitSQL, pos).Scan(&res); err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.Int64 != 0 {
		t.Fatalf("the sandbox replica did not reach %s within 2 minutes", pos)
	}
}

func quote(n string) string { return "`" + strings.ReplaceAll(n, "`", "``") + "`" }

// ReplicaStatus is the replica status row of db (SHOW SLAVE STATUS on MariaDB, SHOW REPLICA STATUS
// on MySQL), column by column; empty when db replicates from nothing.
func ReplicaStatus(t testing.TB, db *sql.DB) map[string]string {
	t.Helper()
	q := Flavor(t).ReplicaStatusSQL()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	st := map[string]string{}
	if rows.Next() {
		if st, err = rowMap(rows); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return st
}

// ReplicaRunning says whether both replication threads of db run (what MariaDB's Slave_running
// status shows; MySQL has no such status).
func ReplicaRunning(t testing.TB, db *sql.DB) bool {
	t.Helper()
	sqlCol := Flavor(t).SQLThreadRunningColumn() // Slave_SQL_Running or Replica_SQL_Running
	st := ReplicaStatus(t, db)
	return st[sqlCol] == "Yes" && st[strings.Replace(sqlCol, "SQL", "IO", 1)] == "Yes"
}

// SilentServer is a loopback port that accepts connections and never answers: a server that
// hangs before its handshake. The listener and every accepted connection close with the test.
func SilentServer(t testing.TB) (host string, port int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var conns []net.Conn
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				break
			}
			conns = append(conns, c)
		}
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
	})
	return "127.0.0.1", ln.Addr().(*net.TCPAddr).Port
}

// ShortTempDir is a new folder for the test, removed when it ends, with a short path: a unix
// socket's path has at most 107 bytes, and t.TempDir's holds the test's name (script/test also
// gives each flavor's tests a TMPDIR of their own). Put the tests' socket files here.
func ShortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gls")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}
