package checksum

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// keyChangeSetup creates t, a utf8mb3_general_ci key k and 1,002 rows, and g, what CONVERT TO
// CHARACTER SET utf8mb4 makes of it (the server's default utf8mb4 collation: a UCA one that
// equates 'ss' and 'ß' on MySQL and MariaDB 11.8).
func keyChangeSetup(t *testing.T) *sql.DB {
	t.Helper()
	return testenv.Table(t, testDB,
		"CREATE TABLE t (k VARCHAR(20) CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci NOT NULL PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO t SELECT CONCAT('k', seq), seq FROM seq_1_to_1000",
		"INSERT INTO t VALUES ('ss', 1), ('ä', 2)",
		"CREATE TABLE g LIKE t", "ALTER TABLE g CONVERT TO CHARACTER SET utf8mb4", "INSERT INTO g SELECT * FROM t")
}

// keyChangeDiffers counts the rows of t and g that have no row of the same key bytes and value
// in the other table.
func keyChangeDiffers(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	q := `SELECT (SELECT COUNT(*) FROM t WHERE NOT EXISTS (SELECT 1 FROM g WHERE CAST(g.k AS BINARY) = CAST(CONVERT(t.k USING utf8mb4) AS BINARY) AND g.v = t.v))
		+ (SELECT COUNT(*) FROM g WHERE NOT EXISTS (SELECT 1 FROM t WHERE CAST(g.k AS BINARY) = CAST(CONVERT(t.k USING utf8mb4) AS BINARY) AND g.v = t.v))`
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A shared key whose character set and collation change is compared as one range, the whole
// table: equal tables pass; a ghost row changed, one deleted, one added and a key whose bytes
// changed within the new collation's equality ('k1' to 'K1') are found, and the ghost is
// repaired whole to the original's rows, key bytes included.
func TestChecksumKeyChangeWholeTable(t *testing.T) {
	db := keyChangeSetup(t)
	var corrupt []string
	snapshots := 0
	cs := newChecksum(t, db, 10, 2, func() int64 { return 1002 }, func(ctx context.Context, db *sql.DB, round int) error {
		snapshots++
		if round > 0 {
			return nil
		}
		for _, q := range corrupt {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if cs.whole == "" || len(cs.res.Skipped) != 0 {
		t.Fatalf("the key change is not compared as one range (%q), or columns are left out: %v", cs.whole, cs.res.Skipped)
	}
	ctx := context.Background()
	res, err := cs.Run(ctx)
	if err != nil || res.Rows != 1002 || res.Ranges != 1 || res.Repaired != 0 {
		t.Fatalf("equal tables: %+v, %v; want 1002 rows in 1 range, none repaired", res, err)
	}
	corrupt = []string{"UPDATE g SET v = v + 1 WHERE k = 'ss'", "DELETE FROM g WHERE k = 'k500'",
		"INSERT INTO g VALUES ('extra', 3)", "UPDATE g SET k = 'K1' WHERE k = 'k1'"}
	snapshots = 0
	res, err = cs.Run(ctx)
	if err != nil || res.Repaired != 1 || snapshots != 2 {
		t.Fatalf("corrupted ghost: %+v, %v after %d snapshots; want the whole table repaired once, 2 snapshots", res, err, snapshots)
	}
	if n := keyChangeDiffers(t, db); n != 0 {
		t.Errorf("%d rows still differ after the repair", n)
	}
}

// A ghost row corrupted after every repair fails the checksum, naming the whole table.
func TestChecksumKeyChangePersistent(t *testing.T) {
	db := keyChangeSetup(t)
	cs := newChecksum(t, db, 10, 2, nil, func(ctx context.Context, db *sql.DB, _ int) error {
		_, err := db.ExecContext(ctx, "UPDATE g SET v = v + 1 WHERE k = 'k7'")
		return err
	})
	_, err := cs.Run(context.Background())
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "repairs of the whole table") || !strings.Contains(err.Error(), "untouched") {
		t.Errorf("the error does not name the whole table: %v", err)
	}
}

// Two rows of the original whose keys are distinct there ('ss' and 'ß' under utf8mb3_general_ci)
// and equal in the ghost's collation (a UCA one) make the repair fail with the duplicate, as the
// server's ALTER fails; nothing is repaired wrongly.
func TestChecksumKeyChangeCollision(t *testing.T) {
	coll := "utf8mb4_0900_ai_ci"
	if testenv.Flavor(t).MariaDB {
		coll = "utf8mb4_unicode_ci"
	}
	db := keyChangeSetup(t)
	testenv.Exec(t, db, "INSERT INTO t VALUES ('ß', 3)", "ALTER TABLE g MODIFY k VARCHAR(20) CHARACTER SET utf8mb4 COLLATE "+coll+" NOT NULL")
	cs := newChecksum(t, db, 10, 2, nil, func(context.Context, *sql.DB, int) error { return nil })
	_, err := cs.Run(context.Background())
	t.Logf("the checksum failed: %v", err)
	if err == nil || !strings.Contains(err.Error(), "Duplicate entry") || !strings.Contains(err.Error(), "untouched") {
		t.Errorf("want a duplicate key naming the untouched original: %v", err)
	}
	if n := keyChangeDiffers(t, db); n != 1 {
		t.Errorf("%d rows differ, want 1 ('ß', never written): the failed repair must leave the ghost as it was", n)
	}
}

// A changing key column the checksum cannot compare exactly (DATE to YEAR: no proven conversion)
// keeps the checksum from running: ErrKeyChanges, naming why.
func TestChecksumKeyChangeNotCompared(t *testing.T) {
	db := testenv.Table(t, testDB, "CREATE TABLE t (k DATE NOT NULL PRIMARY KEY, v INT NOT NULL)",
		"CREATE TABLE g (k YEAR NOT NULL PRIMARY KEY, v INT NOT NULL)")
	_, err := New(checksumConfig(t, db, 10, 2, nil, func(context.Context, *sql.DB, int) error { return nil }))
	if !errors.Is(err, ErrKeyChanges) || !strings.Contains(err.Error(), "not compared exactly") {
		t.Errorf("want ErrKeyChanges naming the key column not compared: %v", err)
	}
}

// A string key only made longer, of the same type, character set and collation, keeps its values
// and their order: it is compared in ranges, not as one range. Needs no server.
func TestWidenedStringKeyKeepsRanges(t *testing.T) {
	col := func(dataType, charset, collation string, octets int64) *table.Column {
		return &table.Column{DataType: dataType, Charset: charset, Collation: collation, OctetLength: octets}
	}
	for _, c := range []struct {
		o, g *table.Column
		want bool
	}{
		{col("varchar", "utf8mb4", "utf8mb4_bin", 80), col("varchar", "utf8mb4", "utf8mb4_bin", 160), true},
		{col("char", "latin1", "latin1_swedish_ci", 10), col("char", "latin1", "latin1_swedish_ci", 20), true},
		{col("varbinary", "", "", 10), col("varbinary", "", "", 20), true},
		{col("varchar", "utf8mb4", "utf8mb4_bin", 160), col("varchar", "utf8mb4", "utf8mb4_bin", 80), false},              // narrowed
		{col("varchar", "utf8mb3", "utf8mb3_general_ci", 60), col("varchar", "utf8mb4", "utf8mb4_general_ci", 80), false}, // charset
		{col("varchar", "utf8mb4", "utf8mb4_bin", 80), col("varchar", "utf8mb4", "utf8mb4_0900_ai_ci", 80), false},        // collation
		{col("char", "latin1", "latin1_swedish_ci", 10), col("varchar", "latin1", "latin1_swedish_ci", 10), false},        // type
		{col("binary", "", "", 4), col("binary", "", "", 8), false},                                                       // padded to its length
	} {
		if got := widenedString(c.o, c.g); got != c.want {
			t.Errorf("%s(%d) %s -> %s(%d) %s: %v, want %v", c.o.DataType, c.o.OctetLength, c.o.Collation, c.g.DataType, c.g.OctetLength, c.g.Collation, got, c.want)
		}
	}
}
