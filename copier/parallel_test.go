package copier

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// parallelCase is a table copied by three sessions while a load writes to it.
type parallelCase struct {
	name    string
	create  string   // CREATE TABLE t (...), the shared key its PRIMARY KEY
	fill    string   // INSERT INTO t ...
	columns []string // every column of t
	key     []string // the primary key's columns
	ops     []loadgen.Op
}

func parallelCases() []parallelCase {
	// A string key compared under utf8mb4_general_ci: 'é' sorts as 'e' and equals it, case is
	// ignored; the load's inserts meet rows of another case or accent as duplicates.
	strKey := func(r *rand.Rand) string {
		return fmt.Sprintf("%s%05d", []string{"a", "B", "é", "z", "E", "A", "Z"}[r.Intn(7)], r.Intn(4000))
	}
	return []parallelCase{{
		name:    "integer key",
		create:  "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL, s VARCHAR(20))",
		fill:    "INSERT INTO t SELECT seq, seq, CONCAT('s', seq) FROM seq_1_to_3000",
		columns: []string{"id", "v", "s"}, key: []string{"id"},
		ops: []loadgen.Op{
			func(r *rand.Rand) (string, []any) {
				return "INSERT INTO t VALUES (?, 0, 'new')", []any{r.Intn(4000) + 1}
			},
			func(r *rand.Rand) (string, []any) {
				return "UPDATE t SET v = v + 1, s = 'upd' WHERE id = ?", []any{r.Intn(4000) + 1}
			},
			func(r *rand.Rand) (string, []any) { return "DELETE FROM t WHERE id = ?", []any{r.Intn(4000) + 1} },
			func(r *rand.Rand) (string, []any) { // the key moves to another chunk
				return "UPDATE t SET id = ? WHERE id = ?", []any{r.Intn(4000) + 4001, r.Intn(4000) + 1}
			},
		},
	}, {
		name:    "composite key",
		create:  "CREATE TABLE t (a INT NOT NULL, b VARCHAR(10) NOT NULL, v INT NOT NULL, PRIMARY KEY (a, b))",
		fill:    "INSERT INTO t SELECT seq DIV 10, CONCAT('k', seq % 10), seq FROM seq_1_to_3000",
		columns: []string{"a", "b", "v"}, key: []string{"a", "b"},
		ops: []loadgen.Op{
			func(r *rand.Rand) (string, []any) {
				return "INSERT INTO t VALUES (?, ?, 0)", []any{r.Intn(400), "k" + strconv.Itoa(r.Intn(12))}
			},
			func(r *rand.Rand) (string, []any) {
				return "UPDATE t SET v = v + 1 WHERE a = ? AND b = ?", []any{r.Intn(300), "k" + strconv.Itoa(r.Intn(10))}
			},
			func(r *rand.Rand) (string, []any) {
				return "DELETE FROM t WHERE a = ? AND b = ?", []any{r.Intn(300), "k" + strconv.Itoa(r.Intn(10))}
			},
		},
	}, {
		name:    "string key",
		create:  "CREATE TABLE t (k VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci PRIMARY KEY, v INT NOT NULL)",
		fill:    "INSERT INTO t SELECT CONCAT(ELT(1 + seq % 4, 'a', 'B', 'é', 'Z'), LPAD(seq, 5, '0')), seq FROM seq_1_to_3000",
		columns: []string{"k", "v"}, key: []string{"k"},
		ops: []loadgen.Op{
			func(r *rand.Rand) (string, []any) { return "INSERT INTO t VALUES (?, 0)", []any{strKey(r)} },
			func(r *rand.Rand) (string, []any) { return "UPDATE t SET v = v + 1 WHERE k = ?", []any{strKey(r)} },
			func(r *rand.Rand) (string, []any) { return "DELETE FROM t WHERE k = ?", []any{strKey(r)} },
		},
	}}
}

// mirrorTriggers keep _t_gho in step with t inside each writing transaction: the test's stand-in
// for the binlog applier (whose writes are newer than the copy's and win, as the applier's do).
// They make lock waits and deadlocks between the copy sessions and the load likely.
func mirrorTriggers(pc parallelCase) []string {
	cols := strings.Join(pc.columns, ", ")
	news := "NEW." + strings.Join(pc.columns, ", NEW.")
	var old []string
	for _, k := range pc.key {
		old = append(old, k+" = OLD."+k)
	}
	where := strings.Join(old, " AND ")
	replace := fmt.Sprintf("REPLACE INTO _t_gho (%s) VALUES (%s)", cols, news)
	return []string{
		"CREATE TRIGGER t_ins AFTER INSERT ON t FOR EACH ROW " + replace,
		"CREATE TRIGGER t_upd AFTER UPDATE ON t FOR EACH ROW BEGIN DELETE FROM _t_gho WHERE " + where + "; " + replace + "; END",
		"CREATE TRIGGER t_del AFTER DELETE ON t FOR EACH ROW DELETE FROM _t_gho WHERE " + where,
	}
}

// parallelConfig is the Config of a copy of pc's t into _t_gho by three sessions.
func parallelConfig(t *testing.T, pc parallelCase, chunkSize int) Config {
	t.Helper()
	db := testenv.Database(t, copierDB)
	testenv.Exec(t, db, pc.create, pc.fill, "CREATE TABLE _t_gho LIKE t")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	orig, err := table.Inspect(ctx, db, copierDB, "t")
	if err != nil {
		t.Fatal(err)
	}
	pk := table.Key{Name: "PRIMARY", Columns: pc.key}
	var selects, keyExprs []string
	for _, c := range pc.columns {
		selects = append(selects, "`"+c+"`")
	}
	for _, k := range pc.key {
		keyExprs = append(keyExprs, orig.QualifiedName()+".`"+k+"`")
	}
	return Config{
		Primary: testenv.PrimaryConfig(), DB: db, Original: orig, GhostTable: "_t_gho",
		OriginalKey: pk, GhostKey: pk, GhostColumns: pc.columns, SelectExprs: selects, GhostKeyExprs: keyExprs,
		EstimatedRows: 3000, Retries: 30, Knobs: NewKnobs(chunkSize), Threads: 3,
		CatchUp: CatchUpFunc(func(context.Context) error { return nil }),
		Logger:  zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel),
	}
}

// Three sessions copy chunks of 10 to 80 rows (from 40, --chunk-time) over an integer, a composite and a string key while a load
// inserts, updates, deletes (and, on the integer key, moves rows between chunks): the ghost ends
// equal to the original, row for row. No row deleted or changed during the copy comes back.
func TestParallelCopyUnderWritesEqualsTheOriginal(t *testing.T) {
	for _, pc := range parallelCases() {
		t.Run(pc.name, func(t *testing.T) {
			cfg := parallelConfig(t, pc, 40)
			// Sessions resize the chunks from their own chunk times at once (-race).
			cfg.Adaptive = &Adaptive{Target: 20 * time.Millisecond, Min: 10, Max: 80}
			testenv.Exec(t, cfg.DB, mirrorTriggers(pc)...)
			// The first three chunks wait for each other: three sessions copy at once.
			var arrived atomic.Int64
			cfg.Test.BeforeChunk = func(ctx context.Context, n int64) error {
				if n > 3 {
					time.Sleep(10 * time.Millisecond) // let the load interleave
					return nil
				}
				arrived.Add(1)
				return testenv.Poll(ctx, 5*time.Second, time.Millisecond, "three sessions at once", func() (bool, error) {
					return arrived.Load() >= 3, nil
				})
			}
			c := newCopier(t, cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			load := loadgen.Start(ctx, loadgen.Config{DB: cfg.DB, Ops: pc.ops, Rate: 1500, Workers: 6,
				OnError: func(_ int, err error) bool {
					n := loadgen.Errno(err)
					return n == 1062 || n == 1213 || n == 1205
				}})
			if !load.WaitAcked(20, 10*time.Second) {
				t.Fatalf("the load did not start: %v", load.Err())
			}
			before := load.Acked()
			runErr := c.Run(ctx)
			during := load.Acked() - before
			load.Stop()
			if runErr != nil {
				t.Fatal(runErr)
			}
			if err := load.Err(); err != nil {
				t.Fatalf("load: %v", err)
			}
			if during < 100 {
				t.Errorf("only %d writes during the copy", during)
			}
			order := strings.Join(pc.key, ", ")
			wantRows, want := testenv.Checksum(t, cfg.DB, copierDB, "t", pc.columns, order)
			gotRows, got := testenv.Checksum(t, cfg.DB, copierDB, "_t_gho", pc.columns, order)
			if gotRows != wantRows || got != want {
				t.Errorf("ghost has %d rows, original %d; checksums equal: %v", gotRows, wantRows, got == want)
			}
			if k := c.CompleteUpTo(); k == nil || !c.Done() {
				t.Errorf("after the copy: complete up to %q, done %v", k, c.Done())
			}
			t.Logf("%d writes during the copy, %d chunks, %d rows copied", during, c.ChunksCopied(), c.Copied())
		})
	}
}

// CompleteUpTo never passes a chunk not yet proven: while one session is held before chunk 2,
// the others copy every chunk above it, and the mark stays at chunk 1's upper key until chunk 2
// is proven. Before any chunk it is below that chunk's lower key.
func TestParallelCompleteUpToWaitsForTheSlowestChunk(t *testing.T) {
	var catchUps atomic.Int64
	cfg := copyTestConfig(t, 100, &catchUps) // t(id 1..1000): chunk n is (100(n-1), 100n]
	testenv.Exec(t, cfg.DB, "CREATE TABLE _t_gho LIKE t")
	cfg.Threads = 3
	release := make(chan struct{})
	var c *Copier
	cfg.Test.BeforeChunk = func(ctx context.Context, n int64) error {
		if k := keyOf(c.CompleteUpTo()); k != nil {
			if upTo, _ := strconv.Atoi(string(k)); upTo > int(n-1)*100 {
				t.Errorf("before chunk %d (from key %d): complete up to %d", n, (n-1)*100+1, upTo)
			}
		}
		if n == 2 {
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	c = newCopier(t, cfg)
	done := make(chan error, 1)
	go func() { done <- copyWithin(c) }()
	testenv.WaitFor(t, 20*time.Second, time.Millisecond, "every chunk but chunk 2 copied", func() (bool, error) {
		return c.ChunksCopied() == 9, nil
	})
	if got := string(keyOf(c.CompleteUpTo())); got != "100" {
		t.Errorf("chunks 1 and 3-10 proven, chunk 2 not: complete up to %q, want 100", got)
	}
	if copied, _ := c.Progress(); copied != 900 {
		t.Errorf("progress with chunk 2 held: %d rows, want 900", copied)
	}
	close(release)
	if err := testenv.WaitResult(t, done, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := string(keyOf(c.CompleteUpTo())); got != "1000" || c.Copied() != 1000 {
		t.Errorf("after the copy: complete up to %q, %d rows copied; want 1000 and 1000", got, c.Copied())
	}
}

// With three sessions, chunks with rows missing from the ghost are still copied again once at the
// end, after a single catch-up, and the mark stops below the first of them until then.
func TestParallelDeferredChunksAreCopiedAgainAfterOneCatchUp(t *testing.T) {
	var catchUps atomic.Int64
	cfg := copyTestConfig(t, 100, &catchUps)
	staleRow := clashOnNewUniqueKey(t, &cfg, &catchUps)
	cfg.Threads = 3
	var c *Copier
	// Chunks 4 and 7 meet a row the "applier" wrote with the old value of one of their rows.
	cfg.Test.BeforeChunk = func(ctx context.Context, n int64) error {
		if k := keyOf(c.CompleteUpTo()); k != nil {
			if upTo, _ := strconv.Atoi(string(k)); upTo > 300 {
				t.Errorf("before chunk %d: complete up to %d, past the deferred chunk 4", n, upTo)
			}
		}
		if n == 4 || n == 7 {
			return staleRow(ctx, (n-1)*100+50)
		}
		return nil
	}
	c = newCopier(t, cfg)
	mustCopy(t, c)
	if n := catchUps.Load(); n != 1 {
		t.Errorf("the copy waited for the applier %d times, want once for both chunks", n)
	}
	var n int
	if err := cfg.DB.QueryRow("SELECT COUNT(*) FROM " + copierDB + "._t_gho WHERE id <= 1000").Scan(&n); err != nil || n != 1000 {
		t.Errorf("the ghost holds %d rows of the original (%v), want 1000", n, err)
	}
	if got := string(keyOf(c.CompleteUpTo())); got != "1000" {
		t.Errorf("CompleteUpTo after the copy: %q, want 1000", got)
	}
}

// A lock wait timeout in one session (an application's transaction holds a row of its chunk) is
// retried as with one session, while the other sessions copy the rest; the mark waits for it.
func TestParallelRetriesALockWaitWhileTheOthersGoOn(t *testing.T) {
	var catchUps atomic.Int64
	cfg := copyTestConfig(t, 100, &catchUps)
	testenv.Exec(t, cfg.DB, "CREATE TABLE _t_gho LIKE t")
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	testenv.SetGlobal(t, admin, "innodb_lock_wait_timeout", "1") // the copy sessions' own, when they connect
	var logs testenv.LogBuffer
	cfg.Logger = testenv.Logger(t, &logs)
	cfg.Threads, cfg.Retries = 3, 10

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	holder, err := cfg.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, "UPDATE "+copierDB+".t SET u = 'held' WHERE id = 250"); err != nil {
		t.Fatal(err)
	}
	c := newCopier(t, cfg)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	testenv.WaitFor(t, 20*time.Second, 5*time.Millisecond, "a lock wait timeout retried", func() (bool, error) {
		return logs.Contains("Lock wait timeout exceeded") && logs.Contains("retrying"), nil
	})
	testenv.WaitFor(t, 20*time.Second, time.Millisecond, "every other chunk copied", func() (bool, error) {
		return c.ChunksCopied() == 9, nil
	})
	if got := string(keyOf(c.CompleteUpTo())); got != "200" {
		t.Errorf("chunk 3 held by a lock: complete up to %q, want 200", got)
	}
	if _, err := holder.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	var u string
	if err := cfg.DB.QueryRow("SELECT u FROM " + copierDB + "._t_gho WHERE id = 250").Scan(&u); err != nil || u != "held" {
		t.Errorf("row 250 in the ghost: %q (%v), want the committed 'held'", u, err)
	}
	if c.Copied() != 1000 || string(keyOf(c.CompleteUpTo())) != "1000" {
		t.Errorf("after the copy: %d rows, complete up to %q", c.Copied(), keyOf(c.CompleteUpTo()))
	}
}
