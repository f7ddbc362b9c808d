package copier

import (
	"context"
	"database/sql"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// countingThrottler never throttles; it counts how often it was asked.
type countingThrottler struct{ asked atomic.Int64 }

func (c *countingThrottler) Wait(ctx context.Context, _ time.Duration) error {
	c.asked.Add(1)
	return ctx.Err()
}

// copyTestConfig is the Config of a copy of copierDB.t(id, u) into _t_gho over the primary key.
func copyTestConfig(t *testing.T, chunkSize int, catchUps *atomic.Int64) Config {
	t.Helper()
	db := testenv.Database(t, copierDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(10))",
		"INSERT INTO t SELECT seq, CONCAT('v', seq) FROM seq_1_to_1000")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	orig, err := table.Inspect(ctx, db, copierDB, "t")
	if err != nil {
		t.Fatal(err)
	}
	pk := table.Key{Name: "PRIMARY", Columns: []string{"id"}}
	return Config{
		Primary: testenv.PrimaryConfig(), DB: db, Original: orig, GhostTable: "_t_gho",
		OriginalKey: pk, GhostKey: pk,
		GhostColumns: []string{"id", "u"}, SelectExprs: []string{"`id`", "`u`"},
		GhostKeyExprs: []string{orig.QualifiedName() + ".`id`"},
		EstimatedRows: 900, Retries: 3, Knobs: NewKnobs(chunkSize),
		CatchUp: CatchUpFunc(func(context.Context) error { catchUps.Add(1); return nil }),
		Logger:  zerolog.New(zerolog.NewTestWriter(t)),
	}
}

// newCopier is New(cfg), failing the test when cfg is refused.
func newCopier(t *testing.T, cfg Config) *Copier {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// copyWithin runs c for at most 30 s and returns its error.
func copyWithin(c *Copier) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.Run(ctx)
}

// mustCopy runs c (copyWithin) and fails the test when the copy fails.
func mustCopy(t *testing.T, c *Copier) {
	t.Helper()
	if err := copyWithin(c); err != nil {
		t.Fatal(err)
	}
}

// clashOnNewUniqueKey creates cfg's ghost _t_gho(id, u) with a new unique key on u and makes
// cfg.CatchUp the lagging "applier" catching up: the rows above 1000 get their current values
// ('w' and their id), which clash with nothing. staleRow(ctx, k) writes, as that applier would,
// row 1000+k with the old value of row k of the original: row k clashes on u and stays out of the
// ghost after its chunk, until the catch-up.
func clashOnNewUniqueKey(t *testing.T, cfg *Config, catchUps *atomic.Int64) (staleRow func(ctx context.Context, k int64) error) {
	t.Helper()
	db := cfg.DB
	testenv.Exec(t, db, "CREATE TABLE _t_gho (id INT PRIMARY KEY, u VARCHAR(10), UNIQUE KEY uk_u (u))")
	cfg.CatchUp = CatchUpFunc(func(context.Context) error {
		catchUps.Add(1)
		_, err := db.Exec("UPDATE " + copierDB + "._t_gho SET u = CONCAT('w', id) WHERE id > 1000")
		return err
	})
	return func(ctx context.Context, k int64) error {
		_, err := db.ExecContext(ctx, "INSERT INTO "+copierDB+"._t_gho VALUES (?, CONCAT('v', ?))", 1000+k, k)
		return err
	}
}

// The copy asks the throttler before every chunk, reads the chunk size for each chunk it plans,
// leaves a row already in the ghost (the applier's, newer) as it is, and reports its progress.
func TestCopierCopiesEveryChunkAfterAskingTheThrottler(t *testing.T) {
	var catchUps atomic.Int64
	cfg := copyTestConfig(t, 100, &catchUps)
	testenv.Exec(t, cfg.DB, "CREATE TABLE _t_gho LIKE t", "INSERT INTO _t_gho VALUES (5, 'newer')")
	th := &countingThrottler{}
	cfg.Throttler = th
	var chunks atomic.Int64
	cfg.Test.BeforeChunk = func(_ context.Context, n int64) error {
		if asked := th.asked.Load(); asked != n {
			t.Errorf("before chunk %d the throttler was asked %d times", n, asked)
		}
		chunks.Store(n)
		if n == 1 {
			cfg.Knobs.SetChunkSize(50)
		}
		return nil
	}
	c := newCopier(t, cfg)
	if copied, total := c.Progress(); copied != 0 || total != 900 {
		t.Errorf("progress before the copy: %d/%d, want 0/900", copied, total)
	}
	mustCopy(t, c)
	// Chunks of 100 make 10; at most the first four are planned before the size falls to 50.
	if n := chunks.Load(); n < 16 {
		t.Errorf("%d chunks: the new chunk size was not used", n)
	}
	if copied, total := c.Progress(); copied != 999 || total != 999 || c.Copied() != 999 {
		t.Errorf("progress after the copy: %d/%d (copied %d), want 999/999", copied, total, c.Copied())
	}
	if catchUps.Load() != 0 {
		t.Errorf("the copy waited for the applier %d times with no row missing", catchUps.Load())
	}
	if n := c.Recounts(); n != 0 {
		t.Errorf("%d chunks were read twice: a duplicate on the shared key alone proves its chunk", n)
	}
	_, got := testenv.Checksum(t, cfg.DB, copierDB, "_t_gho", []string{"id", "u"}, "id")
	testenv.Exec(t, cfg.DB, "UPDATE t SET u = 'newer' WHERE id = 5")
	_, want := testenv.Checksum(t, cfg.DB, copierDB, "t", []string{"id", "u"}, "id")
	if got != want {
		t.Error("the ghost does not hold every row of the original, with the applier's row 5 kept")
	}
}

// A value the ghost cannot hold fails the copy, naming the warning.
func TestCopierFailsOnATruncation(t *testing.T) {
	var catchUps atomic.Int64
	cfg := copyTestConfig(t, 300, &catchUps)
	testenv.Exec(t, cfg.DB, "CREATE TABLE _t_gho (id INT PRIMARY KEY, u VARCHAR(5))", "UPDATE t SET u = 'toolong' WHERE id = 700")
	err := copyWithin(newCopier(t, cfg))
	if err == nil || !strings.Contains(err.Error(), "copy chunk 3") || !strings.Contains(err.Error(), "Data truncated for column 'u'") ||
		!strings.Contains(err.Error(), "the original table is untouched") {
		t.Fatalf("copy of a row the ghost cannot hold: %v", err)
	}
}

// Rows that clash on a new unique key with rows the applier wrote in an older state are missing
// after their chunk: the copy goes on and copies those chunks again once, after a single wait for
// the applier, instead of waiting for the applier at every such chunk (a lagging applier would
// slow every chunk by its lag).
func TestCopierWaitsForTheApplierOnceForAllChunksWithMissingRows(t *testing.T) {
	var catchUps atomic.Int64
	cfg := copyTestConfig(t, 100, &catchUps)
	staleRow := clashOnNewUniqueKey(t, &cfg, &catchUps)
	// Just before each chunk of 100 is copied, the "applier" writes a row with the old value of
	// row 50 of that chunk: a clash on uk_u until it catches up.
	cfg.Test.BeforeChunk = func(ctx context.Context, n int64) error { return staleRow(ctx, (n-1)*100+50) }
	c := newCopier(t, cfg)
	mustCopy(t, c)
	if n := catchUps.Load(); n != 1 {
		t.Errorf("the copy waited for the applier %d times, want once for the ten chunks", n)
	}
	if n := c.Recounts(); n < 10 {
		t.Errorf("%d chunks counted in the ghost again, want every one of the ten that clashed on uk_u", n)
	}
	var n int
	if err := cfg.DB.QueryRow("SELECT COUNT(*) FROM " + copierDB + "._t_gho WHERE id <= 1000").Scan(&n); err != nil || n != 1000 {
		t.Errorf("the ghost holds %d rows of the original (%v), want 1000", n, err)
	}
}

func TestNewRefusesIncompleteConfigs(t *testing.T) {
	orig := &table.Table{Schema: "s", Name: "t", Columns: []table.Column{{Name: "id", DataType: "int"}}}
	pk := table.Key{Name: "PRIMARY", Columns: []string{"id"}}
	good := func() Config {
		return Config{DB: new(sql.DB), Original: orig, GhostTable: "_t_gho", OriginalKey: pk, GhostKey: pk,
			GhostColumns: []string{"id"}, SelectExprs: []string{"`id`"}, GhostKeyExprs: []string{"`s`.`t`.`id`"},
			Knobs: NewKnobs(10), CatchUp: CatchUpFunc(func(context.Context) error { return nil })}
	}
	if _, err := New(good()); err != nil {
		t.Fatalf("a complete config was refused: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(*Config)
	}{
		{"no pool", func(c *Config) { c.DB = nil }},
		{"no ghost table", func(c *Config) { c.GhostTable = "" }},
		{"no knobs", func(c *Config) { c.Knobs = nil }},
		{"no catch-up", func(c *Config) { c.CatchUp = nil }},
		{"select list shorter than the columns", func(c *Config) { c.SelectExprs = nil }},
		{"ghost key without expressions", func(c *Config) { c.GhostKeyExprs = nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := good()
			c.change(&cfg)
			if _, err := New(cfg); err == nil {
				t.Error("accepted")
			}
		})
	}
}

func TestKnobs(t *testing.T) {
	k := NewKnobs(1000)
	if k.ChunkSize() != 1000 {
		t.Errorf("chunk size %d, want 1000", k.ChunkSize())
	}
	k.SetChunkSize(20)
	if k.ChunkSize() != 20 {
		t.Errorf("chunk size %d after setting 20", k.ChunkSize())
	}
	k.SetChunkSize(0)
	if k.ChunkSize() != 1 {
		t.Errorf("chunk size %d after setting 0, want 1", k.ChunkSize())
	}
	k.adaptChunkSize(300)
	if k.ChunkSize() != 300 {
		t.Errorf("chunk size %d after --chunk-time chose 300", k.ChunkSize())
	}
	// An operator's size stays: --chunk-time no longer changes it.
	k.FixChunkSize(50)
	k.adaptChunkSize(5000)
	if k.ChunkSize() != 50 {
		t.Errorf("chunk size %d after an operator fixed 50 and --chunk-time chose 5000", k.ChunkSize())
	}
}

// A shared key of a character set MySQL deprecates (utf8mb3) is copied in chunks: MySQL warns
// (1287) for the CONVERT ... USING utf8mb3 and COLLATE of the chunk bounds, which changes no row.
func TestCopierCopiesADeprecatedCharsetKey(t *testing.T) {
	db := testenv.Database(t, copierDB)
	testenv.Exec(t, db, "CREATE TABLE t3 (k VARCHAR(20) CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci PRIMARY KEY, v VARCHAR(10) CHARACTER SET utf8mb3)",
		"INSERT INTO t3 SELECT CONCAT(_utf8mb4'é', seq), CONCAT(_utf8mb4'ü', seq) FROM seq_1_to_1000",
		"CREATE TABLE _t3_gho LIKE t3")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	orig, err := table.Inspect(ctx, db, copierDB, "t3")
	if err != nil {
		t.Fatal(err)
	}
	pk := table.Key{Name: "PRIMARY", Columns: []string{"k"}}
	mustCopy(t, newCopier(t, Config{
		Primary: testenv.PrimaryConfig(), DB: db, Original: orig, GhostTable: "_t3_gho",
		OriginalKey: pk, GhostKey: pk,
		GhostColumns: []string{"k", "v"}, SelectExprs: []string{"`k`", "`v`"},
		GhostKeyExprs: []string{orig.QualifiedName() + ".`k`"},
		EstimatedRows: 1000, Retries: 3, Knobs: NewKnobs(150),
		CatchUp: CatchUpFunc(func(context.Context) error { return nil }),
		Logger:  zerolog.New(zerolog.NewTestWriter(t)),
	}))
	_, got := testenv.Checksum(t, db, copierDB, "_t3_gho", []string{"k", "v"}, "k")
	_, want := testenv.Checksum(t, db, copierDB, "t3", []string{"k", "v"}, "k")
	if got != want {
		t.Error("the ghost does not hold every row of the original")
	}
}
