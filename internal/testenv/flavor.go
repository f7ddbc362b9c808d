package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// flavors caches Flavor by server address: a test process talks to one sandbox, and every
// Database, WaitReplica and flavor limit asks.
var flavors sync.Map // address -> dbconn.Flavor

// Flavor is the flavor of the sandbox primary (MariaDB or MySQL, and its version), read from the
// server once per test process.
func Flavor(t testing.TB) dbconn.Flavor {
	t.Helper()
	c := PrimaryConfig()
	if f, ok := flavors.Load(c.Addr()); ok {
		return f.(dbconn.Flavor)
	}
	db := Open(t, c, "")
	defer db.Close()
	f, err := dbconn.DetectFlavor(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	flavors.Store(c.Addr(), f)
	return f
}

// FlavorLimit skips a test that cannot apply to the sandbox's flavor, saying why. It is the one
// skip CI allows: a declared limit of the flavor, never a missing server.
func FlavorLimit(t testing.TB, applies func(dbconn.Flavor) bool, why string) {
	t.Helper()
	if f := Flavor(t); !applies(f) {
		t.Skipf("flavor limit: not on %s: %s", f, why)
	}
}

// OnlyMariaDB is FlavorLimit for a test of a MariaDB-only behaviour.
func OnlyMariaDB(t testing.TB, why string) {
	t.Helper()
	FlavorLimit(t, func(f dbconn.Flavor) bool { return f.MariaDB }, why)
}

// OnlyMySQL is FlavorLimit for a test of a MySQL-only behaviour.
func OnlyMySQL(t testing.TB, why string) {
	t.Helper()
	FlavorLimit(t, func(f dbconn.Flavor) bool { return !f.MariaDB }, why)
}

var seqName = regexp.MustCompile(`\bseq_(\d+)_to_(\d+)\b`)

// seqSizes are the sequences that tests build from a computed size (seq_1_to_%d).
var seqSizes = []int{10, 100, 500, 1000, 2000, 3000, 5000, 10000, 20000, 50000, 60000, 100000, 200000, 1000000}

// SeqTables makes MariaDB's sequence tables (seq_1_to_1000: one column seq, 1..1000) usable on MySQL,
// which has no SEQUENCE engine: in schema it creates a view of that name for every seq_A_to_B named in
// texts or in this package's test files, over a numbers table in the schema ghostlite_seq. On MariaDB
// it does nothing. The views are not listed by TableNames.
func SeqTables(t testing.TB, db *sql.DB, schema string, texts ...string) {
	t.Helper()
	if Flavor(t).MariaDB {
		return
	}
	names := seqNamesIn(texts)
	for _, n := range seqSizes {
		names = append(names, [2]int{1, n})
	}
	ctx := context.Background()
	ensureNumbers(t, db)
	for _, r := range slices.Compact(names) {
		q := fmt.Sprintf("CREATE OR REPLACE VIEW %s.seq_%d_to_%d AS SELECT n AS seq FROM ghostlite_seq.n WHERE n BETWEEN %[2]d AND %[3]d ORDER BY n",
			quote(schema), r[0], r[1])
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// seqNamesIn finds the sequence names in texts and in the *_test.go files of the working directory
// (the package under test), sorted.
func seqNamesIn(texts []string) [][2]int {
	if files, err := filepath.Glob("*_test.go"); err == nil {
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	var names [][2]int
	for _, text := range texts {
		for _, m := range seqName.FindAllStringSubmatch(text, -1) {
			lo, _ := strconv.Atoi(m[1])
			hi, _ := strconv.Atoi(m[2])
			names = append(names, [2]int{lo, hi})
		}
	}
	slices.SortFunc(names, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return names
}

// numbersReady is set once this process saw ghostlite_seq.n complete on its sandbox.
var numbersReady atomic.Bool

// ensureNumbers creates ghostlite_seq.n with 0..1,048,575 once per server; a process checks it
// once (its largest number: the table is filled by one statement, so it is complete or empty).
func ensureNumbers(t testing.TB, db *sql.DB) {
	t.Helper()
	if numbersReady.Load() {
		return
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Test processes run at once: one builds the table while the others wait for it, not drop it.
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK('ghostlite_seq', 120)").Scan(&got); err != nil || got.Int64 != 1 {
		t.Fatalf("GET_LOCK('ghostlite_seq'): %v (%v)", got, err)
	}
	defer conn.ExecContext(ctx, "DO RELEASE_LOCK('ghostlite_seq')") //nolint:errcheck // closing the connection releases it too
	var largest sql.NullInt64
	if conn.QueryRowContext(ctx, "SELECT MAX(n) FROM ghostlite_seq.n").Scan(&largest) == nil && largest.Int64 == 1<<20-1 {
		numbersReady.Store(true)
		return
	}
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS ghostlite_seq",
		"DROP TABLE IF EXISTS ghostlite_seq.n", "DROP TABLE IF EXISTS ghostlite_seq.d",
		"CREATE TABLE ghostlite_seq.d (d INT PRIMARY KEY)",
		"INSERT INTO ghostlite_seq.d VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9),(10),(11),(12),(13),(14),(15)",
		"CREATE TABLE ghostlite_seq.n (n INT PRIMARY KEY)",
		`INSERT INTO ghostlite_seq.n SELECT a.d + 16*b.d + 256*c.d + 4096*e.d + 65536*f.d
		 FROM ghostlite_seq.d a, ghostlite_seq.d b, ghostlite_seq.d c, ghostlite_seq.d e, ghostlite_seq.d f`} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	numbersReady.Store(true)
}

// ExecWithSQLMode runs stmts in schema on a session of its own whose sql_mode is mode (MariaDB's
// SET STATEMENT has no MySQL equivalent that works for every statement: MySQL 9.7 ignores a
// sql_mode SET_VAR hint after INSERT, measured).
func ExecWithSQLMode(t testing.TB, schema, mode string, stmts ...string) {
	t.Helper()
	db := Open(t, PrimaryConfig(), schema)
	defer db.Close()
	db.SetMaxOpenConns(1)
	Exec(t, db, "SET SESSION sql_mode = '"+mode+"'")
	Exec(t, db, stmts...)
}

// ExplainAccess is the access type (range, ref, ALL, ...) of the first table EXPLAIN lists for q, in
// the traditional format on either flavor (MySQL 9.7 prints a tree by default).
func ExplainAccess(ctx context.Context, t testing.TB, conn *sql.Conn, q string, args ...any) string {
	t.Helper()
	f, err := dbconn.DetectFlavor(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	prefix := "EXPLAIN "
	if !f.MariaDB {
		prefix = "EXPLAIN FORMAT=TRADITIONAL "
	}
	rows, err := conn.QueryContext(ctx, prefix+q, args...)
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", q, err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("EXPLAIN %s: no plan (%v)", q, rows.Err())
	}
	row, err := rowMap(rows)
	if err != nil {
		t.Fatal(err)
	}
	if typ, ok := row["type"]; ok {
		return typ
	}
	t.Fatalf("EXPLAIN %s: no type column in %v", q, row)
	return ""
}

// rowMap scans the current row of rows into a map from column name to value (NULL as "").
func rowMap(rows *sql.Rows) (map[string]string, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	return dbconn.RowMap(rows, cols)
}

// WaitReplicaRunning waits (at most 30 s) until both replication threads of the server of db run,
// as after a START SLAVE / START REPLICA (the IO thread is "Connecting" at first).
func WaitReplicaRunning(t testing.TB, db *sql.DB) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ReplicaRunning(t, db); {
		if time.Now().After(deadline) {
			t.Fatal("replication did not start within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
