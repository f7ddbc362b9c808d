package checksum

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/copier"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const testDB = "gl_checksum"

// bigSetup creates t (20,000 rows) and g, what an ALTER that widens every column makes of it,
// and a checksum of the two in chunks of 100 rows, ranges of 1,000, two sessions; rows is the
// estimate of t's rows (nil: none, the key is walked).
func bigSetup(t *testing.T, rows func() int64, hook func(ctx context.Context, db *sql.DB, round int) error) (*sql.DB, *Checksum) {
	t.Helper()
	db := testenv.Table(t, testDB,
		"CREATE TABLE t (id INT PRIMARY KEY, amount DECIMAL(10,2) NOT NULL, created DATETIME NOT NULL, name VARCHAR(20) NULL, n INT NOT NULL)",
		`INSERT INTO t SELECT seq, seq / 7, '2026-01-01' + INTERVAL seq MINUTE, IF(seq % 11 = 0, NULL, CONCAT('n', seq)), seq * 3
		 FROM seq_1_to_20000`,
		"CREATE TABLE g LIKE t",
		"ALTER TABLE g MODIFY amount DECIMAL(14,4) NOT NULL, MODIFY created DATETIME(3) NOT NULL, MODIFY n BIGINT NOT NULL, MODIFY name VARCHAR(40) CHARACTER SET utf8mb4 NULL",
		"INSERT INTO g SELECT * FROM t",
		"CREATE TABLE want LIKE g", "INSERT INTO want SELECT * FROM t")
	return db, newChecksum(t, db, 100, 2, rows, hook)
}

// newChecksum is a checksum of t and g in db in chunks of chunk rows (ranges of ten), sessions
// sessions, rows the estimate of t's rows (nil: none), hook run before each snapshot.
func newChecksum(t *testing.T, db *sql.DB, chunk, sessions int, rows func() int64, hook func(ctx context.Context, db *sql.DB, round int) error) *Checksum {
	t.Helper()
	cs, err := New(checksumConfig(t, db, chunk, sessions, rows, hook))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// checksumConfig is newChecksum's configuration.
func checksumConfig(t *testing.T, db *sql.DB, chunk, sessions int, rows func() int64, hook func(ctx context.Context, db *sql.DB, round int) error) Config {
	t.Helper()
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
	return Config{
		Primary: testenv.PrimaryConfig(), Flavor: testenv.Flavor(t), Original: orig, Ghost: ghost, GhostTable: "g", OriginalKey: *key, Pairs: pairs,
		ChunkSize: func() int { return chunk }, Rows: rows, RangeChunks: 10, Sessions: sessions,
		LockTimeout: 3 * time.Second, CatchUpTimeout: 10 * time.Second,
		CatchUp: copier.CatchUpFunc(func(context.Context) error { return nil }),
		Logger:  testenv.Logger(t, nil),
		Test: TestHooks{BeforeSnapshot: func(ctx context.Context, round int) error {
			return hook(ctx, db, round)
		}},
	}
}

// Ghost rows changed, deleted and added (below the smallest and above the largest key) inside
// ranges of ten chunks, compared by two sessions, are narrowed down to their chunks and repaired;
// nothing else is: the conversions compare exactly. The same with the ranges walked and cut by
// key values from a row estimate (too high: no more rows than key values; right; too low: bigger
// ranges, the same result).
func TestChecksumNarrowsRangesToChunks(t *testing.T) {
	for _, estimate := range []int64{0, 40000, 20000, 5000} {
		t.Run(fmt.Sprint(estimate), func(t *testing.T) {
			rows := func() int64 { return estimate }
			if estimate == 0 {
				rows = nil
			}
			narrowsToChunks(t, rows, map[int64]int64{0: 20, 40000: 20, 20000: 20, 5000: 5}[estimate])
		})
	}
}

func narrowsToChunks(t *testing.T, rows func() int64, ranges int64) {
	snapshots := 0
	db, cs := bigSetup(t, rows, func(ctx context.Context, db *sql.DB, round int) error {
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
	if res.Rows != 20000 || res.Ranges != ranges || res.Repaired != 5 || snapshots != 2 {
		t.Errorf("%+v after %d snapshots, want 20000 rows in %d ranges, 5 chunks repaired, 2 snapshots", res, snapshots, ranges)
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
	_, cs := bigSetup(t, func() int64 { return 20000 }, func(ctx context.Context, db *sql.DB, _ int) error {
		_, err := db.ExecContext(ctx, "UPDATE g SET n = n + 1 WHERE id = 12345")
		return err
	})
	_, err := cs.Run(context.Background())
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "key ranges ((12300) .. (12400)] ") {
		t.Errorf("the error does not name the chunk: %v", err)
	}
}

// Text of several character sets and collations, byte strings, a character set converted by the
// ALTER and values beyond ASCII compare equal where the ghost holds what the ALTER makes of the
// original (no "illegal mix of collations" from hashing text uncast), and a changed byte in a
// column hashed without a cast is still found.
func TestChecksumMixedCharsets(t *testing.T) {
	db := testenv.Table(t, testDB,
		`CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL,
		 b TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL, c VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL,
		 d VARCHAR(20) CHARACTER SET latin1 NULL, e VARBINARY(20) NULL, f CHAR(10) CHARACTER SET ucs2 NULL, n DECIMAL(8,2) NULL)`,
		`INSERT INTO t SELECT seq, CONCAT('á', seq), IF(seq % 5 = 0, NULL, CONCAT('ü', seq, ' ')), CONCAT('ß', seq), CONCAT('é', seq),
		 UNHEX(HEX(seq * 7919)), CONCAT('ж', seq), seq / 3 FROM seq_1_to_3000`,
		"CREATE TABLE g LIKE t",
		"ALTER TABLE g MODIFY d VARCHAR(30) CHARACTER SET utf8mb4 NULL, MODIFY c VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL, ADD x INT NOT NULL DEFAULT 0",
		"INSERT INTO g (id, a, b, c, d, e, f, n) SELECT * FROM t")
	corrupt := ""
	cs := newChecksum(t, db, 100, 2, nil, func(ctx context.Context, db *sql.DB, _ int) error {
		if corrupt == "" {
			return nil
		}
		_, err := db.ExecContext(ctx, corrupt)
		return err
	})
	ctx := context.Background()
	if len(cs.res.Skipped) != 0 {
		t.Errorf("columns left out: %v", cs.res.Skipped)
	}
	res, err := cs.Run(ctx)
	if err != nil || res.Repaired != 0 || res.Rows != 3000 {
		t.Fatalf("equal tables: %+v, %v; want 3000 rows, no repair", res, err)
	}
	for _, q := range []string{"UPDATE g SET a = 'Á1' WHERE id = 1", "UPDATE g SET b = 'ü10' WHERE id = 10", "UPDATE g SET e = NULL WHERE id = 2000"} {
		corrupt = q
		if _, err := cs.Run(ctx); !errors.Is(err, ErrMismatch) {
			t.Errorf("after %s: %v, want a mismatch", q, err)
		}
	}
}

// Key values cut the ranges of sparse, negative and unsigned keys up to the type's largest: every
// differing row is found and repaired, whichever range it falls in.
func TestChecksumCutsKeysByValue(t *testing.T) {
	for _, c := range []struct{ name, create, fill, min, max, mid string }{
		{"sparse signed", "CREATE TABLE t (id BIGINT PRIMARY KEY, v INT NOT NULL)",
			"INSERT INTO t SELECT CAST(seq AS SIGNED) * 13 - 60000, seq FROM seq_1_to_9000", "-59987", "57000", "-5"},
		{"largest unsigned", "CREATE TABLE t (id BIGINT UNSIGNED PRIMARY KEY, v INT NOT NULL)",
			"INSERT INTO t SELECT 18446744073709551615 - seq * 1000, seq FROM seq_0_to_8999", "18446744073700552615", "18446744073709551615", "18446744073705551615"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := testenv.Table(t, testDB, c.create, c.fill, "CREATE TABLE g LIKE t", "INSERT INTO g SELECT * FROM t",
				"CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
			cs := newChecksum(t, db, 100, 3, func() int64 { return 9000 }, func(ctx context.Context, db *sql.DB, round int) error {
				if round > 0 {
					return nil
				}
				for _, q := range []string{"UPDATE g SET v = v + 1 WHERE id IN (" + c.min + ", " + c.max + ")",
					"DELETE FROM g WHERE id = " + c.mid, "UPDATE g SET id = id - 1 WHERE id = " + c.max} {
					if _, err := db.ExecContext(ctx, q); err != nil {
						return err
					}
				}
				return nil
			})
			res, err := cs.Run(context.Background())
			if err != nil || res.Rows != 9000 || res.Ranges != 9 || res.Repaired != 3 {
				t.Fatalf("%+v, %v; want 9000 rows in 9 ranges, 3 chunks repaired", res, err)
			}
			_, got := testenv.Checksum(t, db, testDB, "g", []string{"id", "v"}, "id")
			_, want := testenv.Checksum(t, db, testDB, "want", []string{"id", "v"}, "id")
			if got != want {
				t.Error("the repaired ghost differs from the original")
			}
		})
	}
}
