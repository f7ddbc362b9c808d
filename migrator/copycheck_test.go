package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// copyCheckDB is the database of the row copy's completeness tests.
const copyCheckDB = "gl_copycheck"

// copyCheckCase migrates t(id, u, n) of 3000 rows in chunks of 1000. bad makes row 2500 one the
// ALTER cannot take as it is; touch updates rows 2001-2100 before chunk 3 is copied and waits
// until the applier has written them to the ghost, so that chunk's INSERT starts with 100
// duplicates of the shared key; maxErrors shrinks the copy session's warning list.
type copyCheckCase struct {
	name      string
	bad       string
	alter     string
	touch     bool
	maxErrors int
	phrase    string // expected in the error; "" when the migration must succeed
}

// No chunk copy may succeed while the ghost misses a row of the original or holds a changed value:
// every problem row must fail the migration, whatever comes before it in the warning list, and a
// clean table must migrate whole, even when the list is too short for a chunk's warnings.
func TestCopyChunkNeverTrustsTruncatedWarnings(t *testing.T) {
	dup, trunc, check := "UPDATE t SET u = 'v5' WHERE id = 2500", "UPDATE t SET u = 'toolong' WHERE id = 2500", "UPDATE t SET n = -1 WHERE id = 2500"
	// The server's own words: MySQL names the key with its table and words CHECK differently.
	dupMsg, checkMsg := "Duplicate entry 'v5' for key 'uu'", "CONSTRAINT `ck` failed"
	if !testenv.Flavor(t).MariaDB {
		dupMsg, checkMsg = "Duplicate entry 'v5' for key '_t_gho.uu'", "Check constraint 'ck' is violated"
	}
	cases := []copyCheckCase{
		{name: "duplicate in another chunk than its twin", bad: dup, alter: "ADD UNIQUE KEY uu (u)", phrase: "warnings detected in statement 1 of 1: [Warning: " + dupMsg + " (1062)]: the ALTER would drop rows"},
		{name: "duplicate after rows the applier wrote", bad: dup, alter: "ADD UNIQUE KEY uu (u)", touch: true, phrase: "warnings detected in statement 1 of 1: [Warning: " + dupMsg + " (1062)]: the ALTER would drop rows"},
		{name: "truncation after rows the applier wrote", bad: trunc, alter: "MODIFY u VARCHAR(5)", touch: true, phrase: "warnings detected in statement 1 of 1: [Warning: Data truncated for column 'u' at row"},
		{name: "CHECK violation after rows the applier wrote", bad: check, alter: "ADD CONSTRAINT ck CHECK (n >= 0)", touch: true, phrase: "warnings detected in statement 1 of 1: [Warning: " + checkMsg},
		{name: "truncation past a short warning list", bad: trunc, alter: "MODIFY u VARCHAR(5)", touch: true, maxErrors: 10, phrase: "warnings detected in statement 1 of 1: [Warning: Data truncated for column 'u' at row"},
		{name: "duplicate past a short warning list", bad: dup, alter: "ADD UNIQUE KEY uu (u)", touch: true, maxErrors: 10, phrase: "warnings detected in statement 1 of 1: [Warning: " + dupMsg + " (1062)]: the ALTER would drop rows"},
		{name: "clean table past a short warning list", alter: "ADD UNIQUE KEY uu (u), MODIFY u VARCHAR(5)", touch: true, maxErrors: 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runCopyCheckCase(t, c) })
	}
}

func runCopyCheckCase(t *testing.T, c copyCheckCase) {
	db := testenv.Database(t, copyCheckDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(10), n INT)",
		"INSERT INTO t SELECT seq, CONCAT('v', seq), seq FROM seq_1_to_3000")
	if c.bad != "" {
		testenv.Exec(t, db, c.bad)
	}
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	cfg := config.Default()
	cfg.Conn = testenv.PrimaryConfig()
	cfg.Database, cfg.Table, cfg.Alter = copyCheckDB, "t", c.alter
	cfg.AllowOnMaster, cfg.Execute = true, true
	cfg.ReplicaServerID, cfg.DefaultRetries = testenv.NextServerID(), 5
	cfg.Logger = zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)
	s := seams{maxErrorCount: c.maxErrors}
	touched := false
	if c.touch {
		s.beforeChunk = func(ctx context.Context, n int64) error {
			if n != 3 {
				return nil
			}
			touched = true
			return touchChunk(ctx, db)
		}
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.seams = s
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	err = m.Run(ctx)
	if c.touch && !touched {
		t.Fatal("chunk 3 was never copied")
	}
	_, got := testenv.Checksum(t, db, copyCheckDB, "t", []string{"id", "u", "n"}, "id")
	_, want := testenv.Checksum(t, db, copyCheckDB, "want", []string{"id", "u", "n"}, "id")
	if got != want {
		t.Error("t does not hold every row of the original, unchanged")
	}
	if c.phrase == "" {
		if err != nil {
			t.Fatalf("the migration of a clean table failed: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatal("the migration succeeded although the ALTER cannot take row 2500")
	}
	t.Logf("the migration failed: %v", err)
	if !strings.Contains(err.Error(), c.phrase) || !strings.Contains(err.Error(), "the original table is untouched") {
		t.Errorf("error lacks %q: %v", c.phrase, err)
	}
	if left := testenv.TableNames(t, db, copyCheckDB, "_t_"); len(left) != 0 {
		t.Errorf("helper tables left: %v", left)
	}
}

// touchChunk updates rows 2001-2100 of t and want, then waits until the applier has written them
// to the ghost.
func touchChunk(ctx context.Context, db *sql.DB) error {
	for _, tbl := range []string{"t", "want"} {
		if _, err := db.ExecContext(ctx, "UPDATE "+tbl+" SET n = n + 1 WHERE id BETWEEN 2001 AND 2100"); err != nil {
			return err
		}
	}
	for {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM _t_gho WHERE id BETWEEN 2001 AND 2100 AND n = id + 1").Scan(&n); err != nil {
			return err
		}
		if n == 100 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the applier did not write the touched rows: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Under a write load (updates, inserts and deletes all over the table) and a warning list so
// short that chunks are split again and again, a clean table still migrates whole: the checks
// neither lose a row nor refuse a good one.
func TestCopyChunkInPartsUnderLoad(t *testing.T) {
	t.Parallel() // a database of its own
	db, schema := testenv.OwnDatabase(t, copyCheckDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, u VARCHAR(10), n INT)",
		"INSERT INTO t SELECT seq, CONCAT('v', seq), seq FROM seq_1_to_3000")
	postpone := filepath.Join(t.TempDir(), "postpone")
	if err := os.WriteFile(postpone, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &testenv.LogBuffer{}
	cfg := config.Default()
	cfg.Conn = testenv.PrimaryConfig()
	cfg.Database, cfg.Table, cfg.Alter = schema, "t", "ADD UNIQUE KEY uu (u), ADD COLUMN c INT"
	cfg.AllowOnMaster, cfg.Execute = true, true
	cfg.ReplicaServerID, cfg.DefaultRetries, cfg.ChunkSize = testenv.NextServerID(), 5, 100
	cfg.PostponeCutOverFlagFile, cfg.FlagFileInterval = postpone, 10*time.Millisecond
	cfg.Logger = zerolog.New(zerolog.MultiLevelWriter(zerolog.NewTestWriter(t), logs)).Level(zerolog.DebugLevel)
	s := seams{maxErrorCount: 5}
	// Each chunk waits for 20 more acknowledged writes, so the applier writes rows ahead of the copy.
	var acked atomic.Int64
	s.beforeChunk = func(ctx context.Context, _ int64) error {
		want := acked.Load() + 20
		for acked.Load() < want {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
		return nil
	}
	ops := []loadgen.Op{
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET n = n + 1 WHERE id = ?", []any{1 + r.Intn(3500)}
		},
		func(r *rand.Rand) (string, []any) {
			id := 3001 + r.Intn(500)
			return "INSERT INTO t VALUES (?, CONCAT('w', ?), ?)", []any{id, id, id}
		},
		func(r *rand.Rand) (string, []any) { return "DELETE FROM t WHERE id = ?", []any{1 + r.Intn(3500)} },
	}
	loadCtx, stopLoad := context.WithCancel(context.Background())
	loaded := make(chan loadgen.Stats, 1)
	go func() {
		loaded <- loadgen.Run(loadCtx, loadgen.Config{DB: db, Ops: ops, Rate: 2000, Workers: 4,
			OnAck:   func(int, sql.Result, []any) { acked.Add(1) },
			OnError: func(_ int, err error) bool { return strings.Contains(err.Error(), "Error 1062") }})
	}()
	done := runWithSeams(t, cfg, s)
	waitPostponed(t, db, done)
	stopLoad()
	if st := <-loaded; st.Failed > 0 {
		t.Fatalf("the load failed: %v", st.FirstError)
	}
	if err := os.Remove(postpone); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 90*time.Second); err != nil {
		t.Fatalf("the migration of a clean table failed: %v", err)
	}
	if !strings.Contains(logs.String(), "copying the chunk again in parts") {
		t.Error("no chunk was copied in parts: the test does not exercise the short list")
	}
	n, got := testenv.Checksum(t, db, schema, "t", []string{"id", "u", "n"}, "id")
	_, want := testenv.Checksum(t, db, schema, "_t_del", []string{"id", "u", "n"}, "id")
	if got != want {
		t.Errorf("the migrated table (%d rows) differs from the original as of the cut-over", n)
	}
}
