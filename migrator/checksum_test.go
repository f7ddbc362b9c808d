package migrator

import (
	"context"
	"database/sql"
	"errors"
	"math/rand"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/checksum"
	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/observe"
)

// checksumSetup creates t (3,000 rows: some names empty, some NULL) and a configuration that cuts
// over at once, logging into logs, with chunks of 500 rows.
func checksumSetup(t *testing.T, alter string, logs *testenv.LogBuffer) (*sql.DB, config.Config) {
	t.Helper()
	db, schema := testenv.OwnTable(t, sameResultDB,
		"CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20) NULL, n INT NOT NULL)",
		`INSERT INTO t SELECT seq, CASE WHEN seq % 7 = 0 THEN '' WHEN seq % 11 = 0 THEN NULL ELSE CONCAT('n', seq) END, seq * 3
		 FROM seq_1_to_3000`)
	cfg := configtest.Config(t, schema, "t", alter, logs)
	cfg.OkToDropTable = true
	cfg.ChunkSize = 500
	return db, cfg
}

// A ghost row changed, one deleted and one added right before the checksum are found and
// repaired: the migrated table is what the server's own ALTER makes of the rows, NULL and empty
// strings told apart.
func TestChecksumRepairsCorruptedGhost(t *testing.T) {
	t.Parallel() // a database of its own
	logs := &testenv.LogBuffer{}
	alter := "MODIFY name VARCHAR(40) CHARACTER SET utf8mb4 NULL, MODIFY n BIGINT NOT NULL, ADD COLUMN c INT NULL"
	db, cfg := checksumSetup(t, alter, logs)
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	rounds := 0
	beforeSnapshot := func(ctx context.Context, round int) error {
		rounds++
		if round > 0 {
			return nil
		}
		for _, q := range []string{
			"UPDATE _t_gho SET name = NULL WHERE id = 7", // was ''
			"DELETE FROM _t_gho WHERE id = 1600",
			"INSERT INTO _t_gho (id, name, n) VALUES (99999, 'extra', 1)",
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
	var phases []string
	m := newWithSeams(t, cfg, seams{beforeSnapshot: beforeSnapshot})
	m.Observe(observe.ObserverFunc(func(c observe.PhaseChange) { phases = append(phases, c.Phase.String()) }))
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("migration: %v", err)
	}
	if got := strings.Join(phases, ","); got != "prepare,copy,checksum,cut-over,done" {
		t.Errorf("observers heard %s, want prepare,copy,checksum,cut-over,done", got)
	}
	if rounds != 2 {
		t.Errorf("%d snapshots, want 2 (the full pass, then the re-check of the repaired chunks)", rounds)
	}
	for _, want := range []string{"phase: checksum", "checksum: 3000 rows compared in 1 ranges, 3 repaired"} {
		if !logs.Contains(want) {
			t.Errorf("the log does not say %q", want)
		}
	}
	assertSameAsServerAlter(t, db, "want", alter)
}

// A ghost row corrupted again after each repair fails the migration with the keys of its range;
// the original is untouched.
func TestChecksumPersistentMismatchAborts(t *testing.T) {
	t.Parallel() // a database of its own
	db, cfg := checksumSetup(t, "ADD COLUMN c INT NULL", nil)
	_, before := testenv.Checksum(t, db, cfg.Database, "t", []string{"id", "name", "n"}, "id")
	beforeSnapshot := func(ctx context.Context, _ int) error {
		_, err := db.ExecContext(ctx, "UPDATE _t_gho SET n = n + 1 WHERE id = 1234")
		return err
	}
	err := waitFailed(t, runWithSeams(t, cfg, seams{beforeSnapshot: beforeSnapshot}), "with a ghost row that never matches")
	if !errors.Is(err, checksum.ErrMismatch) || !strings.Contains(err.Error(), "key ranges ((1000) .. (1500)]") {
		t.Errorf("the error does not name the mismatching key range: %v", err)
	}
	if !testenv.Existing(t, db, cfg.Database, "t")["t"] {
		t.Fatal("the original is not in place")
	}
	if _, after := testenv.Checksum(t, db, cfg.Database, "t", []string{"id", "name", "n"}, "id"); after != before {
		t.Error("the original table changed")
	}
}

// Under a write load all through the copy and the checksum, the checksum finds no difference
// (none repaired), and the migrated table equals the original as of the cut-over.
func TestChecksumUnderLoadFindsNoFalseMismatch(t *testing.T) {
	logs := &testenv.LogBuffer{}
	db, snapshots := checksumUnderLoad(t, logs, nil)
	if snapshots != 1 || !logs.Contains(" 0 repaired") {
		t.Errorf("the checksum under load repaired chunks (%d snapshots): a false mismatch", snapshots)
	}
	testenv.Exec(t, db, "DROP TABLE _t_del")
}

// Under a write load, ghost rows corrupted before the checksum are repaired while the applier
// writes the same ranges, and the result still equals the original as of the cut-over.
func TestChecksumRepairsUnderLoad(t *testing.T) {
	logs := &testenv.LogBuffer{}
	db, snapshots := checksumUnderLoad(t, logs, func(ctx context.Context, db *sql.DB) error {
		_, err := db.ExecContext(ctx, "UPDATE _t_gho SET n = n + 1000000 WHERE id % 250 = 0")
		return err
	})
	if snapshots != 2 || logs.Contains(" 0 repaired") {
		t.Errorf("%d snapshots; want the corrupted chunks repaired and checked once more", snapshots)
	}
	testenv.Exec(t, db, "DROP TABLE _t_del")
}

// checksumUnderLoad migrates t under a write load that stops at the cut-over, corrupting the
// ghost with corrupt (when given) before the first snapshot, checks the migrated table equals the
// original as of the cut-over, and returns how many snapshots the checksum took.
func checksumUnderLoad(t *testing.T, logs *testenv.LogBuffer, corrupt func(context.Context, *sql.DB) error) (*sql.DB, int) {
	t.Helper()
	db, cfg := checksumSetup(t, "MODIFY n BIGINT NOT NULL, MODIFY name VARCHAR(30) NULL", logs)
	cfg.OkToDropTable = false
	cfg.ChunkSize = 100
	var snapshots int
	beforeSnapshot := func(ctx context.Context, round int) error {
		snapshots++
		if round == 0 && corrupt != nil {
			return corrupt(ctx, db)
		}
		return nil
	}
	ops := []loadgen.Op{
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET n = n + 1 WHERE id = ?", []any{1 + r.Intn(3200)}
		},
		func(r *rand.Rand) (string, []any) {
			id := 3001 + r.Intn(400)
			return "INSERT IGNORE INTO t VALUES (?, IF(? % 2 = 0, '', NULL), ?)", []any{id, id, id}
		},
		func(r *rand.Rand) (string, []any) { return "DELETE FROM t WHERE id = ?", []any{1 + r.Intn(3400)} },
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET name = CONCAT('u', n) WHERE id = ?", []any{1 + r.Intn(3400)}
		},
	}
	loadCtx, stopLoad := context.WithCancel(context.Background())
	load := loadgen.Start(loadCtx, loadgen.Config{DB: db, Ops: ops, Rate: 500, Workers: 4})
	m := newWithSeams(t, cfg, seams{beforeSnapshot: beforeSnapshot})
	// The load stops once the checksum is done, before the cut-over: the old table is then the
	// original as of the cut-over.
	var st loadgen.Stats
	m.GateCutOver(func(context.Context, int) error {
		if loadCtx.Err() == nil {
			stopLoad()
			st = load.Stop()
		}
		return nil
	})
	err := m.Run(context.Background())
	stopLoad()
	if st.Acked == 0 || st.Failed > 0 {
		t.Fatalf("the load wrote nothing or failed: %+v", st)
	}
	if err != nil {
		t.Fatalf("migration: %v", err)
	}
	cols := []string{"id", "name", "n"}
	n, got := testenv.Checksum(t, db, cfg.Database, "t", cols, "id")
	_, want := testenv.Checksum(t, db, cfg.Database, "_t_del", cols, "id")
	if got != want {
		t.Errorf("the migrated table (%d rows) differs from the original as of the cut-over", n)
	}
	return db, snapshots
}

// --checksum=false goes from the copy to the cut-over without the checksum phase.
func TestChecksumDisabledSkipsPhase(t *testing.T) {
	t.Parallel() // a database of its own
	logs := &testenv.LogBuffer{}
	db, cfg := checksumSetup(t, "ADD COLUMN c INT NULL", logs)
	cfg.Checksum = false
	var phases []string
	m := newWithSeams(t, cfg, seams{beforeSnapshot: func(context.Context, int) error { return errors.New("the checksum ran") }})
	m.Observe(observe.ObserverFunc(func(c observe.PhaseChange) { phases = append(phases, c.Phase.String()) }))
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("migration: %v", err)
	}
	if got := strings.Join(phases, ","); got != "prepare,copy,cut-over,done" {
		t.Errorf("phases %s, want prepare,copy,cut-over,done", got)
	}
	if logs.Contains("phase: checksum") || testenv.CountRows(t, db, cfg.Database, "t") != 3000 {
		t.Error("the checksum phase was entered, or rows were lost")
	}
}

// A column the checksum cannot compare (INT -> DOUBLE(20,2): no conversion proven exact) is named in
// the run's summary line, not only in a warning at the checksum's start; one it compares is not.
func TestChecksumSummaryNamesColumnsNotCompared(t *testing.T) {
	logs := &testenv.LogBuffer{}
	alter := "MODIFY n DOUBLE(20,2) NOT NULL, MODIFY name VARCHAR(40) NULL"
	db, cfg := checksumSetup(t, alter, logs)
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	if err := mustNew(t, cfg).Run(context.Background()); err != nil {
		t.Fatalf("migration: %v", err)
	}
	want := "Done migrating " + cfg.Database + ".t; NOT compared by the checksum: n (doc/checksum.md)"
	// The type reads int(11) on MariaDB, int on MySQL (no display width).
	if !logs.Contains(want) || !logs.Contains(`"not_checksummed":["n: type changes from int`) || !logs.Contains(` to double(20,2) (no conversion`) {
		t.Errorf("the summary line does not name the column left out (%q):\n%s", want, logs.String())
	}
	assertSameAsServerAlter(t, db, "want", alter)
}

// Issue 23's example, end to end: status 1 -> 0 in two rows of one 10-row chunk of a 1,000-row
// table (--chunk-size=10) just before the checksum. A CRC32 under BIT_XOR cancelled the two
// (0 repaired, exit 0); the checksum now repairs the chunk and the table is the server's ALTER.
func TestChecksumRepairsCompensatingChanges(t *testing.T) {
	logs := &testenv.LogBuffer{}
	db, schema := testenv.OwnTable(t, sameResultDB, "CREATE TABLE t (id INT PRIMARY KEY, status TINYINT NOT NULL, v VARCHAR(20) NOT NULL)",
		"INSERT INTO t SELECT seq, 1, CONCAT('row', seq % 7) FROM seq_1_to_1000",
		"CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	alter := "ADD COLUMN c INT NULL"
	cfg := configtest.Config(t, schema, "t", alter, logs)
	cfg.OkToDropTable = true
	cfg.ChunkSize = 10
	beforeSnapshot := func(ctx context.Context, round int) error {
		if round > 0 {
			return nil
		}
		_, err := db.ExecContext(ctx, "UPDATE _t_gho SET status = 0 WHERE id IN (502, 509)")
		return err
	}
	if err := newWithSeams(t, cfg, seams{beforeSnapshot: beforeSnapshot}).Run(context.Background()); err != nil {
		t.Fatalf("migration: %v", err)
	}
	if !logs.Contains("checksum: 1000 rows compared in 10 ranges, 1 repaired") {
		t.Errorf("the checksum did not repair the chunk:\n%s", logs.String())
	}
	assertSameAsServerAlter(t, db, "want", alter)
}
