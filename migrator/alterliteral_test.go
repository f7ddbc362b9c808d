package migrator

import (
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The ALTER's string literals are text in the client's utf8mb4, as the server's own ALTER sent by
// an application reads them: a JSON path (MySQL refuses a JSON value from a binary string) and a
// non-ASCII default of a latin1 column (read as bytes, it would become two latin1 characters).
func TestAlterLiteralsAreText(t *testing.T) {
	alter := "ADD COLUMN jv INT AS (JSON_VALUE(j, '$.n')) VIRTUAL, ADD COLUMN d VARCHAR(10) CHARACTER SET latin1 NOT NULL DEFAULT 'é'"
	db, cfg, postpone := sameResultSetup(t, 77392, "CREATE TABLE t (id INT PRIMARY KEY, j JSON)", alter,
		`INSERT INTO t SELECT seq, JSON_OBJECT(_utf8mb4'n', seq) FROM seq_1_to_200`)
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	done := runToPostponed(t, db, cfg)
	for _, tbl := range []string{"t", "want"} {
		testenv.Exec(t, db, "INSERT INTO "+tbl+" VALUES (1001, _utf8mb4'{\"n\": 7}')", "UPDATE "+tbl+" SET j = _utf8mb4'{\"n\": 5}' WHERE id <= 10")
	}
	finishRun(t, postpone, done)
	assertSameAsServerAlter(t, db, "want", alter)
}
