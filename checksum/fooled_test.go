package checksum

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// corruptOnce returns a BeforeSnapshot hook that runs stmts on the ghost before the full pass only.
func corruptOnce(stmts ...string) func(context.Context, *sql.DB, int) error {
	return func(ctx context.Context, db *sql.DB, round int) error {
		if round > 0 {
			return nil
		}
		for _, q := range stmts {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
}

// differing counts the rows of t and g (joined by id, both ways) where a column of cols differs,
// exactly: text as bytes, numbers as values (a FLOAT compares as its DOUBLE, every bit).
func differing(t *testing.T, db *sql.DB, cols ...string) int {
	t.Helper()
	conds := make([]string, len(cols))
	for i, c := range cols {
		conds[i] = fmt.Sprintf("NOT (BINARY t.%[1]s <=> BINARY g.%[1]s AND t.%[1]s <=> g.%[1]s)", c)
	}
	var n int
	q := fmt.Sprintf("SELECT (SELECT COUNT(*) FROM t LEFT JOIN g USING (id) WHERE g.id IS NULL OR %[1]s) + (SELECT COUNT(*) FROM g LEFT JOIN t USING (id) WHERE t.id IS NULL)",
		strings.Join(conds, " OR "))
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The structured differences a linear hash (CRC32 under BIT_XOR) or an ambiguous encoding
// (values joined by a separator) or a FLOAT's short text cannot see are each caught and repaired:
// the same change to two rows of one chunk (equal-length rows: CRC32's changes cancel), a
// separator shifted from one value to the next (for '|' and ',', and a NULL moved beside an empty
// string), and one unit in the last place of a FLOAT and a DOUBLE.
func TestChecksumCannotBeFooled(t *testing.T) {
	cases := []struct {
		name    string
		create  string
		fill    string
		corrupt []string
		cols    []string
		chunks  int // chunks repaired (the rows changed are in ranges of their own)
	}{
		{"two compensating changes in one chunk", "CREATE TABLE t (id INT PRIMARY KEY, status TINYINT NOT NULL, v VARCHAR(20) NOT NULL)",
			"INSERT INTO t SELECT seq, 1, CONCAT('row', seq % 7) FROM seq_1_to_1000",
			[]string{"UPDATE g SET status = 0 WHERE id IN (502, 509)"}, []string{"status", "v"}, 1},
		{"shifted separator", "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(20) NULL, b VARCHAR(20) NULL)",
			"INSERT INTO t VALUES (1, 'x|', 'y'), (1001, 'x,', 'y'), (2001, 'x', 'y'), (3001, NULL, ''), (4001, 'x', ',1')",
			[]string{"UPDATE g SET a = 'x', b = '|y' WHERE id = 1", "UPDATE g SET a = 'x', b = ',y' WHERE id = 1001",
				"UPDATE g SET a = 'x,', b = NULL WHERE id = 2001", "UPDATE g SET a = '', b = NULL WHERE id = 3001",
				"UPDATE g SET a = 'x,1', b = '' WHERE id = 4001"}, []string{"a", "b"}, 5},
		{"one ulp", "CREATE TABLE t (id INT PRIMARY KEY, f FLOAT NOT NULL, d DOUBLE NULL)",
			"INSERT INTO t VALUES (1, 1.0000001, 1), (1001, 3.4e38, 1.0000000000000002e0), (2001, 16777216, 0.1e0)",
			[]string{"UPDATE g SET f = 1.0000002 WHERE id = 1", "UPDATE g SET d = 1e0 WHERE id = 1001",
				"UPDATE g SET f = 16777218 WHERE id = 2001"}, []string{"f", "d"}, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := testenv.Table(t, testDB, c.create, c.fill, "CREATE TABLE g LIKE t", "INSERT INTO g SELECT * FROM t")
			cs := newChecksum(t, db, 10, 2, func() int64 { return 1000 }, corruptOnce(c.corrupt...))
			if len(cs.res.Skipped) != 0 {
				t.Fatalf("columns left out: %v", cs.res.Skipped)
			}
			res, err := cs.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Repaired != c.chunks {
				t.Errorf("%d chunks repaired, want %d", res.Repaired, c.chunks)
			}
			if n := differing(t, db, c.cols...); n != 0 {
				t.Errorf("%d rows still differ after the checksum", n)
			}
		})
	}
}

// Every conversion the checksum compares gives exactly what the server's own ALTER ...
// ALGORITHM=COPY stores, for edge values of each source type (no false mismatch, nothing left
// out), and a change to any converted column of the ghost is caught and repaired. Halves
// (2.5, -2.5, 0.5) show the rounding of each type: half to even for DOUBLE and FLOAT, half away
// from zero for DECIMAL.
func TestConversionsMatchAlter(t *testing.T) {
	db := testenv.Table(t, testDB,
		`CREATE TABLE t (id INT PRIMARY KEY, i INT NULL, u BIGINT UNSIGNED NULL, dec1 DECIMAL(12,4) NULL, dec2 DECIMAL(12,4) NULL,
		 da DATE NULL, dt DATETIME(3) NULL, tm TIME(2) NULL, y YEAR NULL, e ENUM('a','b ','c,') NULL, i2 INT NULL,
		 f FLOAT NULL, f2 FLOAT NULL, d DOUBLE NULL, l VARCHAR(20) CHARACTER SET latin1 NULL, s SMALLINT NULL,
		 ft FLOAT NULL, dt2 DOUBLE NULL, id2 INT NULL, bd BIGINT NULL, df DOUBLE NULL, decd DECIMAL(30,10) NULL, ifl INT NULL,
		 di DOUBLE NULL, fs FLOAT NULL, dei DECIMAL(12,3) NULL, du DOUBLE NULL)`,
		`INSERT INTO t VALUES
		 (1, 0, 0, 0, 0, '1000-01-01', '1000-01-01 00:00:00.000', '-838:59:59.00', 1901, 'a', 0, 0, 0, 0, '', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
		 (2, -2147483648, 18446744073709551615, -12.5, 99999999.9999, '9999-12-31', '9999-12-31 23:59:59.999', '838:59:58.99', 2155, 'b ', -2147483648,
		  1.0000001, 3.4e38, 1.0000000000000002e0, 'é ', -32768, 0.1, 0.1e0, 2147483647, 9007199254740993, 0.1e0, 12345678901234567890.0123456789, 16777217, 2.5, 2.5, 2.5, 1.5),
		 (3, 2147483647, 1, 0.0001, -0.0001, '2026-02-28', '2026-02-28 12:34:56.789', '00:00:00.01', 2000, 'c,', 2147483647,
		  0.1, -1.17549435e-38, 1.7976931348623157e308, 'x,y|', 32767, 3.4e38, 1.7976931348623157e308, -2147483648, -9223372036854775808, 3.4028234e38, -0.0000000001, -16777217, -2.5, -2.5, -2.5, 4294967294.5),
		 (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
		 (5, -1, 42, 1, 1, '2024-02-29', '2024-02-29 00:00:00.001', '-00:00:00.01', 1999, 'a', -1, 16777217, 16777216, 0.1e0, 'ü', -1,
		  16777217, 1.2345678901234568e20, 1, 123456789, 1e-40, 99999999999999999999.9999999999, 123456789, 0.5, -0.4, 1.5005, 0.49999999999999994)`,
		"CREATE TABLE g LIKE t", "INSERT INTO g SELECT * FROM t",
		`ALTER TABLE g ALGORITHM=COPY, MODIFY i VARCHAR(20) CHARACTER SET utf8mb4 NULL, MODIFY u CHAR(20) CHARACTER SET latin1 NULL,
		 MODIFY dec1 VARCHAR(30) CHARACTER SET utf8mb4 NULL, MODIFY dec2 DECIMAL(16,6) NULL, MODIFY da TEXT CHARACTER SET utf8mb4 NULL,
		 MODIFY dt VARCHAR(40) CHARACTER SET ascii NULL, MODIFY tm VARCHAR(20) CHARACTER SET utf8mb4 NULL, MODIFY y VARCHAR(4) CHARACTER SET utf8mb4 NULL,
		 MODIFY e VARCHAR(10) CHARACTER SET utf8mb4 NULL, MODIFY i2 DECIMAL(14,2) NULL, MODIFY f DOUBLE NULL,
		 MODIFY l CHAR(20) CHARACTER SET utf8mb4 NULL, MODIFY s BIGINT NULL,
		 MODIFY ft VARCHAR(40) CHARACTER SET utf8mb4 NULL, MODIFY dt2 VARCHAR(40) CHARACTER SET latin1 NULL, MODIFY id2 DOUBLE NULL,
		 MODIFY bd DOUBLE NULL, MODIFY df FLOAT NULL, MODIFY decd DOUBLE NULL, MODIFY ifl FLOAT NULL,
		 MODIFY di INT NULL, MODIFY fs SMALLINT NULL, MODIFY dei INT NULL, MODIFY du INT UNSIGNED NULL`)
	cols := []string{"i", "u", "dec1", "dec2", "da", "dt", "tm", "y", "e", "i2", "f", "f2", "d", "l", "s", "ft", "dt2", "id2", "bd", "df", "decd", "ifl", "di", "fs", "dei", "du"}
	corrupt := ""
	cs := newChecksum(t, db, 1, 2, func() int64 { return 5 }, func(ctx context.Context, db *sql.DB, round int) error {
		if round > 0 || corrupt == "" {
			return nil
		}
		_, err := db.ExecContext(ctx, corrupt)
		return err
	})
	if len(cs.res.Skipped) != 0 {
		t.Fatalf("columns left out: %v", cs.res.Skipped)
	}
	for i, p := range cs.cfg.Pairs {
		if p.Original == "ft" {
			// INSERT ... SELECT of a FLOAT into a VARCHAR goes through DOUBLE (3.4e38 becomes
			// 3.3999999521443642e38), the ALTER does not: a copy must convert it explicitly.
			cs.cfg.Pairs[i].Select = "CONVERT(ft USING utf8mb4)"
		}
	}
	ctx := context.Background()
	res, err := cs.Run(ctx)
	if err != nil || res.Repaired != 0 || res.Rows != 5 {
		t.Fatalf("the server's ALTER of the same rows: %+v, %v; want 5 rows, none repaired", res, err)
	}
	for _, col := range cols {
		// Row 3 holds a value in every column; the ghost's value is replaced by row 2's.
		corrupt = fmt.Sprintf("UPDATE g SET %[1]s = (SELECT %[1]s FROM (SELECT %[1]s FROM g WHERE id = 2) x) WHERE id = 3", col)
		before := res.Repaired // a Result counts over every Run of one Checksum
		res, err = cs.Run(ctx)
		if err != nil || res.Repaired != before+1 {
			t.Errorf("%s changed in the ghost: %+v, %v; want it repaired", col, res, err)
		}
	}
	corrupt = ""
	before := res.Repaired
	if res, err := cs.Run(ctx); err != nil || res.Repaired != before {
		t.Errorf("after the repairs: %+v, %v; want the ghost equal to the ALTER's result", res, err)
	}
}

// A converted DOUBLE is compared to every bit on each flavor. MySQL writes a DOUBLE expression in at
// most 22 characters (-1.175494350822288e-38 for the FLOAT -1.17549435e-38 read as a DOUBLE, whose
// column text is -1.1754943508222875e-38): a ghost value one unit in the last place away read alike
// there. Each row's ghost value, one ulp off what the server's ALTER stores, is caught and repaired.
func TestChecksumConvertedDoubleEveryBit(t *testing.T) {
	alter := "ALTER TABLE %s MODIFY f DOUBLE NULL, MODIFY v DOUBLE NULL"
	db := testenv.Table(t, testDB, "CREATE TABLE t (id INT PRIMARY KEY, f FLOAT NULL, v VARCHAR(30) NULL)",
		"INSERT INTO t VALUES (1, -1.17549435e-38, '1'), (1001, 1, '-1.2345678901234567e-100')",
		"CREATE TABLE g LIKE t", "INSERT INTO g SELECT * FROM t", fmt.Sprintf(alter, "g"),
		"CREATE TABLE w LIKE t", "INSERT INTO w SELECT * FROM t", fmt.Sprintf(alter, "w"))
	cs := newChecksum(t, db, 10, 2, func() int64 { return 1000 }, corruptOnce(
		"UPDATE g SET f = -1.1754943508222878e-38 WHERE id = 1", "UPDATE g SET v = -1.234567890123457e-100 WHERE id = 1001"))
	if len(cs.res.Skipped) != 0 {
		t.Fatalf("columns left out: %v", cs.res.Skipped)
	}
	res, err := cs.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Repaired != 2 {
		t.Errorf("%d chunks repaired, want 2", res.Repaired)
	}
	var differ int
	if err := db.QueryRow("SELECT COUNT(*) FROM g JOIN w USING (id) WHERE NOT (g.f <=> w.f AND g.v <=> w.v)").Scan(&differ); err != nil {
		t.Fatal(err)
	}
	if differ != 0 {
		t.Errorf("%d rows differ from the server's ALTER after the checksum", differ)
	}
}
