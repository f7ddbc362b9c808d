package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// keyCollationDB names the databases of the shared key collation cases (one per case).
const keyCollationDB = "gl_keycoll"

// keyCollationPair is a character primary key k (its CHARACTER SET ... COLLATE ... clause) and an
// ALTER that changes its character set or collation.
type keyCollationPair struct {
	src, alter string
}

// keyCollationPairs are the key collation changes of this flavor: CONVERT TO CHARACTER SET
// utf8mb4 of utf8mb3 and latin1 keys into the server's utf8mb4 default (utf8mb4_general_ci on
// MariaDB 10.11, utf8mb4_0900_ai_ci on MySQL, utf8mb4_uca1400_ai_ci on MariaDB 11.8), a binary,
// a NO PAD binary and a UCA collation; and a MODIFY from a NO PAD collation into a PAD SPACE one
// ('a' and 'a ' become equal) and from a binary collation into a case-insensitive one.
func keyCollationPairs(t *testing.T) []keyCollationPair {
	targets := []string{"", "utf8mb4_bin", "utf8mb4_0900_bin", "utf8mb4_0900_ai_ci"}
	noPad := "utf8mb4 COLLATE utf8mb4_0900_ai_ci"
	if testenv.Flavor(t).MariaDB {
		targets = []string{"", "utf8mb4_bin", "utf8mb4_nopad_bin", "utf8mb4_unicode_ci"}
		noPad = "utf8mb4 COLLATE utf8mb4_nopad_bin"
	}
	var pairs []keyCollationPair
	for _, src := range []string{"utf8mb3 COLLATE utf8mb3_general_ci", "utf8mb3 COLLATE utf8mb3_bin", "latin1 COLLATE latin1_swedish_ci"} {
		for _, target := range targets {
			alter := "CONVERT TO CHARACTER SET utf8mb4"
			if target != "" {
				alter += " COLLATE " + target
			}
			pairs = append(pairs, keyCollationPair{src, alter})
		}
	}
	modify := func(coll string) string {
		return "MODIFY k VARCHAR(20) CHARACTER SET utf8mb4 COLLATE " + coll + " NOT NULL"
	}
	return append(pairs, keyCollationPair{noPad, modify("utf8mb4_bin")},
		keyCollationPair{"utf8mb4 COLLATE utf8mb4_bin", modify("utf8mb4_general_ci")})
}

// keyCollationBase are the seed rows of every case: no two equal under any collation tried.
var keyCollationBase = []string{"a", "b", "ss", "s", "x", "y", "z", "ae", "U", "oe"}

// keyCollationCandidates are keys, each distinct from the others under some collation and equal
// to one of them under another: 'ss' and 'ß' under UCA ai_ci, 'a' and 'A' from a _bin original
// into a _ci one, 'a' and 'a ' from a NO PAD original into a PAD SPACE one, 'U' and 'Ü' or 'A'
// and 'Å' from latin1_swedish_ci into utf8mb4_general_ci, 'ae' and 'æ'.
var keyCollationCandidates = []string{"ß", "A", "a ", "Ü", "U", "Å", "æ", "ss", "ae", "a"}

// TestSharedKeyCollationChange: a character primary key converted into another character set or
// collation, generated over keyCollationPairs x a key over k alone or (g, k) x three scenarios,
// each judged by the server's own
// ALTER of the original as of the end:
//   - transient: rows written during the copy and after it change their key within the
//     original's equality ('a' to 'A', a trailing space), are deleted and inserted again in another
//     spelling, and pairs that collide under the new collation exist for a while (one of them
//     is deleted before the cut-over); the tool migrates, with what the server's ALTER gives;
//   - seed: the original holds every candidate it accepts before the run;
//   - written: the candidates are inserted after the copy.
//
// Where the final rows collide under the new collation the server's ALTER fails with a duplicate
// key: the tool must fail before the swap, in one line naming the duplicate, with the original in
// place and no helper table left. Otherwise it must migrate, byte for byte what the server gives.
func TestSharedKeyCollationChange(t *testing.T) {
	saved := displacedPatience
	displacedPatience = time.Second
	t.Cleanup(func() { displacedPatience = saved })
	for _, pair := range keyCollationPairs(t) {
		for _, key := range []string{"k", "g, k"} {
			for _, scenario := range []string{"transient", "seed", "written"} {
				t.Run(fmt.Sprintf("%s/%s/(%s)/%s", pair.src, pair.alter, key, scenario), func(t *testing.T) {
					t.Parallel() // each case in a database of its own; displacedPatience is set for all
					db, schema := testenv.OwnDatabase(t, keyCollationDB)
					keyCollationCase(t, db, schema, pair, key, scenario)
				})
			}
		}
	}
}

// keyCollationCase runs one case with the primary key over key: k alone, or a composite (g, k)
// where g is 1 in every row.
func keyCollationCase(t *testing.T, db *sql.DB, schema string, pair keyCollationPair, key, scenario string) {
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t", "DROP TABLE IF EXISTS _t_del", "DROP TABLE IF EXISTS t_oracle",
		"CREATE TABLE t (k VARCHAR(20) CHARACTER SET "+pair.src+" NOT NULL, v INT NOT NULL, g INT NOT NULL DEFAULT 1, PRIMARY KEY ("+key+")) ENGINE=InnoDB")
	conn := serverSession(t, db)
	insertKeys(t, conn, keyCollationBase, 1)
	testenv.Exec(t, db, "INSERT INTO t (k, v) SELECT CONCAT('f', seq), seq FROM seq_1_to_40") // filler: several chunks
	if scenario == "seed" {
		insertKeys(t, conn, keyCollationCandidates, 100)
	}
	orig, ghost := keyCollationColumns(t, db, schema, pair.alter)
	before := showCreate(t, db, "t")
	t.Logf("key k: %s into %s: compared by bytes: %v", orig.Collation, ghost.Collation, plan.ComparedByBytes(orig, ghost))
	cfg := testConfig(t, schema, "t", pair.alter, nil)
	live(&cfg)
	cfg.ChunkSize = 10 // several chunks, so that rows change between them
	flag := postpone(t, &cfg)
	// During the copy (chunk 1 holds 'a', 'ae' and 'b', copied by then): keys move within the
	// original's equality, and 'æ' collides with the copied 'ae' until 'ae' is deleted; 'ß'
	// collides with 'ss' (not copied yet) until 'ss' is deleted, which must not delete 'ß'.
	chunkWrites := seams{beforeChunk: func(ctx context.Context, n int64) error {
		switch {
		case scenario == "transient" && n == 2:
			return keyCollationWrites(ctx, conn, "UPDATE t SET k = 'A', v = v + 10 WHERE k = 'a'", "INSERT INTO t (k, v) VALUES ('æ', 30)",
				"UPDATE t SET k = 'b ', v = v + 10 WHERE k = 'b'", "DELETE FROM t WHERE k = 'z'", "INSERT INTO t (k, v) VALUES ('ß', 31)")
		case scenario == "transient" && n == 4:
			return keyCollationWrites(ctx, conn, "UPDATE t SET v = v + 1 WHERE k = 'ae'", "DELETE FROM t WHERE k = 'ae'", "DELETE FROM t WHERE k = 'ss'")
		}
		return nil
	}}
	done := runWithSeams(t, cfg, chunkWrites)
	if postponed, runErr := waitPostponedOrEnd(t, db, done); !postponed {
		keyCollationJudge(t, db, schema, conn, pair, before, runErr)
		return
	}
	switch scenario {
	case "transient":
		// After the copy: 'Ü' collides with the copied 'U' until 'U' is deleted, a key moves within
		// the original's equality, a key is deleted and inserted in another spelling, a key moves
		// to a spelling the new collation equates with it ('oe' to 'œ').
		if err := keyCollationWrites(context.Background(), conn, "INSERT INTO t (k, v) VALUES ('Ü', 41)",
			"DELETE FROM t WHERE k = 'U'", "UPDATE t SET k = 'Y' WHERE k = 'y'",
			"DELETE FROM t WHERE k = 'x'", "INSERT INTO t (k, v) VALUES ('X', 50)", "INSERT INTO t (k, v) VALUES ('z ', 70)",
			"UPDATE t SET k = 'œ', v = v + 100 WHERE k = 'oe'"); err != nil {
			t.Fatal(err)
		}
	case "written":
		insertKeys(t, conn, keyCollationCandidates, 100)
	}
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	keyCollationJudge(t, db, schema, conn, pair, before, testenv.WaitResult(t, done, 90*time.Second))
}

// keyCollationJudge compares the tool's result runErr (before is the original's definition) with the server's own ALTER of the original
// as of the end: both migrate, to the same table, or both fail on a duplicate key, the tool before
// the swap, in one line, leaving the original in place and alone.
func keyCollationJudge(t *testing.T, db *sql.DB, schema string, conn *sql.Conn, pair keyCollationPair, before string, runErr error) {
	t.Helper()
	if runErr == nil {
		compareWithServerALTER(t, db, schema, pair.alter)
		return
	}
	t.Logf("the migration failed: %v", runErr)
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t_oracle", "CREATE TABLE t_oracle LIKE t", "INSERT INTO t_oracle SELECT * FROM t")
	_, err := conn.ExecContext(context.Background(), "ALTER TABLE t_oracle "+pair.alter+", ALGORITHM=COPY")
	if err == nil {
		t.Fatalf("the tool failed where the server's own ALTER migrates: %v", runErr)
	}
	if !strings.Contains(err.Error(), "Duplicate entry") {
		t.Fatalf("the server's ALTER fails with %v, not a duplicate key", err)
	}
	msg := runErr.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(strings.ToLower(msg), "duplicate entry") || !strings.Contains(msg, "untouched") {
		t.Errorf("the failure is not one line naming the duplicate and the untouched original: %q", msg)
	}
	if left := testenv.TableNames(t, db, schema, "_t_"); len(left) != 0 {
		t.Errorf("helper tables left: %v", left)
	}
	if got := showCreate(t, db, "t"); table.WithoutAutoIncrement(got) != table.WithoutAutoIncrement(before) {
		t.Errorf("t is not the original any more: %s", got)
	}
}

// waitPostponedOrEnd waits until the migration postpones its cut-over (true) or ends first (false
// and its result).
func waitPostponedOrEnd(t *testing.T, db *sql.DB, done <-chan error) (bool, error) {
	t.Helper()
	ended, runErr := false, error(nil)
	testenv.WaitFor(t, 60*time.Second, 20*time.Millisecond, "the cut-over postponed or the run ended", func() (bool, error) {
		select {
		case runErr = <-done:
			ended = true
			return true, nil
		default:
		}
		var state string
		err := db.QueryRow("SELECT value FROM "+table.QuoteIdent(table.ChangelogName("t"))+" WHERE hint = ?", changelog.HintState).Scan(&state)
		if err != nil {
			return false, nil // not written yet
		}
		return state == "postponed", nil
	})
	return !ended, runErr
}

// insertKeys inserts each key with value v, in a utf8mb4 session: a key the original's
// collation equates with one present (1062) or whose character its character set lacks (1366)
// is skipped.
func insertKeys(t *testing.T, conn *sql.Conn, keys []string, v int) {
	t.Helper()
	for i, k := range keys {
		_, err := conn.ExecContext(context.Background(), "INSERT INTO t (k, v) VALUES (?, ?)", k, v+i)
		if n := loadgen.Errno(err); err != nil && n != 1062 && n != 1366 {
			t.Fatal(err)
		}
	}
}

// keyCollationWrites runs statements on conn, skipping those the original refuses as duplicates
// or as characters its character set lacks.
func keyCollationWrites(ctx context.Context, conn *sql.Conn, stmts ...string) error {
	for _, q := range stmts {
		_, err := conn.ExecContext(ctx, q)
		if n := loadgen.Errno(err); err != nil && n != 1062 && n != 1366 {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// keyCollationColumns is column k as the original has it and as the ALTER makes it (read from
// scratch tables the test drops).
func keyCollationColumns(t *testing.T, db *sql.DB, schema, alter string) (*table.Column, *table.Column) {
	t.Helper()
	testenv.Exec(t, db, "DROP TABLE IF EXISTS t_scratch", "CREATE TABLE t_scratch LIKE t", "ALTER TABLE t_scratch "+alter)
	defer testenv.Exec(t, db, "DROP TABLE t_scratch")
	read := func(tbl string) *table.Column {
		tb, err := table.Inspect(context.Background(), db, schema, tbl)
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

// A --revert of CONVERT TO CHARACTER SET utf8mb4 over a utf8mb3_general_ci key (on MySQL and
// MariaDB 11.8 the key becomes a UCA collation both ways: addressed by its bytes in the migration
// and in the revert), with keys written after the cut-over and during the revert that the other
// collation equates or tells apart: the reverted table has the original's definition and the
// rows the server's own reverse ALTER makes of the table it replaced, keys byte for byte.
func TestRevertKeyCollation(t *testing.T) {
	db := testenv.Database(t, revertDB)
	testenv.Exec(t, db, "CREATE TABLE t (k VARCHAR(20) NOT NULL PRIMARY KEY, v INT NOT NULL) DEFAULT CHARSET=utf8mb3",
		"INSERT INTO t VALUES ('a', 1), ('ss', 2), ('oe', 3), ('b', 4), ('x', 5)")
	testenv.Exec(t, db, "INSERT INTO t SELECT CONCAT('f', seq), seq FROM seq_1_to_30")
	original := showCreate(t, db, "t")
	if err := testenv.WaitResult(t, runMigration(t, checkpointConfig(t, "CONVERT TO CHARACTER SET utf8mb4", "")), 60*time.Second); err != nil {
		t.Fatalf("migration: %v", err)
	}
	testenv.Exec(t, db, "DELETE FROM t WHERE k = 'ss'", "INSERT INTO t VALUES ('ß', 20)", "UPDATE t SET k = 'A', v = v + 10 WHERE k = 'a'")
	if err := runWriting(t, db, checkpointConfig(t, "", "_t_del"), "UPDATE t SET k = 'œ' WHERE k = 'oe'",
		"UPDATE t SET k = 'b ', v = v + 1 WHERE k = 'b'", "DELETE FROM t WHERE k = 'x'", "INSERT INTO t VALUES ('X', 50)"); err != nil {
		t.Fatalf("revert: %v", err)
	}
	if got := showCreate(t, db, "t"); got != original {
		t.Errorf("the reverted table's definition:\n%s\nwant the original's:\n%s", got, original)
	}
	testenv.Exec(t, db, "CREATE TABLE oracle LIKE _t_rev_del", "INSERT INTO oracle SELECT * FROM _t_rev_del",
		"ALTER TABLE oracle CONVERT TO CHARACTER SET utf8mb3, ALGORITHM=COPY")
	cols := []string{"k", "v"}
	gr, gs := testenv.Checksum(t, db, revertDB, "t", cols, "CAST(k AS BINARY)")
	wr, ws := testenv.Checksum(t, db, revertDB, "oracle", cols, "CAST(k AS BINARY)")
	if gr != wr || gs != ws {
		t.Errorf("rows differ: reverted %d/%s, server %d/%s", gr, gs, wr, ws)
	}
}
