package migrator

import (
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The migrated table continues the original's AUTO_INCREMENT counter, as the server's own ALTER
// does: ids of rows deleted at the top (before the copy, and during the migration through the
// applied binlog) are never handed out again.
func TestAutoIncrementCounterCarriedAtCutOver(t *testing.T) {
	t.Parallel() // a database of its own
	alter := "ADD COLUMN extra INT NOT NULL DEFAULT 0"
	db, cfg, postpone := sameResultSetup(t, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)", alter,
		"INSERT INTO t (v) SELECT seq FROM seq_1_to_500", "DELETE FROM t WHERE id > 400")
	cfg.OkToDropTable = false
	done := runToPostponed(t, db, cfg)
	testenv.Exec(t, db, "UPDATE t SET v = -v WHERE id > 390", "DELETE FROM t WHERE id > 395")
	finishRun(t, postpone, done)

	// The oracle: the server's own ALTER of the original as of the cut-over.
	conn := serverSession(t, db)
	if _, err := conn.ExecContext(t.Context(), "ALTER TABLE _t_del "+alter+", ALGORITHM=COPY"); err != nil {
		t.Fatalf("the server's own ALTER: %v", err)
	}
	assertSameDefinition(t, db, "t", "_t_del")
	testenv.Exec(t, db, "INSERT INTO t (v) VALUES (9)", "INSERT INTO _t_del (v) VALUES (9)")
	var got, want int64
	if err := db.QueryRow("SELECT MAX(id) FROM t").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT MAX(id) FROM _t_del").Scan(&want); err != nil {
		t.Fatal(err)
	}
	if got != want || got <= 500 {
		t.Errorf("next id after the migration is %d, the server's ALTER gives %d (ids up to 500 were handed out)", got, want)
	}
	assertSameRows(t, db, "t", "_t_del")
}

// An AUTO_INCREMENT column the copy would number is refused before anything is copied (one line,
// the original untouched, no helper table left); a column made AUTO_INCREMENT that keeps every
// value migrates to what the server's own ALTER gives.
func TestNewAutoIncrementColumn(t *testing.T) {
	t.Parallel() // a database of its own
	create := "CREATE TABLE t (id INT PRIMARY KEY, c INT NOT NULL, v INT)"
	fill := "INSERT INTO t SELECT seq, seq * 2, seq FROM seq_1_to_300"
	refused := map[string]struct{ alter, setup, want string }{
		"added":        {"ADD COLUMN s INT NOT NULL AUTO_INCREMENT, ADD UNIQUE KEY (s)", "", "adds the AUTO_INCREMENT column `s`"},
		"zero to fill": {"MODIFY c INT NOT NULL AUTO_INCREMENT, ADD UNIQUE KEY (c)", "UPDATE t SET c = 0 WHERE id = 7", "rows hold NULL or 0 in it"},
	}
	for name, tc := range refused {
		t.Run(name, func(t *testing.T) {
			inserts := []string{fill}
			if tc.setup != "" {
				inserts = append(inserts, tc.setup)
			}
			db, cfg, _ := sameResultSetup(t, create, tc.alter, inserts...)
			before := testenv.RowsText(t, db, cfg.Database, "t", "1")
			err := testenv.WaitResult(t, runMigration(t, cfg), 60*time.Second)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("migration: %v, want one line with %q", err, tc.want)
			}
			if left := testenv.TableNames(t, db, cfg.Database, "_t_"); len(left) != 0 {
				t.Errorf("helper tables left: %v", left)
			}
			if after := testenv.RowsText(t, db, cfg.Database, "t", "1"); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Error("the original table changed")
			}
		})
	}
	t.Run("kept values", func(t *testing.T) {
		alter := "MODIFY c INT NOT NULL AUTO_INCREMENT, ADD UNIQUE KEY (c)"
		db, cfg, postpone := sameResultSetup(t, create, alter, fill)
		cfg.OkToDropTable = false
		finishRun(t, postpone, runToPostponed(t, db, cfg))
		testenv.Exec(t, db, "CREATE TABLE oracle LIKE _t_del", "INSERT INTO oracle SELECT * FROM _t_del")
		assertSameAsServerAlter(t, db, "oracle", alter)
	})
}
