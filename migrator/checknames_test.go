package migrator

import (
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// CHECK constraints keep the names the server's own ALTER keeps, on every flavor: unnamed ones
// (t_chk_N on MySQL, CONSTRAINT_N on MariaDB), named ones of MySQL's generated form (t_chk_9,
// kept by a RENAME), one the ALTER drops by name, ones the ALTER adds (named, and unnamed: MySQL
// numbers it after the largest). Before, on MySQL, CREATE ... LIKE renumbered them all and the
// ALTER's DROP CHECK named a constraint the ghost did not have.
func TestCheckConstraintNamesAsServerAlter(t *testing.T) {
	cases := []struct{ name, create, alter string }{
		{"user name dropped, checks added",
			"CREATE TABLE t (id INT PRIMARY KEY, v INT, w INT, CONSTRAINT v_pos CHECK (v > 0), CHECK (w > 0), CONSTRAINT t_chk_9 CHECK (w < 100))",
			"ADD COLUMN x INT NULL, ADD CHECK (x >= 0), ADD CONSTRAINT x_small CHECK (x < 10), DROP CHECK v_pos"},
		{"generated name dropped, one not enforced",
			"CREATE TABLE t (id INT PRIMARY KEY, v INT CHECK (v > 0), w INT, CONSTRAINT t_chk_9 CHECK (w < 100), CONSTRAINT t_chk_w CHECK (w <> 7) /*!80016 NOT ENFORCED */)",
			"DROP CHECK t_chk_9, ADD COLUMN y INT NULL, ADD CHECK (y <> 0)"},
	}
	for _, c := range cases {
		// Each kind of swap: RENAME TABLE one name at a time or both at once, ALTER TABLE ...
		// RENAME (two-step), a RENAME under the lock (lock-rename): every algorithm the flavor runs.
		for _, algo := range config.CutOverAlgorithms() {
			t.Run(c.name+", "+algo, func(t *testing.T) {
				if err := cutover.RefuseOn(algo, testenv.Flavor(t)); err != nil {
					t.Skipf("flavor limit: %v", err)
				}
				alter := c.alter
				if testenv.Flavor(t).MariaDB {
					// MariaDB has no DROP CHECK; it names an unnamed table constraint CONSTRAINT_N.
					alter = strings.ReplaceAll(alter, "DROP CHECK", "DROP CONSTRAINT")
				}
				db, cfg, postpone := sameResultSetup(t, c.create, alter,
					"INSERT INTO t (id, v, w) SELECT seq, seq, seq % 90 + 10 FROM seq_1_to_300")
				cfg.CutOver = algo
				oracle := oracleElsewhere(t, db, cfg.Database)
				done := runToPostponed(t, db, cfg)
				for _, tdb := range []string{cfg.Database, oracle} {
					testenv.Exec(t, db, "INSERT INTO "+tdb+".t (id, v, w) VALUES (1001, 5, 50)",
						"UPDATE "+tdb+".t SET v = v + 1 WHERE id <= 20", "DELETE FROM "+tdb+".t WHERE id BETWEEN 30 AND 40")
				}
				finishRun(t, postpone, done)
				assertSameAsServerAlterElsewhere(t, db, cfg.Database, oracle, alter)
			})
		}
	}
}

// On MySQL a CHECK constraint of a name of the user's own that the ALTER keeps is refused before
// anything is created: the new table could only take the name from the old one by checking every
// row again (names are unique per schema, and no statement renames a constraint).
func TestCheckConstraintUserNameRefusedOnMySQL(t *testing.T) {
	testenv.OnlyMySQL(t, "CHECK constraint names are per table on MariaDB: LIKE and RENAME keep them")
	db, cfg, _ := sameResultSetup(t, "CREATE TABLE t (id INT PRIMARY KEY, v INT, CONSTRAINT v_pos CHECK (v > 0))",
		"ADD COLUMN x INT NULL", "INSERT INTO t VALUES (1, 1)")
	cfg.PostponeCutOverFlagFile = "" // not refused: the run ends, and the test fails
	err := testenv.WaitResult(t, runMigration(t, cfg), 60*time.Second)
	if err == nil || !strings.Contains(err.Error(), "the CHECK constraint name v_pos of t cannot be kept") {
		t.Fatalf("migration: %v, want the refusal of v_pos", err)
	}
	if names := testenv.TableNames(t, db, cfg.Database, ""); strings.Join(names, ",") != "t" {
		t.Errorf("tables after the refusal: %v, want t alone", names)
	}
}
