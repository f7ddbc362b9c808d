package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// ParseStatement reads every accepted form into table and clauses, in order.
func TestParseStatementAccepts(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []TableAlter
	}{
		{"plain alter", "ALTER TABLE t ADD COLUMN c INT", []TableAlter{{"t", "ADD COLUMN c INT"}}},
		{"lower case, trailing ;", "alter table t add column c int;", []TableAlter{{"t", "add column c int"}}},
		{"qualified by --database", "ALTER TABLE gl.t DROP COLUMN c", []TableAlter{{"t", "DROP COLUMN c"}}},
		{"backquotes", "ALTER TABLE `gl`.`my t` ADD COLUMN `c;d` INT COMMENT 'a;b'",
			[]TableAlter{{"my t", "ADD COLUMN `c;d` INT COMMENT 'a;b'"}}},
		{"online and ignore", "ALTER ONLINE IGNORE TABLE t ADD UNIQUE KEY u (v)", []TableAlter{{"t", "ADD UNIQUE KEY u (v)"}}},
		{"algorithm and lock stay clauses", "ALTER TABLE t ADD INDEX i (v), ALGORITHM=INPLACE, LOCK=NONE",
			[]TableAlter{{"t", "ADD INDEX i (v), ALGORITHM=INPLACE, LOCK=NONE"}}},
		{"two statements", "ALTER TABLE a ADD COLUMN c INT; ALTER TABLE b DROP COLUMN d",
			[]TableAlter{{"a", "ADD COLUMN c INT"}, {"b", "DROP COLUMN d"}}},
		{"empty statements, white space and comments", " ;\n -- first\n ALTER TABLE a /* x */ ADD c INT ;; # end\n ; /* only a comment */ ;",
			[]TableAlter{{"a", "ADD c INT"}}},
		{"create index", "CREATE INDEX i ON t (v)", []TableAlter{{"t", "ADD INDEX i (v)"}}},
		{"create unique index with using and comment",
			"CREATE UNIQUE INDEX `u i` USING BTREE ON gl.t (a, b(10) DESC) COMMENT 'why; not' INVISIBLE",
			[]TableAlter{{"t", "ADD UNIQUE INDEX `u i` (a, b(10) DESC) USING BTREE COMMENT 'why; not' INVISIBLE"}}},
		{"create fulltext index if not exists", "create fulltext index if not exists f on t (body)",
			[]TableAlter{{"t", "ADD FULLTEXT INDEX IF NOT EXISTS f (body)"}}},
		{"create index on an expression", "CREATE INDEX e ON t ((a + b)) USING HASH KEY_BLOCK_SIZE=8",
			[]TableAlter{{"t", "ADD INDEX e ((a + b)) USING HASH KEY_BLOCK_SIZE=8"}}},
		{"create index algorithm and lock become clauses", "CREATE INDEX i ON t (v) ALGORITHM = INPLACE COMMENT 'c' LOCK NONE",
			[]TableAlter{{"t", "ADD INDEX i (v) COMMENT 'c', ALGORITHM=INPLACE, LOCK=NONE"}}},
		{"drop index", "DROP INDEX i ON t", []TableAlter{{"t", "DROP INDEX i"}}},
		{"drop index qualified, if exists, lock", "DROP INDEX IF EXISTS `PRIMARY` ON `gl`.t LOCK=SHARED",
			[]TableAlter{{"t", "DROP INDEX IF EXISTS `PRIMARY`, LOCK=SHARED"}}},
		{"mixed", "CREATE INDEX i ON a (v); DROP INDEX j ON b; ALTER TABLE c ENGINE=InnoDB;",
			[]TableAlter{{"a", "ADD INDEX i (v)"}, {"b", "DROP INDEX j"}, {"c", "ENGINE=InnoDB"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseStatement(c.text, "gl")
			if err != nil {
				t.Fatalf("ParseStatement(%q): %v", c.text, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("ParseStatement(%q):\n got %q\nwant %q", c.text, got, c.want)
			}
		})
	}
}

// Every refusal is one line, starts with --statement, says what is wrong and wraps ErrUsage.
func TestParseStatementRefuses(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"empty", "", "--statement has no statement"},
		{"only separators and comments", " ; ;-- nothing\n", "--statement has no statement"},
		{"other schema", "ALTER TABLE other.t ADD c INT",
			`--statement: "ALTER TABLE other.t ADD c INT" names schema other; --database is gl: every table of --statement is in --database (migrate other.t in a run with --database=other)`},
		{"other schema, create index", "CREATE INDEX i ON other.t (v)", "names schema other; --database is gl"},
		{"schema differs in case", "ALTER TABLE GL.t ADD c INT", "names schema GL; --database is gl"},
		{"same table twice", "ALTER TABLE t ADD c INT; CREATE INDEX i ON gl.t (v)",
			"--statement: table t appears in two statements; merge them into one ALTER TABLE"},
		{"same table twice in another case", "ALTER TABLE t ADD c INT; ALTER TABLE T ADD d INT", "table t appears in two statements"},
		{"create table", "CREATE TABLE t2 (id INT PRIMARY KEY)",
			`--statement: "CREATE TABLE t2 (id INT PRIMARY KEY)" needs no online migration: run it directly; --statement takes ALTER TABLE, CREATE INDEX and DROP INDEX statements only`},
		{"drop table after an alter", "ALTER TABLE t ADD c INT; DROP TABLE u", `"DROP TABLE u" needs no online migration: run it directly`},
		{"rename table", "RENAME TABLE t TO u", "needs no online migration"},
		{"insert", "INSERT INTO t VALUES (1)", "needs no online migration"},
		{"create or replace table", "CREATE OR REPLACE TABLE t (a INT)", "needs no online migration"},
		{"alter view", "ALTER VIEW v AS SELECT 1", "needs no online migration"},
		{"a long statement is cut", "INSERT INTO t VALUES (1), (2), (3), (4), (5), (6), (7), (8), (9), (10), (11)",
			`"INSERT INTO t VALUES (1), (2), (3), (4), (5), (6), (7), (8),..." needs`},
		{"alter with no clauses", "ALTER TABLE t;", `"ALTER TABLE t" has no clauses`},
		{"alter with no table", "ALTER TABLE", "names no table"},
		{"qualified name without table", "ALTER TABLE gl.;", "names no table after the schema gl"},
		{"create or replace index", "CREATE OR REPLACE INDEX i ON t (v)", "CREATE OR REPLACE INDEX is not supported"},
		{"create index without name", "CREATE INDEX ON t (v)", "names no index"},
		{"create index without on", "CREATE INDEX i (v)", "has no ON <table>"},
		{"create index without parts", "CREATE INDEX i ON t", "has no key parts"},
		{"create index with nowait", "CREATE INDEX i ON t (v) NOWAIT", "has NOWAIT, which would apply to the ghost table only"},
		{"create index algorithm without value", "CREATE INDEX i ON t (v) ALGORITHM=", "has ALGORITHM without a value"},
		{"drop index without on", "DROP INDEX i", "has no ON <table>"},
		{"drop index with more", "DROP INDEX i ON t COMMENT 'x'", `has "COMMENT" after the table`},
		{"unterminated string", "ALTER TABLE t ADD c INT COMMENT 'x", "--statement has an unterminated ' string at byte 32"},
		{"executable comment", "ALTER TABLE t /*!50700 ADD c INT */", "executable comment"},
		{"unbalanced (", "CREATE INDEX i ON t (v; ALTER TABLE u ADD c INT)", "unbalanced '('"},
		{"unbalanced )", "ALTER TABLE t ADD c INT)", "unbalanced ')'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseStatement(c.text, "gl")
			if err == nil {
				t.Fatalf("ParseStatement(%q) = %q, want a refusal", c.text, got)
			}
			msg := strings.TrimPrefix(err.Error(), "usage: ")
			if !errors.Is(err, ErrUsage) || !strings.HasPrefix(msg, "--statement") || strings.Contains(msg, "\n") || !strings.Contains(msg, c.want) {
				t.Errorf("ParseStatement(%q): %q, want a one-line usage error starting with --statement containing %q", c.text, err, c.want)
			}
		})
	}
}

func TestPerTable(t *testing.T) {
	base := Default()
	base.Database, base.Execute, base.ChunkSize = "gl", true, 500

	without := base
	without.Table, without.Alter = "t", "ADD c INT"
	got, err := without.PerTable()
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], without) {
		t.Fatalf("without --statement: %v, %v; want the config itself", got, err)
	}

	with := base
	with.Statement = "ALTER TABLE a ADD c INT; DROP INDEX i ON b"
	got, err = with.PerTable()
	if err != nil || len(got) != 2 {
		t.Fatalf("two statements: %v, %v", got, err)
	}
	for i, want := range []TableAlter{{"a", "ADD c INT"}, {"b", "DROP INDEX i"}} {
		w := base
		w.Table, w.Alter = want.Table, want.Alter
		if !reflect.DeepEqual(got[i], w) {
			t.Errorf("config %d: got table %q alter %q statement %q, want a copy of the config with %q %q and no statement",
				i, got[i].Table, got[i].Alter, got[i].Statement, want.Table, want.Alter)
		}
	}

	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.Table = "t" }, "--statement and --table contradict each other"},
		{func(c *Config) { c.Alter = "ADD c INT" }, "--statement and --alter contradict each other"},
		{func(c *Config) { c.Database = "" }, "--statement needs --database"},
		{func(c *Config) { c.Statement = "DROP TABLE t" }, "needs no online migration"},
		// A run that ends without the set's cut-over cannot be one of a set.
		{func(c *Config) { c.AttemptInstantDDL = true }, "--attempt-instant-ddl with 2 tables: not supported for a set"},
		{func(c *Config) { c.TestOnReplica = true }, "--test-on-replica with 2 tables: not supported for a set"},
		{func(c *Config) { c.MigrateOnReplica = true }, "--migrate-on-replica with 2 tables: not supported for a set"},
	} {
		cfg := with
		c.set(&cfg)
		if got, err := cfg.PerTable(); err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PerTable: %v, %v; want a usage error with %q", got, err, c.want)
		}
	}
}

// Validate takes a --statement in place of --table and --alter, and validates each table of it.
func TestValidateStatement(t *testing.T) {
	base := Default()
	base.Database = "gl"
	for _, c := range []struct {
		name string
		set  func(*Config)
		want string // "" when valid
	}{
		{"one statement", func(c *Config) { c.Statement = "CREATE INDEX i ON t (v)" }, ""},
		{"one statement, instant", func(c *Config) { c.Statement, c.AttemptInstantDDL = "CREATE INDEX i ON t (v)", true }, ""},
		{"two statements", func(c *Config) { c.Statement = "ALTER TABLE a ADD c INT; ALTER TABLE b ADD c INT" }, ""},
		{"with --revert", func(c *Config) {
			c.Statement, c.Revert, c.OldTableName, c.Execute = "ALTER TABLE t ADD c INT", true, "_t_del", true
		}, ""},
		{"with --table", func(c *Config) { c.Statement, c.Table = "ALTER TABLE t ADD c INT", "t" }, "--statement and --table contradict each other"},
		{"with --alter", func(c *Config) { c.Statement, c.Alter = "ALTER TABLE t ADD c INT", "ADD c INT" }, "--statement and --alter contradict each other"},
		{"without --database", func(c *Config) { c.Statement, c.Database = "ALTER TABLE t ADD c INT", "" }, "--statement needs --database"},
		{"a statement refused", func(c *Config) { c.Statement = "ALTER TABLE t ADD c INT; TRUNCATE TABLE u" }, "needs no online migration"},
		{"no statement", func(c *Config) { c.Statement = ";" }, "--statement has no statement"},
		{"a table's own rule", func(c *Config) {
			c.Statement = "ALTER TABLE a ADD c INT; ALTER TABLE " + strings.Repeat("x", 60) + " ADD c INT"
		},
			"too long for its ghost table name"},
		{"another flag's rule", func(c *Config) { c.Statement, c.ChunkSize = "ALTER TABLE t ADD c INT", 5 }, "--chunk-size must be between"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := base
			c.set(&cfg)
			err := cfg.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Validate: %v, want it valid", err)
			case c.want != "" && (err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want)):
				t.Errorf("Validate: %v, want a usage error with %q", err, c.want)
			}
		})
	}
}
