package migrator

import (
	"context"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// MySQL's table features the copy and the applier must carry: invisible columns (SELECT * leaves
// them out), a functional index, and a server with sql_require_primary_key=ON (every helper table
// the run creates must have a primary key). The migrated table is what the server's own ALTER
// makes of the same rows, invisible values included.
func TestMySQLInvisibleColumnsUnderRequiredPrimaryKey(t *testing.T) {
	testenv.OnlyMySQL(t, "invisible columns, functional indexes and sql_require_primary_key are MySQL's")
	alter := "ADD COLUMN c INT NULL DEFAULT 3 INVISIBLE, ADD KEY kh (h)"
	db, cfg, postpone := sameResultSetup(t,
		"CREATE TABLE t (id INT PRIMARY KEY, h INT INVISIBLE DEFAULT 5, v INT, KEY kf ((v + 1)))", alter,
		"INSERT INTO t (id, h, v) SELECT seq, seq * 2, seq FROM seq_1_to_500")
	testenv.SetGlobal(t, db, "sql_require_primary_key", "ON")
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want (id, h, v) SELECT id, h, v FROM t")
	done := runToPostponed(t, db, cfg)
	for _, tbl := range []string{"t", "want"} {
		testenv.Exec(t, db, "INSERT INTO "+tbl+" (id, h, v) VALUES (1001, 77, 1)", "INSERT INTO "+tbl+" (id, v) VALUES (1002, 2)",
			"UPDATE "+tbl+" SET h = h + 1, v = v + 1 WHERE id <= 20", "DELETE FROM "+tbl+" WHERE id BETWEEN 30 AND 40")
	}
	finishRun(t, postpone, done)
	assertSameAsServerAlter(t, db, "want", alter)
}

// --cut-over=atomic is refused on MySQL before anything is created (a dead lock holder may let
// queued writes run there before the rename: issue 29), in one line naming the safe choice, and
// accepted on MariaDB.
func TestAtomicCutOverRefusedOnMySQL(t *testing.T) {
	const schema = "gl_atomic_mysql"
	db := testenv.Database(t, schema)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t VALUES (1, 1), (2, 2)")
	before := captureState(t, db)
	cfg := testConfig(t, schema, "t", "ADD COLUMN c INT NULL", nil)
	live(&cfg)
	cfg.CutOver = config.CutOverAtomic
	err := mustNew(t, cfg).Run(context.Background())
	if testenv.Flavor(t).MariaDB {
		if err != nil {
			t.Fatalf("atomic on MariaDB: %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), "--cut-over=atomic is not safe on MySQL") || !strings.Contains(err.Error(), "--cut-over=three-step") ||
		strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v, want one line refusing atomic on MySQL and naming three-step", err)
	}
	assertUnchanged(t, db, before, "t")
}

// A primary key over a STORED generated column (as the server's ALTER and gh-ost migrate it): the
// ghost computes the same key from the columns the copy and the applier write, and rows written
// during the run, key changes included, are addressed by the value the row images carry. The
// result is the server's own ALTER's. (Refused on MariaDB, whose images may leave the column out.)
func TestMySQLGeneratedColumnInThePrimaryKey(t *testing.T) {
	testenv.OnlyMySQL(t, "MariaDB 11.8 leaves generated columns out of row images: such a key cannot address rows there")
	alter := "ADD COLUMN c INT NOT NULL DEFAULT 5, ADD KEY kv (v)"
	db, cfg, postpone := sameResultSetup(t,
		"CREATE TABLE t (a INT NOT NULL, b INT NOT NULL, g INT AS (a * 10 + b) STORED NOT NULL, v VARCHAR(20), PRIMARY KEY (g))", alter,
		"INSERT INTO t (a, b, v) SELECT seq, seq % 10, CONCAT('v', seq) FROM seq_1_to_3000")
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want (a, b, v) SELECT a, b, v FROM t")
	done := runToPostponed(t, db, cfg)
	for _, tbl := range []string{"t", "want"} {
		testenv.Exec(t, db, "INSERT INTO "+tbl+" (a, b, v) VALUES (5000, 1, 'new')",
			"UPDATE "+tbl+" SET v = CONCAT(v, '+') WHERE g < 300",
			"UPDATE "+tbl+" SET a = a + 10000 WHERE g BETWEEN 400 AND 450", // the key moves
			"DELETE FROM "+tbl+" WHERE g BETWEEN 600 AND 700")
	}
	finishRun(t, postpone, done)
	assertSameAsServerAlter(t, db, "want", alter)
}
