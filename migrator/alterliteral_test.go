package migrator

import (
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The ALTER's string literals are text in the client's utf8mb4, as the server's own ALTER sent by
// an application reads them: a JSON path (MySQL refuses a JSON value from a binary string) and a
// non-ASCII default of a latin1 column (read as bytes, it would become two latin1 characters).
func TestAlterLiteralsAreText(t *testing.T) {
	t.Parallel() // a database of its own
	alter := "ADD COLUMN jv INT AS (JSON_VALUE(j, '$.n')) VIRTUAL, ADD COLUMN d VARCHAR(10) CHARACTER SET latin1 NOT NULL DEFAULT 'é'"
	db, cfg, postpone := sameResultSetup(t, "CREATE TABLE t (id INT PRIMARY KEY, j JSON)", alter,
		`INSERT INTO t SELECT seq, JSON_OBJECT(_utf8mb4'n', seq) FROM seq_1_to_200`)
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	done := runToPostponed(t, db, cfg)
	for _, tbl := range []string{"t", "want"} {
		testenv.Exec(t, db, "INSERT INTO "+tbl+" VALUES (1001, _utf8mb4'{\"n\": 7}')", "UPDATE "+tbl+" SET j = _utf8mb4'{\"n\": 5}' WHERE id <= 10")
	}
	finishRun(t, postpone, done)
	assertSameAsServerAlter(t, db, "want", alter)
}

// FLOAT and DOUBLE columns becoming text are written as the server's own ALTER writes them, by the
// copy and by the applier: the ALTER prints CAST(x AS CHAR)'s form, an assignment another one
// (MySQL: a small DOUBLE in fixed notation instead of an exponent; MariaDB: a FLOAT through DOUBLE,
// 0.10000000149011612 instead of 0.1).
func TestFloatToTextAsServerAlter(t *testing.T) {
	t.Parallel() // a database of its own
	alter := "MODIFY f VARCHAR(40) NULL, MODIFY d VARCHAR(40) NULL"
	db, cfg, postpone := sameResultSetup(t, "CREATE TABLE t (id INT PRIMARY KEY, f FLOAT NULL, d DOUBLE NULL)", alter,
		"INSERT INTO t SELECT seq, seq / 10, -seq * 1.5e-10 FROM seq_1_to_300",
		"INSERT INTO t VALUES (1001, 3.4028234e38, 1.7976931348623157e308), (1002, -0.0, 3.1234567e-6), (1003, NULL, NULL)")
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	done := runToPostponed(t, db, cfg)
	for _, tbl := range []string{"t", "want"} {
		testenv.Exec(t, db, "INSERT INTO "+tbl+" VALUES (2001, 0.1, -2.0999999999999998e-9), (2002, 1.5e-7, 123456789012345680000)",
			"UPDATE "+tbl+" SET f = f * 3, d = d / 7 WHERE id <= 30")
	}
	finishRun(t, postpone, done)
	assertSameAsServerAlter(t, db, "want", alter)
}
