package migrator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The ghost's DDL runs under the server's global sql_mode: a zero date default that the server's
// own ALTER refuses under NO_ZERO_DATE is refused with the server's message, nothing left behind;
// --allow-zero-in-date lets it through, as in gh-ost.
func TestGhostDDLUsesServerSQLMode(t *testing.T) {
	db := testenv.Database(t, prepareDB)
	testenv.Exec(t, db, "CREATE TABLE zd (id INT PRIMARY KEY, v INT)", "INSERT INTO zd VALUES (1, 1)")
	testenv.SetGlobal(t, db, "sql_mode", "STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION")
	alter := "ADD COLUMN d DATETIME NOT NULL DEFAULT '0000-00-00 00:00:00'"

	var serverErr string
	conn := serverSession(t, db)
	testenv.Exec(t, db, "CREATE TABLE zd_oracle LIKE zd")
	if _, err := conn.ExecContext(context.Background(), "ALTER TABLE zd_oracle "+alter); err == nil {
		t.Fatal("the server's own ALTER accepted a zero date default under NO_ZERO_DATE")
	} else {
		serverErr = err.Error()
	}
	testenv.Exec(t, db, "DROP TABLE zd_oracle")

	before := captureState(t, db)
	m := mustNew(t, prepareConfig(t, "zd", alter, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := m.prepare(ctx)
	if err == nil {
		t.Fatal("prepare accepted a zero date default under the server's NO_ZERO_DATE")
	}
	if msg := serverErr[strings.Index(serverErr, "Invalid default"):]; !strings.Contains(err.Error(), msg) {
		t.Errorf("refusal %q does not carry the server's message %q", err, msg)
	}
	assertUnchanged(t, db, before, "zd")

	cfg := prepareConfig(t, "zd", alter, nil)
	cfg.AllowZeroInDate = true
	s := prepareOK(t, mustNew(t, cfg))
	if _, ok := s.plan.Ghost.Column("d"); !ok {
		t.Error("--allow-zero-in-date: the ghost has no column d")
	}
}
