package dbconn_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Every session of a pool from Open sets what the tool relies on, whatever the server's globals
// say (session.go): autocommit, REPEATABLE READ, its own idle timeouts, no statement time limit.
func TestSessionsSetTheirOwnSettings(t *testing.T) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	f := testenv.Flavor(t)
	isolation, limit := f.IsolationVariable(), f.StatementTimeVariable()
	testenv.SetGlobal(t, admin, "autocommit", "0")
	testenv.SetGlobal(t, admin, isolation, "READ-UNCOMMITTED")
	testenv.SetGlobal(t, admin, "wait_timeout", "5")
	testenv.SetGlobal(t, admin, "interactive_timeout", "5")
	testenv.SetGlobal(t, admin, limit, "1")

	db, err := dbconn.Open(context.Background(), testenv.PrimaryConfig(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxIdleConns(4)
	// Several sessions at once: the first reads the flavor, the others reuse it.
	conns := 0
	for range 3 {
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conns++
		var autocommit, iso, wait, interactive, lim string
		q := fmt.Sprintf("SELECT @@session.autocommit, @@session.%s, @@session.wait_timeout, @@session.interactive_timeout, @@session.%s", isolation, limit)
		if err := conn.QueryRowContext(context.Background(), q).Scan(&autocommit, &iso, &wait, &interactive, &lim); err != nil {
			t.Fatal(err)
		}
		if lim == "0.000000" { // MariaDB's limit is in seconds, with a fraction
			lim = "0"
		}
		want := [5]string{"1", "REPEATABLE-READ", fmt.Sprint(dbconn.SessionTimeout), fmt.Sprint(dbconn.SessionTimeout), "0"}
		if got := [5]string{autocommit, iso, wait, interactive, lim}; got != want {
			t.Errorf("session %d: autocommit, isolation, wait_timeout, interactive_timeout, %s = %v, want %v", conns, limit, got, want)
		}
	}
}

// On MariaDB, where the server has innodb_snapshot_isolation (ON by default from 11.6), the tool's
// sessions turn it off, the global ON: the copy's consistent read must skip the ghost rows the
// applier wrote after its read view, which snapshot isolation fails with error 1020 instead.
func TestSessionsTurnSnapshotIsolationOff(t *testing.T) {
	testenv.OnlyMariaDB(t, "innodb_snapshot_isolation is MariaDB's")
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	if err := admin.QueryRow("SELECT @@global.innodb_snapshot_isolation").Scan(new(string)); err != nil {
		t.Skipf("this MariaDB has no innodb_snapshot_isolation (%v)", err)
	}
	testenv.SetGlobal(t, admin, "innodb_snapshot_isolation", "ON")
	db, err := dbconn.Open(context.Background(), testenv.PrimaryConfig(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var on int
	if err := db.QueryRow("SELECT @@session.innodb_snapshot_isolation").Scan(&on); err != nil || on != 0 {
		t.Errorf("a session's innodb_snapshot_isolation is %d (%v), want 0", on, err)
	}
}
