package binlogapply

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// setGlobalMaxErrorCount sets the server's global max_error_count for the test and restores it.
// Only sessions opened afterwards take it.
func setGlobalMaxErrorCount(t *testing.T, n int) {
	t.Helper()
	db := testenv.Database(t, testSchema)
	testenv.SetGlobal(t, db, "max_error_count", strconv.Itoa(n))
}

// On a server whose max_error_count is 0, SHOW WARNINGS lists nothing: a value truncated in the
// ghost must still stop Run. Here the row carries ENUM's error value, so it is inserted with a
// sql_mode that is not strict (enumzero.go), and its other column does not fit the narrowed ghost
// column: the truncation is a warning, not an error.
func TestApplierWarningsOnTruncatedList(t *testing.T) {
	setGlobalMaxErrorCount(t, 0)
	orig := `CREATE TABLE %s (id INT PRIMARY KEY, e ENUM('a','b') NOT NULL, s VARCHAR(10))`
	ghost := `CREATE TABLE %s (id INT PRIMARY KEY, e ENUM('a','b') NOT NULL, s VARCHAR(3))`
	f := newFixture(t, "warn_list", orig, fixtureOpts{ghostDDL: ghost})
	f.exec(`INSERT INTO {T} VALUES (1, 'a', 'abc')`)
	f.sentinel(20 * time.Second)
	f.onOneConn(`SET SESSION sql_mode = ''`, `INSERT INTO {T} VALUES (2, 'zz', 'abcdefgh')`)
	err := f.runError(20 * time.Second)
	if !strings.Contains(err.Error(), "1265") || !strings.Contains(err.Error(), "warnings") {
		t.Fatalf("want the run stopped naming warning 1265, got %v", err)
	}
}

// A warning check never decides on a truncated list: when the session lists fewer warnings than
// the statement raised, checkWarnings and checkWarningsAllowing fail, naming both numbers.
func TestWarningCheckRefusesTruncatedList(t *testing.T) {
	db := testenv.Database(t, testSchema)
	testenv.Exec(t, db, "DROP TABLE IF EXISTS warn_short",
		"CREATE TABLE warn_short (id INT PRIMARY KEY, s VARCHAR(2))")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET SESSION max_error_count = 0, SESSION sql_mode = ''"); err != nil {
		t.Fatal(err)
	}
	for name, check := range map[string]func(tx *sql.Tx) error{
		"checkWarnings":         func(tx *sql.Tx) error { return checkWarnings(ctx, tx, "INSERT") },
		"checkWarningsAllowing": func(tx *sql.Tx) error { return checkWarningsAllowing(ctx, tx, "INSERT", []string{"s"}) },
	} {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO warn_short VALUES (1, 'abc'), (2, 'abcd')"); err != nil {
			t.Fatal(err)
		}
		err = check(tx)
		_ = tx.Rollback()
		if err == nil || !strings.Contains(err.Error(), "raised 2 warnings and the server listed 0") {
			t.Errorf("%s on a truncated list: got %v", name, err)
		}
	}
}

// A warning that would change a row stops Run in gh-ost's words (--panic-on-warnings): the
// statement among those sent together, and each warning as "Level: message (code)".
func TestApplierWarningsInGhostWords(t *testing.T) {
	orig := `CREATE TABLE %s (id INT PRIMARY KEY, e ENUM('a','b') NOT NULL, s VARCHAR(10))`
	ghost := `CREATE TABLE %s (id INT PRIMARY KEY, e ENUM('a','b') NOT NULL, s VARCHAR(3))`
	f := newFixture(t, "warn_words", orig, fixtureOpts{ghostDDL: ghost})
	f.exec(`INSERT INTO {T} VALUES (1, 'a', 'abc')`)
	f.sentinel(20 * time.Second)
	f.onOneConn(`SET SESSION sql_mode = ''`, `INSERT INTO {T} VALUES (2, 'zz', 'abcdefgh')`)
	err := f.runError(20 * time.Second)
	want := "warnings detected in statement 1 of 1: [Warning: Data truncated for column 's' at row 1 (1265)]: nothing may be changed silently"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("want the run stopped with %q, got %v", want, err)
	}
}
