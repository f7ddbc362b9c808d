package migrator

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/preflight"
)

// keyCollationDB is the database of the shared key collation tests.
const keyCollationDB = "gl_keycoll"

// keyCollationTargets are the collations a character key column is converted into on this
// flavor: the server's utf8mb4 default (utf8mb4_general_ci on MariaDB 10.11, utf8mb4_0900_ai_ci on
// MySQL, utf8mb4_uca1400_ai_ci on MariaDB 11.8), utf8mb4_bin, and the flavor's NO PAD binary one.
func keyCollationTargets(t *testing.T) []string {
	targets := []string{"", "utf8mb4_bin"}
	if testenv.Flavor(t).MariaDB {
		return append(targets, "utf8mb4_nopad_bin", "utf8mb4_unicode_ci")
	}
	return append(targets, "utf8mb4_0900_bin", "utf8mb4_0900_ai_ci")
}

// TestSharedKeyCollationChange: a character primary key converted into another character set or
// collation. The tool migrates exactly when every two keys distinct in the original stay distinct
// in the altered table whatever the rows (KeysStayDistinct), and then gives what the server's own
// ALTER gives, with rows whose key changes its bytes within the original's equality ('a' to 'A',
// a trailing space) written while it runs. Otherwise it refuses before anything is created, in
// one line naming the key; where the rows hold values equal only under the new collation the
// server's ALTER refuses too (a duplicate key).
func TestSharedKeyCollationChange(t *testing.T) {
	db := testenv.Database(t, keyCollationDB)
	sources := []string{"utf8mb3 COLLATE utf8mb3_general_ci", "utf8mb3 COLLATE utf8mb3_bin", "latin1 COLLATE latin1_swedish_ci"}
	for _, src := range sources {
		for _, target := range keyCollationTargets(t) {
			alter := "CONVERT TO CHARACTER SET utf8mb4"
			if target != "" {
				alter += " COLLATE " + target
			}
			t.Run(src+" -> "+alter, func(t *testing.T) {
				keyCollationCase(t, db, src, alter)
			})
		}
	}
}

func keyCollationCase(t *testing.T, db *sql.DB, src, alter string) {
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS _t_del", "DROP TABLE IF EXISTS t_oracle",
		"CREATE TABLE t (k VARCHAR(20) CHARACTER SET "+src+" NOT NULL PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB",
		"INSERT INTO t VALUES ('a', 1), ('b', 2), ('ss', 3), ('s', 4), ('x', 5), ('y', 6), ('z', 7)")
	cfg := testConfig(t, keyCollationDB, "t", alter, nil)
	live(&cfg)
	flag := postpone(t, &cfg)
	m := mustNew(t, cfg)
	orig, ghost := keyCollationColumns(t, db, alter)
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	t.Logf("key k: %s into %s: keys stay distinct: %v", orig.Collation, ghost.Collation, preflight.KeysStayDistinct(orig, ghost))
	if !preflight.KeysStayDistinct(orig, ghost) {
		err := waitFailed(t, done, "over a key whose new collation may equal distinct keys")
		if !strings.Contains(err.Error(), "may be equal in the altered table") || strings.Contains(err.Error(), "\n") {
			t.Errorf("refusal %q is not the one line about the key", err)
		}
		for _, helper := range []string{"_t_gho", "_t_ghc"} {
			if len(testenv.TableNames(t, db, keyCollationDB, helper)) > 0 {
				t.Errorf("%s left behind", helper)
			}
		}
		collidingRowsRefused(t, db, src, alter)
		return
	}
	waitPostponed(t, db, done)
	// Keys that change their bytes but not their identity under the original's collation, a key
	// deleted and inserted again in another spelling, and a new key.
	testenv.Exec(t, db, "UPDATE t SET k = 'A', v = v + 10 WHERE k = 'a'", "UPDATE t SET k = 'b ', v = v + 10 WHERE k = 'b'",
		"DELETE FROM t WHERE k = 'x'", "INSERT INTO t VALUES ('X', 50)", "INSERT INTO t VALUES ('n', 60)")
	testenv.Exec(t, db, "UPDATE t SET k = 'Y' WHERE k = 'y'")
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 60*time.Second); err != nil {
		t.Fatalf("the migration failed: %v", err)
	}
	compareWithServerALTER(t, db, keyCollationDB, alter)
}

// keyCollationColumns is column k as the original has it and as the ALTER makes it (read from
// scratch tables the test drops).
func keyCollationColumns(t *testing.T, db *sql.DB, alter string) (*table.Column, *table.Column) {
	t.Helper()
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t_scratch", "CREATE TABLE t_scratch LIKE t", "ALTER TABLE t_scratch "+alter)
	defer testenv.Exec(t, db, "DROP TABLE t_scratch")
	read := func(tbl string) *table.Column {
		tb, err := table.Inspect(context.Background(), db, keyCollationDB, tbl)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := tb.Column("k")
		return c
	}
	return read("t"), read("t_scratch")
}

// compareWithServerALTER checks that t, migrated by the tool, is what the server's own ALTER makes
// of the original (kept as _t_del): definition and every row, keys byte for byte.
func compareWithServerALTER(t *testing.T, db *sql.DB, schema, alter string) {
	t.Helper()
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t_oracle", "CREATE TABLE t_oracle LIKE _t_del", "INSERT INTO t_oracle SELECT * FROM _t_del")
	if _, err := serverSession(t, db).ExecContext(context.Background(), "ALTER TABLE t_oracle "+alter+", ALGORITHM=COPY"); err != nil {
		t.Fatalf("the server's own ALTER refuses what the tool migrated: %v", err)
	}
	if got, want := showCreate(t, db, "t"), showCreate(t, db, "t_oracle"); got != want {
		t.Errorf("definition differs:\n tool:   %s\n server: %s", got, want)
	}
	cols := testenv.Columns(t, db, schema, "t")
	gr, gs := testenv.Checksum(t, db, schema, "t", cols, "CAST(`"+cols[0]+"` AS BINARY)")
	wr, ws := testenv.Checksum(t, db, schema, "t_oracle", cols, "CAST(`"+cols[0]+"` AS BINARY)")
	if gr != wr || gs != ws {
		t.Errorf("rows differ: tool %d/%s, server %d/%s", gr, gs, wr, ws)
	}
}

// collidingRowsRefused checks the server's side of a refused key change: with two keys distinct
// in the original but equal under the new collation, its own ALTER refuses with a duplicate key.
func collidingRowsRefused(t *testing.T, db *sql.DB, src, alter string) {
	t.Helper()
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t_oracle",
		"CREATE TABLE t_oracle (k VARCHAR(20) CHARACTER SET "+src+" NOT NULL PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB")
	// Candidates, each kept when the original's collation tells it from those before: a pair at
	// least is equal under each refused target ('ss' and 'ß' under UCA ai_ci, 'a' and 'A' from a
	// _bin original into a _ci one, 'U' and 'Ü' or 'A' and 'Å' from latin1_swedish_ci into
	// utf8mb4_general_ci). Written in a utf8mb4 session (a character not in the column's
	// character set is skipped).
	conn := serverSession(t, db)
	for _, k := range []string{"ss", "ß", "s", "a", "A", "U", "Ü", "Å", "æ", "ae"} {
		_, err := conn.ExecContext(context.Background(), "INSERT INTO t_oracle VALUES (?, 1)", k)
		if err != nil && !strings.Contains(err.Error(), "1062") && !strings.Contains(err.Error(), "1366") {
			t.Fatal(err)
		}
	}
	_, err := conn.ExecContext(context.Background(), "ALTER TABLE t_oracle "+alter+", ALGORITHM=COPY")
	if err == nil || !strings.Contains(err.Error(), "Duplicate entry") {
		t.Errorf("the server's ALTER of colliding keys: %v, want a duplicate key", err)
	}
	testenv.Exec(t, db, "DROP TABLE t_oracle")
}
