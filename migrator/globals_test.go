package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The matrix of the server's global settings (doc/requirements.md, "Server settings"): with each
// one set, a short migration under a light write load either gives the server's own ALTER's
// result, copied rows and rows applied from the binlog alike, or is refused before anything is
// created with a line naming the setting. The tool's sessions set what they rely on
// (internal/dbconn/session.go) and carry the sql_mode flags that change stored values.

// globalCase is one setting of the matrix.
type globalCase struct {
	name    string
	global  string // variable; "sql_mode+" adds the flag in value to the server's sql_mode
	value   string
	applies func(dbconn.Flavor) bool // nil: every flavor
	hold    time.Duration            // the run stays postponed this long under the load
	early   bool                     // set before the schema is created (it acts on new schemas)
	refuse  string                   // "": migrates; else a text of the refusal
}

func onMySQL(f dbconn.Flavor) bool   { return !f.MariaDB }
func onMariaDB(f dbconn.Flavor) bool { return f.MariaDB }

var globalCases = []globalCase{
	{name: "autocommit off", global: "autocommit", value: "0"},
	{name: "serializable", global: "isolation", value: "SERIALIZABLE"},
	{name: "read uncommitted", global: "isolation", value: "READ-UNCOMMITTED"},
	{name: "short lock_wait_timeout", global: "lock_wait_timeout", value: "2"},
	{name: "short innodb_lock_wait_timeout", global: "innodb_lock_wait_timeout", value: "2"},
	// Idle sessions outlive a 3 s wait_timeout while the run is postponed.
	{name: "short wait_timeout", global: "wait_timeout", value: "3", hold: 5 * time.Second},
	{name: "short interactive_timeout", global: "interactive_timeout", value: "3", hold: 5 * time.Second},
	{name: "max_execution_time", global: "max_execution_time", value: "1", applies: onMySQL},
	{name: "max_statement_time", global: "max_statement_time", value: "0.001", applies: onMariaDB},
	{name: "explicit_defaults_for_timestamp off", global: "explicit_defaults_for_timestamp", value: "OFF"},
	{name: "named time zone", global: "time_zone", value: "Europe/Paris"},
	// New schemas are encrypted, and their tables (the helper tables too) with them: the sandbox
	// loads MySQL's file keyring (script/sandbox), without which CREATE DATABASE fails.
	{name: "default_table_encryption", global: "default_table_encryption", value: "ON", applies: onMySQL, early: true},
	// Every helper table has a primary key: none is refused or given an invisible one.
	{name: "sql_require_primary_key", global: "sql_require_primary_key", value: "ON", applies: onMySQL},
	{name: "sql_generate_invisible_primary_key", global: "sql_generate_invisible_primary_key", value: "ON", applies: onMySQL},
	// Partial JSON updates are applied from the before image (TestPartialJSONGlobalMigratesAsServerAlter
	// runs them on a JSON column under load).
	{name: "binlog_row_value_options partial_json", global: "binlog_row_value_options", value: "PARTIAL_JSON", applies: onMySQL},
	// MariaDB's snapshot isolation (ON by default from 11.6; 10.11 has it OFF) would fail the copy's
	// consistent read when it meets ghost rows the applier wrote: the sessions turn it off.
	{name: "innodb_snapshot_isolation on", global: "innodb_snapshot_isolation", value: "ON", applies: onMariaDB},
	{name: "binlog_row_image minimal", global: "binlog_row_image", value: "MINIMAL", refuse: "binlog_row_image"},
	// The table map's metadata: without it (MariaDB's NO_LOG, MySQL's MINIMAL) an unsigned value
	// arrives as a signed one and an ENUM as its index; the decoder goes by the table's definition.
	{name: "binlog_row_metadata minimal", global: "binlog_row_metadata", value: "MINIMAL"},
	{name: "binlog_row_metadata full", global: "binlog_row_metadata", value: "FULL"},
	{name: "binlog_row_metadata no_log", global: "binlog_row_metadata", value: "NO_LOG", applies: onMariaDB},
	// sql_mode flags: those that change what a statement stores are carried into the writers.
	{name: "TIME_TRUNCATE_FRACTIONAL", global: "sql_mode+", value: "TIME_TRUNCATE_FRACTIONAL", applies: onMySQL},
	{name: "TIME_ROUND_FRACTIONAL", global: "sql_mode+", value: "TIME_ROUND_FRACTIONAL", applies: onMariaDB},
	{name: "PAD_CHAR_TO_FULL_LENGTH", global: "sql_mode+", value: "PAD_CHAR_TO_FULL_LENGTH"},
	{name: "NO_BACKSLASH_ESCAPES", global: "sql_mode+", value: "NO_BACKSLASH_ESCAPES"},
	{name: "ANSI_QUOTES", global: "sql_mode+", value: "ANSI_QUOTES"},
	{name: "EMPTY_STRING_IS_NULL", global: "sql_mode+", value: "EMPTY_STRING_IS_NULL", applies: onMariaDB},
}

// The table of the matrix: fractional seconds that round up to the next second (DATETIME(6) to
// (2)), strings with a backslash, a quote and the empty string, a CHAR that a VARCHAR takes over,
// unsigned values above the signed range and an ENUM (what binlog_row_metadata changes).
const (
	globalsCreate = "CREATE TABLE t (id INT PRIMARY KEY, a INT NOT NULL, dt DATETIME(6) NULL, s VARCHAR(20) NULL, c CHAR(5) NULL, " +
		"u INT UNSIGNED NULL, e ENUM('x', 'y', 'z') NULL)"
	globalsFill = `INSERT INTO t SELECT seq, seq, '2020-12-31 23:59:58' + INTERVAL (999999 - seq * 3) MICROSECOND,
		ELT(1 + seq % 4, '', 'a\\b', 'q''q', 'x'), ELT(1 + seq % 3, 'ab', '', NULL),
		4294967295 - seq, ELT(1 + seq % 4, 'x', 'y', 'z', NULL) FROM seq_1_to_2000`
	globalsAlter = "MODIFY dt DATETIME(2) NULL, MODIFY s VARCHAR(30) NULL, MODIFY c VARCHAR(10) NULL, " +
		"MODIFY u BIGINT UNSIGNED NULL, MODIFY e ENUM('x', 'y', 'z', 'w') NULL, ADD COLUMN b INT NOT NULL DEFAULT 7"
)

func TestServerGlobalsMatrix(t *testing.T) {
	for _, c := range globalCases {
		t.Run(c.name, func(t *testing.T) {
			if c.applies != nil {
				testenv.FlavorLimit(t, c.applies, c.global+" "+c.value+" does not exist there")
			}
			testGlobal(t, c)
		})
	}
}

func testGlobal(t *testing.T, c globalCase) {
	if c.early {
		setEarly(t, c)
	}
	db, cfg, postponeFlag := sameResultSetup(t, globalsCreate, globalsAlter, globalsFill)
	name, value := c.global, c.value
	switch name {
	case "isolation":
		name = testenv.Flavor(t).IsolationVariable()
	case "sql_mode+":
		var mode string
		if err := db.QueryRow("SELECT @@global.sql_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		name, value = "sql_mode", strings.TrimPrefix(mode+","+value, ",")
	}
	if c.early {
		assertEncrypted(t, db)
	} else {
		testenv.SetGlobal(t, db, name, value)
	}
	load := globalsLoad(db)
	defer load.Stop()
	done := runMigration(t, cfg)
	if c.refuse != "" {
		err := waitFailed(t, done, "with "+name+" = "+value)
		if !strings.Contains(err.Error(), c.refuse) {
			t.Errorf("the refusal does not name %s: %v", c.refuse, err)
		}
		if names := testenv.TableNames(t, db, cfg.Database, "_t_"); len(names) > 0 {
			t.Errorf("refused after creating %v", names)
		}
		return
	}
	waitPostponed(t, db, done)
	time.Sleep(c.hold)
	if !load.WaitAcked(load.Acked()+100, 30*time.Second) {
		t.Fatalf("the load did not write: %v", load.Err())
	}
	if st := load.Stop(); st.Failed > 0 {
		t.Fatalf("the load failed: %v", st.FirstError)
	}
	// The original as of the cut-over (nothing writes any more): what the server's ALTER is given.
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	finishRun(t, postponeFlag, done)
	assertSameAsServerAlter(t, db, "want", globalsAlter)
}

// setEarly sets c's global before the test's schema is made. default_table_encryption needs a
// keyring: without one loaded the sandbox is not the one script/sandbox starts (Unavailable).
func setEarly(t *testing.T, c globalCase) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	if c.global == "default_table_encryption" {
		var n int
		if err := admin.QueryRow("SELECT COUNT(*) FROM performance_schema.keyring_component_status").Scan(&n); err != nil || n == 0 {
			testenv.Unavailable(t, fmt.Sprintf("no keyring component loaded (%v): restart the sandbox with this script/sandbox", err))
		}
	}
	testenv.SetGlobal(t, admin, c.global, c.value)
}

// assertEncrypted checks t (in a schema made under default_table_encryption=ON) is encrypted, so
// the case migrates an encrypted table.
func assertEncrypted(t *testing.T, db *sql.DB) {
	var n, def string
	if err := db.QueryRow("SHOW CREATE TABLE t").Scan(&n, &def); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(def, "ENCRYPTION='Y'") {
		t.Fatalf("t is not encrypted: %s", def)
	}
}

// globalsLoad updates, inserts and deletes rows of t with the matrix's values, through sessions
// that set their own settings (an application's, not the server's globals).
func globalsLoad(db *sql.DB) *loadgen.Load {
	strs := []any{"", `a\b`, "q'q", "x", nil}
	enums := []any{"x", "y", "z", nil}
	dt := func(r *rand.Rand) string { return fmt.Sprintf("2021-06-30 12:00:00.%06d", 990000+r.Intn(10000)) }
	return loadgen.Start(context.Background(), loadgen.Config{DB: db, Rate: 200, Workers: 2, Ops: []loadgen.Op{
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET a = a + 1, dt = ?, s = ?, u = ?, e = ? WHERE id = ?",
				[]any{dt(r), strs[r.Intn(5)], 4294967295 - r.Intn(1000), enums[r.Intn(4)], 1 + r.Intn(3000)}
		},
		func(r *rand.Rand) (string, []any) {
			return "INSERT INTO t (id, a, dt, s, c, u, e) VALUES (?, 1, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE a = a + 1",
				[]any{1 + r.Intn(3000), dt(r), strs[r.Intn(5)], strs[r.Intn(5)], 3000000000 + r.Intn(1000), enums[r.Intn(4)]}
		},
		func(r *rand.Rand) (string, []any) { return "DELETE FROM t WHERE id = ?", []any{1 + r.Intn(3000)} },
	}})
}

// A session that logs MINIMAL row images mid-run stops the run, and the error counts and names
// the distinct columns its images lack (issue 34.5: it counted a missing value per row image,
// "lacks 6536 columns" for a 1,000-row update of a 5-column table).
func TestMinimalRowImageNamesTheMissingColumns(t *testing.T) {
	t.Parallel() // a database of its own
	db, cfg, _ := sameResultSetup(t, "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, c INT, d INT)", "ADD COLUMN e INT",
		"INSERT INTO t SELECT seq, seq, seq, seq, seq FROM seq_1_to_1000")
	done := runMigration(t, cfg)
	waitPostponed(t, db, done)
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"SET SESSION binlog_row_image = 'MINIMAL'", "UPDATE t SET b = b + 1"} {
		if _, err := conn.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	err = waitFailed(t, done, "after MINIMAL row images")
	// The before images hold the key only, the after images the changed column only.
	if want := "lacks 5 of its 5 columns (id, a, b, c, d): binlog_row_image must be FULL"; !strings.Contains(err.Error(), want) {
		t.Errorf("want %q in: %v", want, err)
	}
}
