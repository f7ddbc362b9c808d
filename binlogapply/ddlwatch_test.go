package binlogapply

import "testing"

// TestTouchesTableSpellings: every way a statement changing db.t may be written reaches the
// watcher as such, and the ones that leave db.t alone do not stop the migration.
func TestTouchesTableSpellings(t *testing.T) {
	cases := []struct {
		name, q, def string
		want         bool
	}{
		// Comment styles and executable comments.
		{"executable comment", "/*! ALTER TABLE t MODIFY e ENUM('c','b','a') */", "db", true},
		{"executable comment glued", "/*!ALTER TABLE t ADD x INT*/", "db", true},
		{"versioned comment", "/*!50100 ALTER TABLE t ADD x INT */", "db", true},
		{"six digit versioned comment", "/*!100100 ALTER TABLE `t` ADD x INT */", "db", true},
		{"MariaDB comment", "/*M! ALTER TABLE t ADD x INT */", "db", true},
		{"versioned MariaDB comment", "/*M!100100 ALTER TABLE t ADD x INT */", "db", true},
		{"mysqldump's disable keys", "/*!40000 ALTER TABLE `t` DISABLE KEYS */", "db", true},
		{"verb outside, table inside", "ALTER /*! TABLE t */ ADD x INT", "db", true},
		{"driver dash comment without space", "--\nALTER TABLE t ADD x INT", "db", true},
		{"dash comment with tab", "--\tnote\nALTER TABLE t ADD x INT", "db", true},
		{"dash comment with space", "-- note\nALTER TABLE t ADD x INT", "db", true},
		{"hash comment", "# note\nALTER TABLE t ADD x INT", "db", true},
		{"leading block comment", "/* app=x */ ALTER TABLE t ADD x INT", "db", true},
		{"comment between words", "ALTER/**/TABLE/* x */t ADD x INT", "db", true},
		{"comment hides the statement", "/* ALTER TABLE t ADD x INT */ SELECT 1", "db", false},
		{"skipped versioned comment as logged", "ALTER TABLE t2 ADD x INT /* 999999 , RENAME TO t */", "db", false},
		// Case, quoting and qualification.
		{"qualified other case", "ALTER TABLE DB.T ADD x INT", "other", true},
		{"quoted qualified", "ALTER TABLE `db`.`t` ADD x INT", "", true},
		{"quoted other case", "alter table `Db`.`T` add x int", "", true},
		{"ANSI_QUOTES identifiers", `ALTER TABLE "db"."t" ADD x INT`, "other", true},
		{"string is not a name", "ALTER TABLE t2 COMMENT 'ALTER TABLE t'", "db", false},
		{"other schema", "ALTER TABLE other.t ADD x INT", "db", false},
		{"ghost", "ALTER TABLE _t_gho ADD x INT", "db", false},
		// Statement kinds.
		{"alter if exists", "ALTER TABLE IF EXISTS t ADD x INT", "db", true},
		{"alter online", "ALTER ONLINE IGNORE TABLE t FORCE", "db", true},
		{"alter renames into t", "ALTER TABLE t2 RENAME TO db.t", "x", true},
		{"alter renames column to t", "ALTER TABLE t2 RENAME COLUMN a TO t", "db", false},
		{"exchange partition", "ALTER TABLE p EXCHANGE PARTITION p0 WITH TABLE t", "db", true},
		{"foreign key to t", "ALTER TABLE c ADD CONSTRAINT fk FOREIGN KEY (tid) REFERENCES t (id)", "db", true},
		{"create with foreign key to t", "CREATE TABLE c (id INT, tid INT, FOREIGN KEY (tid) REFERENCES `db`.`t` (id))", "x", true},
		{"drop list", "DROP TABLE IF EXISTS a, db.t", "x", true},
		{"drop list other schema", "DROP TABLE IF EXISTS a, other.t", "db", false},
		{"drop temporary", "DROP TEMPORARY TABLE IF EXISTS t", "db", false},
		{"drop sequence list", "DROP SEQUENCE IF EXISTS t", "db", true},
		{"drop database", "DROP DATABASE IF EXISTS `DB`", "x", true},
		{"drop other database", "DROP SCHEMA other", "db", false},
		{"rename multi", "RENAME TABLE a TO b, t TO c", "db", true},
		{"rename multi qualified", "RENAME TABLE db.a TO db.b, `db`.`t` TO `db`.`c`", "", true},
		{"rename into t", "RENAME TABLE a TO t", "db", true},
		{"rename with wait", "RENAME TABLE IF EXISTS a WAIT 5 TO b, t NOWAIT TO c", "db", true},
		{"rename others", "RENAME TABLE a TO b, c TO d", "db", false},
		{"truncate", "TRUNCATE `t`", "db", true},
		{"truncate table", "TRUNCATE TABLE db.t", "x", true},
		{"create or replace", "CREATE OR REPLACE TABLE t (id INT)", "db", true},
		{"create if not exists", "CREATE TABLE IF NOT EXISTS t (id INT)", "db", true},
		{"create temporary", "CREATE TEMPORARY TABLE t (id INT)", "db", false},
		{"create like t", "CREATE TABLE x LIKE t", "db", false},
		{"create select from t", "CREATE TABLE x AS SELECT * FROM t", "db", false},
		{"create or replace sequence", "CREATE OR REPLACE SEQUENCE t", "db", true},
		{"create index", "CREATE OR REPLACE UNIQUE INDEX IF NOT EXISTS i USING BTREE ON t (a)", "db", true},
		{"drop index", "DROP INDEX IF EXISTS i ON `db`.`t`", "", true},
		{"create index elsewhere", "CREATE INDEX i ON t2 (a)", "db", false},
		// Triggers.
		{"create trigger as logged", "CREATE DEFINER=`app`@`%` TRIGGER trg AFTER INSERT ON t FOR EACH ROW INSERT INTO log VALUES (NEW.id)", "db", true},
		{"create trigger qualified", "CREATE TRIGGER db.trg BEFORE UPDATE ON t FOR EACH ROW SET @x = 1", "other", true},
		{"create trigger table qualified", "CREATE TRIGGER trg BEFORE UPDATE ON db.t FOR EACH ROW SET @x = 1", "other", true},
		{"create or replace trigger", "CREATE OR REPLACE DEFINER=CURRENT_USER() TRIGGER IF NOT EXISTS trg BEFORE DELETE ON `t` FOR EACH ROW SET @x = 1", "db", true},
		{"trigger in an executable comment", "/*!50003 CREATE*/ /*!50017 DEFINER=`root`@`localhost`*/ /*!50003 TRIGGER trg AFTER INSERT ON t FOR EACH ROW SET @x = 1 */", "db", true},
		{"trigger of another table writing t", "CREATE TRIGGER trg AFTER INSERT ON t2 FOR EACH ROW INSERT INTO t VALUES (1)", "db", false},
		{"trigger in another schema", "CREATE TRIGGER other.trg AFTER INSERT ON t FOR EACH ROW SET @x = 1", "db", false},
		{"drop trigger is ignored", "DROP TRIGGER IF EXISTS trg", "db", false},
		// Statements that name t without changing it.
		{"analyze", "ANALYZE TABLE t", "db", false},
		{"grant", "GRANT SELECT ON db.t TO u", "db", false},
		{"view", "CREATE OR REPLACE VIEW v AS SELECT * FROM t", "db", false},
		{"procedure body", "CREATE DEFINER=`root`@`%` PROCEDURE p() ALTER TABLE t ADD x INT", "db", false},
		// Cannot tell: fail safe when the name appears.
		{"untokenizable mentioning t", "ALTER TABLE t ADD c INT COMMENT 'open", "db", true},
		{"nested executable comments mentioning t", "/*! ALTER /*! TABLE */ t */", "db", true},
		{"untokenizable not mentioning t", "ALTER TABLE x ADD c INT COMMENT 'open", "db", false},
		{"trigger without ON", "CREATE TRIGGER trg AFTER INSERT t", "db", true},
		{"backslash read both ways", `ALTER TABLE x COMMENT 'a\' , RENAME TO t -- '`, "db", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := touchesTable(c.q, c.def, "db", "t"); got != c.want {
				t.Errorf("touchesTable(%q, default schema %q) = %v, want %v", c.q, c.def, got, c.want)
			}
		})
	}
}

func TestFirstWord(t *testing.T) {
	cases := map[string]string{
		"ALTER TABLE t ADD x INT":                   "ALTER TABLE",
		"--\nalter table t add x int":               "ALTER TABLE",
		"/*! ALTER TABLE t ADD x INT */":            "ALTER TABLE",
		"CREATE DEFINER=`a`@`%` TRIGGER x ON t":     "CREATE TRIGGER",
		"CREATE OR REPLACE UNIQUE INDEX i ON t (a)": "CREATE INDEX",
		"TRUNCATE TABLE t":                          "TRUNCATE",
		"RENAME TABLE a TO b":                       "RENAME TABLE",
		"'x'":                                       "query",
		"ALTER TABLE t COMMENT 'open":               "query",
	}
	for q, want := range cases {
		if got := firstWord(q); got != want {
			t.Errorf("firstWord(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestMentions(t *testing.T) {
	for q, want := range map[string]bool{
		"ALTER TABLE x":      false,
		"ALTER TABLE `t`":    true,
		"ALTER TABLE db.T x": true,
		"t":                  true,
		"'t'":                true,
		"t2 _t tt $t":        false,
		"x,t":                true,
	} {
		if got := mentions(q, "t"); got != want {
			t.Errorf("mentions(%q, t) = %v, want %v", q, got, want)
		}
	}
}
