package migrator

import (
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The migrated table continues the original's AUTO_INCREMENT counter, as the server's own ALTER
// does: ids of rows deleted at the top (before the copy, and during the migration through the
// applied binlog) are never handed out again.
func TestAutoIncrementCounterCarriedAtCutOver(t *testing.T) {
	alter := "ADD COLUMN extra INT NOT NULL DEFAULT 0"
	db, cfg, postpone := sameResultSetup(t, 77331, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)", alter,
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

// An ALTER that sets the counter itself (the AUTO_INCREMENT table option) is left to decide it.
func TestSetsAutoIncrement(t *testing.T) {
	cases := map[string]bool{
		"AUTO_INCREMENT = 1000":                         true,
		"ADD COLUMN c INT, AUTO_INCREMENT 5":            true,
		"MODIFY id BIGINT NOT NULL AUTO_INCREMENT":      false,
		"ADD COLUMN c INT COMMENT 'AUTO_INCREMENT = 5'": false,
		"MODIFY id INT AUTO_INCREMENT, ADD KEY k (c)":   false,
	}
	for body, want := range cases {
		t.Run(body, func(t *testing.T) {
			if got := setsAutoIncrement(&alterSpec{Body: body}); got != want {
				t.Errorf("setsAutoIncrement(%q) = %v, want %v", body, got, want)
			}
		})
	}
}
