package migrator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/tablelock"
)

const plainTable = "CREATE TABLE t (id INT NOT NULL, a INT, b VARCHAR(20), PRIMARY KEY (id)) ENGINE=InnoDB"

const plainRows = "INSERT INTO t VALUES (1, 10, 'one, RENAME TO x'), (2, NULL, 'two'), (3, 30, NULL)"

// TestPrepareRefusals feeds preparation one bad input at a time. Each must be refused with a
// message naming the problem, and leave the server as it was: same tables, same data, no helper
// table, the migration lock free.
func TestPrepareRefusals(t *testing.T) {
	cases := []struct {
		name   string
		setup  []string
		tbl    string
		alter  string
		mutate func(*config.Config)
		phrase string
	}{
		{name: "missing database", tbl: "t", alter: "ADD c INT",
			mutate: func(c *config.Config) { c.Database = "glr_prepare_nosuch" },
			phrase: "database glr_prepare_nosuch does not exist on 127.0.0.1:"},
		{name: "missing table", tbl: "nosuch", alter: "ADD c INT",
			phrase: "cannot find table glr_prepare.nosuch! It does not exist on 127.0.0.1:"},
		{name: "view", setup: []string{"CREATE VIEW v AS SELECT * FROM t"}, tbl: "v", alter: "ADD c INT",
			phrase: "glr_prepare.v is a VIEW, not a real table. Bailing out"},
		{name: "MyISAM table", setup: []string{"CREATE TABLE m (id INT PRIMARY KEY) ENGINE=MyISAM", "INSERT INTO m VALUES (1)"},
			tbl: "m", alter: "ADD c INT", phrase: "glr_prepare.m uses the MyISAM engine; go-ghostlite migrates InnoDB tables only"},
		{name: "trigger", setup: []string{"CREATE TABLE log (id INT PRIMARY KEY)", "CREATE TRIGGER trg_t_ins AFTER INSERT ON t FOR EACH ROW INSERT INTO log VALUES (NEW.id)"},
			tbl: "t", alter: "ADD c INT", phrase: `found triggers on glr_prepare.t. Tables with triggers are supported only when using "include-triggers" flag: t has triggers (trg_t_ins); pass --include-triggers`},
		{name: "foreign key child", setup: []string{"CREATE TABLE c (id INT PRIMARY KEY, tid INT, CONSTRAINT fk_c_t FOREIGN KEY (tid) REFERENCES t (id))", "INSERT INTO c VALUES (1, 1)"},
			tbl: "c", alter: "ADD x INT", phrase: "found 1 child-side foreign keys on glr_prepare.c. Child-side foreign keys are not supported. Bailing out: glr_prepare.c has foreign keys (fk_c_t -> t)"},
		{name: "foreign key parent", setup: []string{"CREATE TABLE c (id INT PRIMARY KEY, tid INT, CONSTRAINT fk_c_t FOREIGN KEY (tid) REFERENCES t (id))"},
			tbl: "t", alter: "ADD x INT", mutate: func(c *config.Config) { c.DiscardForeignKeys = true },
			phrase: "found 1 parent-side foreign keys on glr_prepare.t. Parent-side foreign keys are not supported. Bailing out: glr_prepare.t is referenced by foreign keys (glr_prepare.c.fk_c_t)"},
		{name: "ALTER drops the only key", tbl: "t", alter: "DROP PRIMARY KEY",
			phrase: "no shared unique key can be found after ALTER! Bailing out: no PRIMARY nor UNIQUE key found in table _t_gho after the ALTER (the original's PRIMARY (id) is not in the altered table); keep a unique NOT NULL key in both"},
		{name: "ALTER drops the only key of several columns", setup: []string{"CREATE TABLE k2 (a INT NOT NULL, b INT NOT NULL, UNIQUE KEY uk (a, b))"},
			tbl: "k2", alter: "DROP KEY uk", phrase: "no shared unique key can be found after ALTER! Bailing out: no PRIMARY nor UNIQUE key found in table _k2_gho after the ALTER"},
		{name: "ALTER keeps no shared key", setup: []string{"CREATE TABLE k3 (a INT NOT NULL PRIMARY KEY, b INT NOT NULL)"},
			tbl: "k3", alter: "DROP PRIMARY KEY, ADD UNIQUE KEY ub (b)",
			phrase: "no shared unique key can be found after ALTER! Bailing out: the original's PRIMARY (a) is not in the altered table; keep a unique NOT NULL key in both"},
		{name: "DATETIME key column to TIMESTAMP", setup: []string{"CREATE TABLE kt (k DATETIME NOT NULL PRIMARY KEY, x INT)", "INSERT INTO kt VALUES ('2020-01-01 00:00:00', 1)"},
			tbl: "kt", alter: "MODIFY k TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP",
			phrase: "no support at this time for converting a column from DATETIME to TIMESTAMP that is also part of the chosen unique key. Column: k, key: PRIMARY: the original's PRIMARY (k): column k changes from datetime to timestamp, so keys distinct"},
		{name: "only a nullable unique key", setup: []string{"CREATE TABLE n (a INT NULL, b INT, UNIQUE KEY uk_a (a))"},
			tbl: "n", alter: "ADD c INT", phrase: "no shared unique key can be found after ALTER! Bailing out: the original's uk_a (a) has nullable column a; keep a unique NOT NULL key in both, or pass --allow-nullable-unique-key if its columns hold no NULL (chosen key uk_a (a) has nullable columns. Bailing out."},
		{name: "float key", setup: []string{"CREATE TABLE f (x DOUBLE NOT NULL PRIMARY KEY, v INT)"},
			tbl: "f", alter: "ADD c INT", phrase: "the original's PRIMARY (x) has FLOAT/DOUBLE column x"},
		{name: "shared ENUM key changes collation", setup: []string{"CREATE TABLE kc (k ENUM('a','b') COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, x INT)", "INSERT INTO kc VALUES ('a', 1), ('b', 2)"},
			tbl: "kc", alter: "MODIFY k ENUM('a','b') COLLATE utf8mb4_general_ci NOT NULL",
			phrase: "the original's PRIMARY (k): column k changes from enum('a','b') COLLATE utf8mb4_bin to enum('a','b') COLLATE utf8mb4_general_ci, so keys distinct in the original may be equal in the altered table (another character set or collation); give the key's columns a collation that tells apart every two values their current one does (the same family, as utf8mb4_general_ci for utf8mb3_general_ci, or a binary one such as utf8mb4_bin), keep another unique NOT NULL key in both, or run this ALTER with the server's own ALTER TABLE"},
		{name: "shared key loses fractional seconds", setup: []string{"CREATE TABLE kd (k DATETIME(6) NOT NULL PRIMARY KEY, x INT)", "INSERT INTO kd VALUES ('2020-01-01 00:00:00.1', 1), ('2020-01-01 00:00:00.2', 2)"},
			tbl: "kd", alter: "MODIFY k DATETIME NOT NULL", phrase: "column k changes from datetime(6) to datetime, so keys distinct in the original may be equal"},
		{name: "shared key from string to number", setup: []string{"CREATE TABLE ks (k VARCHAR(10) COLLATE utf8mb4_general_ci NOT NULL PRIMARY KEY, x INT)", "INSERT INTO ks VALUES ('1', 1), ('01', 2)"},
			tbl: "ks", alter: "MODIFY k INT NOT NULL", phrase: "column k changes from varchar(10) COLLATE utf8mb4_general_ci to int"}, // int(11) on MariaDB
		{name: "no unique key at all", setup: []string{"CREATE TABLE h (a INT, KEY (a))"},
			tbl: "h", alter: "ADD c INT", phrase: "no PRIMARY nor UNIQUE key found in table! Bailing out: glr_prepare.h needs a unique NOT NULL key to be copied in order and its rows addressed: add one with a plain ALTER TABLE first"},
		{name: "RENAME TO", tbl: "t", alter: "ADD c INT, RENAME TO t2", phrase: "alter statement seems to RENAME the table. This is not supported, and you should run your RENAME outside the migration: the ALTER gives t another name (RENAME TO)"},
		{name: "ALTER names another table", tbl: "t", alter: "ALTER TABLE other ADD c INT",
			phrase: "the ALTER names table other but the migration is of glr_prepare.t"},
		{name: "invalid ALTER", tbl: "t", alter: "ADD COLUMN c INT DEFAULT,\n  ADD d INT",
			phrase: "the ALTER fails on the ghost table: Error 1064"},
		{name: "ALTER on a missing column", tbl: "t", alter: "DROP COLUMN nosuch",
			phrase: "the ALTER fails on the ghost table: Error 1091"},
		{name: "ALTER changes the engine", tbl: "t", alter: "ENGINE=MyISAM",
			phrase: "the ALTER makes the table use the MyISAM engine"},
		{name: "empty ALTER", tbl: "t", alter: "ALTER TABLE t ;", phrase: "the ALTER is empty"},
		{name: "two statements", tbl: "t", alter: "ADD c INT; DROP TABLE t", phrase: "more than one statement"},
		{name: "rename without approval", tbl: "t", alter: "CHANGE a a2 INT",
			phrase: "it seems the ALTER statement renames columns, as follows: a to a2; as precaution, you are asked to confirm: pass --approve-renamed-columns to copy a's data into a2, or --skip-renamed-columns"},
		{name: "stale ghost", setup: []string{"CREATE TABLE _t_gho (id INT PRIMARY KEY)"}, tbl: "t", alter: "ADD c INT",
			phrase: "table glr_prepare._t_gho already exists. Panicking: it was left by an earlier migration: drop it, or pass --initially-drop-ghost-table"},
		{name: "stale changelog", setup: []string{"CREATE TABLE _t_ghc (id INT PRIMARY KEY)"}, tbl: "t", alter: "ADD c INT",
			phrase: "table glr_prepare._t_ghc already exists. Panicking"},
		{name: "stale changelog with only --initially-drop-old-table", setup: []string{"CREATE TABLE _t_ghc (id INT PRIMARY KEY)", "CREATE TABLE _t_del (id INT PRIMARY KEY)"},
			tbl: "t", alter: "ADD c INT", mutate: func(c *config.Config) { c.InitiallyDropOldTable = true },
			phrase: "table glr_prepare._t_ghc already exists. Panicking"},
		{name: "old table exists", setup: []string{"CREATE TABLE _t_del (id INT PRIMARY KEY)", "INSERT INTO _t_del VALUES (7)"}, tbl: "t", alter: "ADD c INT",
			phrase: "table glr_prepare._t_del already exists. Panicking: it was left by an earlier migration: drop it, or pass --initially-drop-old-table"},
		{name: "on the primary without --allow-on-master", tbl: "t", alter: "ADD c INT",
			mutate: func(c *config.Config) { c.AllowOnMaster = false },
			phrase: "it seems like this migration attempt to run directly on master: 127.0.0.1:" + fmt.Sprint(testenv.PrimaryConfig().Port) + " is a primary (not replicating); pass --allow-on-master"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := testenv.Database(t, prepareDB)
			testenv.Exec(t, db, plainTable, plainRows)
			testenv.Exec(t, db, c.setup...)
			before := captureState(t, db)
			cfg := prepareConfig(t, c.tbl, c.alter, nil)
			if c.mutate != nil {
				c.mutate(&cfg)
			}
			m := mustNew(t, cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := m.Run(ctx)
			if err == nil {
				t.Fatal("Run accepted the bad input")
			}
			if !strings.Contains(err.Error(), c.phrase) {
				t.Fatalf("error %q does not say %q", err, c.phrase)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the refusal is not one line: %q", err)
			}
			if strings.Contains(err.Error(), "gh-ost") {
				t.Errorf("the refusal names gh-ost as if it were the tool: %q", err)
			}
			if head, _, found := strings.Cut(err.Error(), ": "); found && strings.Count(err.Error(), head) > 1 {
				t.Errorf("the refusal repeats its first part %q: %q", head, err)
			}
			assertUnchanged(t, db, before, c.tbl)
		})
	}
}

// TestPrepareRefusesWhileLockHeld holds the table's lock from another session, as a running
// migration would, and checks the holder is named and nothing is created.
func TestPrepareRefusesWhileLockHeld(t *testing.T) {
	db := testenv.Database(t, prepareDB)
	testenv.Exec(t, db, plainTable, plainRows)
	before := captureState(t, db)
	ctx := context.Background()
	holder, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	var got, id int64
	if err := holder.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0), CONNECTION_ID()", tablelock.Name(prepareDB, "t")).Scan(&got, &id); err != nil || got != 1 {
		t.Fatalf("take the lock in the test: %v %d", err, got)
	}

	m := mustNew(t, prepareConfig(t, "t", "ADD c INT", nil))
	err = m.Run(ctx)
	want := fmt.Sprintf("another process is already migrating `glr_prepare`.`t`: migration lock %s held by connection id %d on 127.0.0.1:", tablelock.Name(prepareDB, "t"), id)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	if names := testenv.TableNames(t, db, prepareDB, "_t_"); len(names) != 0 {
		t.Fatalf("helper tables created while the lock was held: %v", names)
	}

	if _, err := holder.ExecContext(ctx, "DO RELEASE_LOCK(?)", tablelock.Name(prepareDB, "t")); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(ctx); err != nil {
		t.Fatalf("dry run after the lock was released: %v", err)
	}
	assertUnchanged(t, db, before, "t")
}

// TestSecondPrepareWaitsForFirst: two migrations of one table, the second refused until the
// first session closes; then it proceeds.
func TestSecondPrepareWaitsForFirst(t *testing.T) {
	db := testenv.Database(t, prepareDB)
	testenv.Exec(t, db, plainTable, plainRows)
	m1 := mustNew(t, prepareConfig(t, "t", "ADD c INT", nil))
	s1 := prepareOK(t, m1)

	m2 := mustNew(t, prepareConfig(t, "t", "ADD d INT", nil))
	if _, err := m2.prepare(context.Background()); err == nil || !strings.Contains(err.Error(), "another process is already migrating `glr_prepare`.`t`") {
		t.Fatalf("second prepare: %v", err)
	}
	// The refused second run must not have dropped the first run's ghost.
	if names := testenv.TableNames(t, db, prepareDB, "_t_gho"); len(names) != 1 {
		t.Fatalf("the first run's ghost is gone: %v", names)
	}
	if err := s1.checkMutex(context.Background()); err != nil {
		t.Fatalf("first session lost its lock: %v", err)
	}
	endSession(t, m1, s1)

	s2 := prepareOK(t, m2)
	if _, ok := s2.plan.Ghost.Column("d"); !ok {
		t.Fatal("second run's ghost lacks its column d")
	}
	endSession(t, m2, s2)
	assertLockFree(t, db, "t")
	if names := testenv.TableNames(t, db, prepareDB, "_t_"); len(names) != 0 {
		t.Fatalf("helper tables left: %v", names)
	}
}
