package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// lockFreeDB is the database of the lock-free copy's test.
const lockFreeDB = "gl_lockfree"

// The copy reads the original without row locks, so the rows of the very chunk being copied can
// be deleted, updated and re-keyed between the chunk's snapshot and its INSERT, and the applier
// may apply those changes before the INSERT writes the stale rows (copier/copycheck.go,
// binlogapply/track.go). Here, just before each chunk is copied, a writer starts changing rows of
// that chunk's key range at random moments while the chunk is copied: deletes, updates, inserts,
// key changes inside the range and out of it. Every change is made on a twin table too; with no
// checksum to repair anything, the migrated table must hold exactly what the server's own ALTER
// of the twin gives.
func TestLockFreeCopyUnderChangesOfTheChunkBeingCopied(t *testing.T) {
	// An integer key: the applier records only the keys in the chunk's range (table.KeySpan); a
	// key of two columns: it records every key.
	// Two copy sessions: two chunks in flight, each with its own record.
	for _, c := range []struct {
		seed    int64
		key     string
		threads int
	}{{1, "id", 1}, {2, "id", 1}, {3, "id, k", 1}, {4, "id", 2}} {
		t.Run(fmt.Sprintf("seed %d, key (%s), %d sessions", c.seed, c.key, c.threads), func(t *testing.T) {
			runChangesDuringChunks(t, c.seed, c.key, c.threads)
		})
	}
}

func runChangesDuringChunks(t *testing.T, seed int64, key string, threads int) {
	const alter = "ADD COLUMN extra INT NOT NULL DEFAULT 7, ADD KEY n_idx (n), MODIFY u VARCHAR(30)"
	db := testenv.Database(t, lockFreeDB)
	// ids 2, 4, ..., 20000: chunk k of 500 rows holds ids (1000(k-1), 1000k]; the odd ids are free
	// for inserts and key changes inside the range.
	testenv.Exec(t, db, "CREATE TABLE t (id INT NOT NULL, u VARCHAR(20), n INT, k INT NOT NULL DEFAULT 0, PRIMARY KEY ("+key+"))",
		"INSERT INTO t (id, u, n) SELECT 2 * seq, CONCAT('v', seq), seq FROM seq_1_to_10000",
		"CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	cfg := configtest.Config(t, lockFreeDB, "t", alter, nil)
	cfg.ChunkSize, cfg.ChunkTime, cfg.Checksum = 500, 0, false // nothing repairs the copy's result
	cfg.CopyThreads = threads
	flag := postpone(t, &cfg)

	var writers sync.WaitGroup
	var changed, refused atomic.Int64
	ctx := context.Background() // the copy's own context ends with the copy; the writers may outlive it
	s := seams{beforeChunk: func(_ context.Context, n int64) error {
		writers.Add(1)
		go func() {
			defer writers.Done()
			r := rand.New(rand.NewSource(seed*1000 + n))
			for range 12 {
				time.Sleep(time.Duration(r.Intn(2500)) * time.Microsecond)
				q, args := chunkChange(r, int(n-1)*1000+1, int(n)*1000)
				if _, err := db.ExecContext(ctx, fmt.Sprintf(q, "t"), args...); err != nil {
					if loadgen.Errno(err) != 1062 {
						t.Errorf("change of the original: %v", err)
					}
					refused.Add(1)
					continue
				}
				if _, err := db.ExecContext(ctx, fmt.Sprintf(q, "want"), args...); err != nil {
					t.Errorf("the same change of the twin: %v", err)
				}
				changed.Add(1)
			}
		}()
		return nil
	}}
	done := runWithSeams(t, cfg, s)
	waitPostponed(t, db, done)
	writers.Wait()
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 90*time.Second); err != nil {
		t.Fatalf("migration: %v", err)
	}
	t.Logf("%d changes of rows of the chunk being copied (%d refused as duplicates)", changed.Load(), refused.Load())
	if changed.Load() < 100 {
		t.Fatalf("only %d changes were made during the copy", changed.Load())
	}
	testenv.Exec(t, db, "ALTER TABLE want "+alter+", ALGORITHM=COPY")
	cols := []string{"id", "u", "n", "k", "extra"}
	gotRows, got := testenv.Checksum(t, db, lockFreeDB, "t", cols, "id")
	wantRows, want := testenv.Checksum(t, db, lockFreeDB, "want", cols, "id")
	if got != want || gotRows != wantRows {
		t.Errorf("the migrated table (%d rows) differs from the server's ALTER of the same changes (%d rows)", gotRows, wantRows)
		reportDifferences(t, db)
	}
}

// chunkChange is a random change of a row with its key in [lo, hi] ("%s" is the table): a delete,
// an update, an insert, a key change inside the range or out of the copy's range.
func chunkChange(r *rand.Rand, lo, hi int) (string, []any) {
	id := lo + r.Intn(hi-lo+1)
	switch r.Intn(5) {
	case 0:
		return "DELETE FROM %s WHERE id = ?", []any{id}
	case 1:
		return "UPDATE %s SET n = n + 1, u = CONCAT('w', n) WHERE id = ?", []any{id}
	case 2:
		return "INSERT INTO %s (id, u, n) VALUES (?, 'inserted', -1)", []any{id}
	case 3:
		return "UPDATE %s SET id = ?, u = 'moved' WHERE id = ?", []any{lo + r.Intn(hi-lo+1), id}
	default:
		return "UPDATE %s SET id = id + 1000000, u = 'moved out' WHERE id = ?", []any{id}
	}
}

// reportDifferences logs the ids whose rows differ between t and want (at most 20).
func reportDifferences(t *testing.T, db *sql.DB) {
	t.Helper()
	rows, err := db.Query(`SELECT id, 'only in t' FROM t WHERE (id, u, n, extra) NOT IN (SELECT id, u, n, extra FROM want)
		UNION ALL SELECT id, 'only in want' FROM want WHERE (id, u, n, extra) NOT IN (SELECT id, u, n, extra FROM t) LIMIT 20`)
	if err != nil {
		t.Log(err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		var where string
		if rows.Scan(&id, &where) == nil {
			t.Logf("id %d: %s", id, where)
		}
	}
}
