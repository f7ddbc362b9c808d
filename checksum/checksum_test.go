package checksum

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/copier"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const testDB = "gl_checksum"

// bigSetup creates t (20,000 rows) and g, what an ALTER that widens every column makes of it,
// and a checksum of the two in chunks of 100 rows, ranges of 1,000, two sessions.
func bigSetup(t *testing.T, hook func(ctx context.Context, db *sql.DB, round int) error) (*sql.DB, *Checksum) {
	t.Helper()
	db := testenv.Table(t, testDB,
		"CREATE TABLE t (id INT PRIMARY KEY, amount DECIMAL(10,2) NOT NULL, created DATETIME NOT NULL, name VARCHAR(20) NULL, n INT NOT NULL)",
		`INSERT INTO t SELECT seq, seq / 7, '2026-01-01' + INTERVAL seq MINUTE, IF(seq % 11 = 0, NULL, CONCAT('n', seq)), seq * 3
		 FROM seq_1_to_20000`,
		"CREATE TABLE g LIKE t",
		"ALTER TABLE g MODIFY amount DECIMAL(14,4) NOT NULL, MODIFY created DATETIME(3) NOT NULL, MODIFY n BIGINT NOT NULL, MODIFY name VARCHAR(40) CHARACTER SET utf8mb4 NULL",
		"INSERT INTO g SELECT * FROM t",
		"CREATE TABLE want LIKE g", "INSERT INTO want SELECT * FROM t")
	ctx := context.Background()
	orig, err := table.Inspect(ctx, db, testDB, "t")
	if err != nil {
		t.Fatal(err)
	}
	ghost, err := table.Inspect(ctx, db, testDB, "g")
	if err != nil {
		t.Fatal(err)
	}
	key, _ := orig.Key("PRIMARY")
	var pairs []Pair
	for _, c := range orig.Columns {
		pairs = append(pairs, Pair{Original: c.Name, Ghost: c.Name, Select: table.QuoteIdent(c.Name)})
	}
	cs, err := New(Config{
		Primary: testenv.PrimaryConfig(), Original: orig, Ghost: ghost, GhostTable: "g", OriginalKey: *key, Pairs: pairs,
		ChunkSize: func() int { return 100 }, RangeChunks: 10, Sessions: 2,
		LockTimeout: 3 * time.Second, CatchUpTimeout: 10 * time.Second,
		CatchUp: copier.CatchUpFunc(func(context.Context) error { return nil }),
		Logger:  testenv.Logger(t, nil),
		Test: TestHooks{BeforeSnapshot: func(ctx context.Context, round int) error {
			return hook(ctx, db, round)
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return db, cs
}

// Ghost rows changed, deleted and added (below the smallest and above the largest key) inside
// ranges of ten chunks, compared by two sessions, are narrowed down to their chunks and repaired;
// nothing else is: the conversions compare exactly.
func TestChecksumNarrowsRangesToChunks(t *testing.T) {
	snapshots := 0
	db, cs := bigSetup(t, func(ctx context.Context, db *sql.DB, round int) error {
		snapshots++
		if round > 0 {
			return nil
		}
		for _, q := range []string{
			"UPDATE g SET amount = amount + 0.0001 WHERE id = 4321",
			"UPDATE g SET name = '' WHERE id = 9999", // was NULL
			"DELETE FROM g WHERE id = 17777",
			"INSERT INTO g VALUES (0, 1, '2026-01-01', NULL, 1)",
			"INSERT INTO g VALUES (30000, 1, '2026-01-01', NULL, 1)",
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	res, err := cs.Run(context.Background())
	if err != nil {
		t.Fatalf("checksum: %v", err)
	}
	if res.Rows != 20000 || res.Ranges != 20 || res.Repaired != 5 || snapshots != 2 {
		t.Errorf("%+v after %d snapshots, want 20000 rows in 20 ranges, 5 chunks repaired, 2 snapshots", res, snapshots)
	}
	cols := []string{"id", "amount", "created", "name", "n"}
	_, got := testenv.Checksum(t, db, testDB, "g", cols, "id")
	_, want := testenv.Checksum(t, db, testDB, "want", cols, "id")
	if got != want {
		t.Error("the repaired ghost differs from what the ALTER makes of the original")
	}
}

// A row corrupted again after every repair fails the checksum naming its chunk of 100 rows, not
// the range of 1,000 that was compared at first.
func TestChecksumNamesTheChunk(t *testing.T) {
	_, cs := bigSetup(t, func(ctx context.Context, db *sql.DB, _ int) error {
		_, err := db.ExecContext(ctx, "UPDATE g SET n = n + 1 WHERE id = 12345")
		return err
	})
	_, err := cs.Run(context.Background())
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "key ranges ((12300) .. (12400)] ") {
		t.Errorf("the error does not name the chunk: %v", err)
	}
}
