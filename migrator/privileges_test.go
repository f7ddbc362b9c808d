package migrator

import (
	"context"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// A restricted account: with the documented grant set a migration runs to the end; with fewer
// privileges the run is refused before anything is created, naming each missing privilege in
// the one line of its error, with the GRANT that fixes it. The privileges are granted directly:
// no role is active (MySQL's CURRENT_ROLE() says NONE then), so they are checked.
func TestRestrictedUser(t *testing.T) {
	db := testenv.Database(t, privilegesDB)
	f := testenv.Flavor(t)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_2000")
	restricted := func(grants ...string) config.Config {
		t.Helper()
		testenv.Exec(t, db, "DROP USER IF EXISTS gl_restricted@'%'", "CREATE USER gl_restricted@'%' IDENTIFIED BY 'restricted'")
		testenv.Exec(t, db, grants...)
		cfg := testConfig(t, privilegesDB, "t", "ADD COLUMN c INT NULL", nil)
		cfg.Conn.User, cfg.Conn.Password = "gl_restricted", "restricted"
		return cfg
	}
	t.Cleanup(func() { _, _ = db.Exec("DROP USER IF EXISTS gl_restricted@'%'") })

	cfg := restricted("GRANT SELECT ON `gl_privileges`.* TO gl_restricted@'%'", "GRANT REPLICATION SLAVE ON *.* TO gl_restricted@'%'")
	live(&cfg)
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = m.Run(context.Background())
	if err == nil {
		t.Fatal("a run without the privileges succeeded")
	}
	msg := err.Error()
	replication := []string{"BINLOG MONITOR (SHOW MASTER STATUS) on *.*", "SLAVE MONITOR (SHOW SLAVE STATUS) on *.*"}
	if !f.MariaDB {
		replication = []string{"REPLICATION CLIENT (" + f.BinlogStatusSQL() + " and " + f.ReplicaStatusSQL() + ") on *.*",
			"XA_RECOVER_ADMIN (XA RECOVER"}
	}
	for _, want := range append(replication, "INSERT (", "UPDATE (", "DELETE (", "CREATE (", "ALTER (", "DROP (", "LOCK TABLES (the cut-over locks the table) on `gl_privileges`.*",
		"SELECT (the cut-over's metadata lock checks) on performance_schema.*", "nothing was created",
		"GRANT INSERT, UPDATE, DELETE, CREATE, ALTER, DROP, LOCK TABLES ON `gl_privileges`.* TO 'gl_restricted'@'%'") {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "\n") || strings.Contains(msg, "REPLICATION SLAVE (") || strings.Contains(msg, "SELECT (the copy") {
		t.Errorf("error is not one line of the missing privileges only:\n%s", msg)
	}
	if tables := testenv.TableNames(t, db, privilegesDB, ""); len(tables) != 1 {
		t.Errorf("tables after the refusal: %v", tables)
	}

	cfg = restricted(minimalGrants(f)...)
	live(&cfg)
	if m, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("migration with the documented grants: %v", err)
	}
	if cols := testenv.Columns(t, db, privilegesDB, "t"); !hasString(cols, "c") {
		t.Fatalf("columns after the migration: %v", cols)
	}
}

// privilegesDB is the database of the privilege tests.
const privilegesDB = "gl_privileges"

// minimalGrants is doc/requirements.md's grant set for a primary of flavor f, the database named.
func minimalGrants(f dbconn.Flavor) []string {
	replication := "GRANT REPLICATION SLAVE, BINLOG MONITOR, SLAVE MONITOR ON *.* TO gl_restricted@'%'"
	if !f.MariaDB {
		replication = "GRANT REPLICATION SLAVE, REPLICATION CLIENT, XA_RECOVER_ADMIN ON *.* TO gl_restricted@'%'"
	}
	return []string{replication,
		"GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, LOCK TABLES ON `gl\\_privileges`.* TO gl_restricted@'%'",
		"GRANT SELECT ON performance_schema.* TO gl_restricted@'%'",
	}
}
