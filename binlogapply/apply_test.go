package binlogapply

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The ghost renames, drops, adds and reorders columns, converts a latin1 column to utf8mb4 and
// uses a composite shared key.
// The batch's changes reach the ghost the same way in one round trip and statement by statement.
func TestApplyAlteredGhost(t *testing.T) {
	t.Run("one trip", func(t *testing.T) { applyAlteredGhost(t, "altered", false) })
	t.Run("statement by statement", func(t *testing.T) { applyAlteredGhost(t, "altered_sbs", true) })
}

func applyAlteredGhost(t *testing.T, name string, statementByStatement bool) {
	orig := `CREATE TABLE %s (a INT NOT NULL, b VARCHAR(20) CHARACTER SET latin1 NOT NULL, old_name VARCHAR(50),
	  dropped INT, c DATETIME(3), PRIMARY KEY (a, b)) DEFAULT CHARSET=latin1`
	ghost := `CREATE TABLE %s (c DATETIME(3), added INT NOT NULL DEFAULT 7, new_name VARCHAR(50) CHARACTER SET utf8mb4,
	  b VARCHAR(20) CHARACTER SET utf8mb4 NOT NULL, a BIGINT NOT NULL, PRIMARY KEY (a, b)) DEFAULT CHARSET=utf8mb4`
	f := newFixture(t, name, orig, fixtureOpts{
		ghostDDL:             ghost,
		columnMap:            map[string]string{"a": "a", "b": "b", "old_name": "new_name", "c": "c"},
		sharedKey:            []string{"a", "b"},
		batch:                3,
		statementByStatement: statementByStatement,
	})
	f.exec(
		`INSERT INTO {T} VALUES (1, _utf8mb4'é', _utf8mb4'naïve', 1, '2024-01-01 10:00:00.123'), (1, 'x', NULL, 2, NULL)`,
		`INSERT INTO {T} VALUES (2, _utf8mb4'ÿ', _utf8mb4'Ærø', 3, '2000-01-01 00:00:00.999')`,
		`UPDATE {T} SET b = _utf8mb4'ü' WHERE a = 1 AND b = 'x'`,
		`UPDATE {T} SET old_name = _utf8mb4'çà' WHERE a = 2`,
		`DELETE FROM {T} WHERE a = 1 AND b = _utf8mb4'é'`,
		`INSERT INTO {T} VALUES (3, 'k', 'v', 4, NULL)`,
		`UPDATE {T} SET a = a + 10`,
	)
	f.sentinel(20 * time.Second)
	// The latin1 bytes were converted to utf8mb4 on the way: bytes differ, text must not.
	f.compare([]string{"a", "c"}, []string{"a", "c"}, "a, b", "a, b")
	f.compareExcept([]string{"a", "b", "old_name", "c"}, []string{"a", "b", "new_name", "c"})
	var conv int
	if err := f.db.QueryRow(`SELECT COUNT(*) FROM glr_binlogapply._` + name + `_gho WHERE new_name = _utf8mb4'çà' AND HEX(new_name) = 'C3A7C3A0'`).Scan(&conv); err != nil {
		t.Fatal(err)
	}
	if conv != 1 {
		t.Errorf("latin1 value not converted to utf8mb4 bytes in the ghost")
	}
	var added int
	if err := f.db.QueryRow(`SELECT COUNT(*) FROM glr_binlogapply._` + name + `_gho WHERE added <> 7`).Scan(&added); err != nil {
		t.Fatal(err)
	}
	if added != 0 {
		t.Errorf("%d rows with a written 'added' column", added)
	}
}

// A value that does not fit a narrowed ghost column stops Run (strict writer session): it is never
// truncated.
func TestNarrowedColumnStopsRun(t *testing.T) {
	orig := `CREATE TABLE %s (id INT PRIMARY KEY, e ENUM('a','b'), s VARCHAR(10))`
	ghost := `CREATE TABLE %s (id INT PRIMARY KEY, e ENUM('a','b'), s VARCHAR(3))`
	f := newFixture(t, "narrow", orig, fixtureOpts{ghostDDL: ghost})
	f.exec(`INSERT INTO {T} VALUES (1, 'a', 'abc')`)
	f.sentinel(20 * time.Second)
	f.exec(`INSERT INTO {T} VALUES (2, 'b', 'abcdefgh')`) // does not fit the narrowed ghost column
	err := f.runError(20 * time.Second)
	if !strings.Contains(err.Error(), "narrow") && !strings.Contains(strings.ToLower(err.Error()), "too long") {
		t.Fatalf("unexpected error: %v", err)
	}
	t.Logf("narrowing error: %v", err)
}

func TestOriginalAlteredStopsRun(t *testing.T) {
	f := newFixture(t, "ddl", `CREATE TABLE %s (id INT PRIMARY KEY, v INT)`, fixtureOpts{})
	f.exec(`INSERT INTO {T} VALUES (1, 1)`,
		// These reference the original without changing it: no error.
		`CREATE TABLE glr_binlogapply.ddl_copy LIKE {T}`,
		`ALTER TABLE glr_binlogapply.ddl_copy ADD COLUMN ddl INT`,
		`ANALYZE TABLE {T}`)
	f.sentinel(20 * time.Second)
	f.exec(`INSERT INTO {T} VALUES (2, 2)`, `ALTER TABLE {T} ADD COLUMN w INT`, `INSERT INTO {T} VALUES (3, 3, 3)`)
	err := f.runError(20 * time.Second)
	if !errors.Is(err, ErrOriginalAltered) {
		t.Fatalf("want ErrOriginalAltered, got %v", err)
	}
	// Everything read before the DDL was applied first.
	var n int
	if err := f.db.QueryRow(`SELECT COUNT(*) FROM glr_binlogapply._ddl_gho`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("ghost has %d rows, want the 2 written before the ALTER", n)
	}
}

// Killing the binlog dump thread (mid-transaction if timing allows) loses nothing and applies
// nothing twice. Run with file/pos and with GTID positioning.
func TestReconnectAfterKill(t *testing.T) {
	for i, useGTID := range []bool{false, true} {
		t.Run(fmt.Sprintf("gtid=%v", useGTID), func(t *testing.T) {
			name := fmt.Sprintf("kill%d", i)
			f := newFixture(t, name, `CREATE TABLE %s (id INT PRIMARY KEY, v INT, pad VARCHAR(200))`,
				fixtureOpts{useGTID: useGTID, batch: 20})
			f.exec(`INSERT INTO {T} VALUES (1, 0, 'x')`)
			f.sentinel(20 * time.Second)
			killed := 0
			for round := 0; round < 3; round++ {
				// One large transaction of many rows events, then kill the dump thread.
				tx, err := f.db.Begin()
				if err != nil {
					t.Fatal(err)
				}
				for j := 0; j < 300; j++ {
					id := 1000*(round+1) + j
					if _, err := tx.Exec(fmt.Sprintf(`INSERT INTO %s VALUES (?, ?, REPEAT('p', 150))`, table.Qualify(testSchema, name)), id, j); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := tx.Exec(fmt.Sprintf(`UPDATE %s SET v = v + 1`, table.Qualify(testSchema, name))); err != nil {
					t.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
				id := f.app.dumpConnID.Load()
				if _, err := f.db.Exec(fmt.Sprintf("KILL %d", id)); err == nil {
					killed++
				} else {
					t.Logf("kill %d: %v", id, err)
				}
				f.exec(`UPDATE {T} SET v = v * 2 WHERE id = 1`, `DELETE FROM {T} WHERE id % 7 = 0`)
				// Wait for the new connection before the next round.
				deadline := time.Now().Add(15 * time.Second)
				for f.app.dumpConnID.Load() == id && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
			}
			f.sentinel(30 * time.Second)
			f.compare([]string{"id", "v", "pad"}, []string{"id", "v", "pad"}, "id", "id")
			if s := f.app.Stats(); killed == 0 || s.Reconnects < int64(killed) {
				t.Errorf("killed %d dump threads, stats %+v", killed, s)
			}
			t.Logf("killed %d dump threads; %d rows re-read mid-transaction and skipped", killed, f.app.skippedRows.Load())
		})
	}
}

// Reading the replica's binary log while writing the ghost on the primary: the sentinel and the
// row changes arrive by replication.
func TestReadFromReplica(t *testing.T) {
	rc := testenv.ReplicaConfig()
	f := newFixture(t, "fromreplica", `CREATE TABLE %s (id BIGINT UNSIGNED PRIMARY KEY, v VARCHAR(20), n INT)`,
		fixtureOpts{source: &rc, useGTID: true, noStart: true})
	f.start()
	f.exec(`INSERT INTO {T} VALUES (18446744073709551615, 'max', 1), (1, 'one', NULL)`,
		`UPDATE {T} SET n = 5 WHERE id = 1`,
		`INSERT INTO {T} VALUES (2, 'two', 2)`,
		`DELETE FROM {T} WHERE id = 2`)
	hb := time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.UTC)
	if err := changelog.Of(testSchema, f.orig).Heartbeat(context.Background(), f.db, hb, func(err error) { t.Fatal(err) }); err != nil {
		t.Fatal(err)
	}
	f.sentinel(2 * time.Minute) // the replica applies every package's writes (they run at once)
	f.compare([]string{"id", "v", "n"}, []string{"id", "v", "n"}, "id", "id")
	s := f.app.Stats()
	if !s.LastHeartbeat.Equal(hb) {
		t.Errorf("last heartbeat %v, want %v", s.LastHeartbeat, hb)
	}
	if s.Applied.GTID == "" {
		t.Errorf("no GTID in the applied position: %+v", s)
	}
}

// A sentinel already applied when ExpectSentinel is called returns a closed channel.
func TestLateExpectSentinel(t *testing.T) {
	f := newFixture(t, "late", `CREATE TABLE %s (id INT PRIMARY KEY)`, fixtureOpts{})
	f.exec(`INSERT INTO {T} VALUES (1)`)
	if err := changelog.Of(testSchema, f.orig).WriteSentinel(context.Background(), f.db, "early"); err != nil {
		t.Fatal(err)
	}
	f.sentinel(20 * time.Second) // a later sentinel: "early" has been applied too
	select {
	case <-f.app.ExpectSentinel("early"):
	default:
		t.Fatal("a sentinel applied before ExpectSentinel did not return a closed channel")
	}
	f.compare([]string{"id"}, []string{"id"}, "id", "id")
	f.stop()
	// Run leaves no goroutine behind: neither ours nor go-mysql's syncer.
	deadline := time.Now().Add(5 * time.Second)
	for {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(stacks, "go-mysql-org/go-mysql") && !strings.Contains(stacks, "binlogapply.(*Applier)") &&
			!strings.Contains(stacks, "binlogapply.(*reader)") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines left after Run returned:\n%s", stacks)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Throughput: a backlog of row changes written before the applier starts, applied from the binlog.
func TestApplyThroughput(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	f := newFixture(t, "bench", `CREATE TABLE %s (id INT PRIMARY KEY, a INT, b VARCHAR(64), c DATETIME(6))`,
		fixtureOpts{batch: 100, noStart: true})
	const rows = 20000
	for i := 0; i < rows; i += 500 {
		var vals []string
		for j := i; j < i+500; j++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, 'row %d', NOW(6))", j, j, j))
		}
		f.exec(`INSERT INTO {T} VALUES ` + strings.Join(vals, ","))
	}
	f.exec(`UPDATE {T} SET a = a + 1`)
	begin := time.Now()
	f.start()
	f.sentinel(120 * time.Second)
	elapsed := time.Since(begin)
	s := f.app.Stats()
	if s.EventsApplied != 2*rows {
		t.Errorf("applied %d changes, want %d", s.EventsApplied, 2*rows)
	}
	rate := float64(s.EventsApplied) / elapsed.Seconds()
	t.Logf("applied %d row changes (%d inserts + %d updates) in %s: %.0f changes/s", s.EventsApplied, rows, rows, elapsed.Round(time.Millisecond), rate)
	if rate < 500 {
		t.Errorf("applier too slow: %.0f changes/s", rate)
	}
	f.compare([]string{"id", "a", "b", "c"}, []string{"id", "a", "b", "c"}, "id", "id")
}
