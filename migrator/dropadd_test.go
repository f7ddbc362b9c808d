package migrator

import (
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// DROP COLUMN c, ADD COLUMN c ... in one ALTER makes a new column that gets its default, in the
// rows copied and in the rows applied from the binlog: the old values are not carried over by name.
func TestDropAndAddColumnGetsDefault(t *testing.T) {
	t.Parallel() // a database of its own
	alter := "DROP COLUMN c, ADD COLUMN c INT NOT NULL DEFAULT 7"
	db, cfg, postpone := sameResultSetup(t, "CREATE TABLE t (id INT PRIMARY KEY, c INT, v INT)", alter,
		"INSERT INTO t SELECT seq, seq * 10, seq FROM seq_1_to_500")
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	done := runToPostponed(t, db, cfg)
	for _, tbl := range []string{"t", "want"} {
		testenv.Exec(t, db, "INSERT INTO "+tbl+" VALUES (1001, 99, 1)", "UPDATE "+tbl+" SET c = c + 1, v = v + 1 WHERE id <= 20")
	}
	finishRun(t, postpone, done)
	assertSameAsServerAlter(t, db, "want", alter)
}
