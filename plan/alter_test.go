package plan

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseAlterAccepts(t *testing.T) {
	cases := []struct {
		name, in, body string
		renames        []ColumnRename
	}{
		{"clauses alone", "ADD COLUMN c INT", "ADD COLUMN c INT", nil},
		{"leading ALTER TABLE and semicolon", "ALTER TABLE t ADD COLUMN c INT;", "ADD COLUMN c INT", nil},
		{"qualified and quoted", "alter table `gl`.`t` DROP COLUMN x", "DROP COLUMN x", nil},
		{"online ignore", "ALTER ONLINE IGNORE TABLE t ADD KEY (a)", "ADD KEY (a)", nil},
		{"ALTER COLUMN clause", "ALTER COLUMN c SET DEFAULT 1", "ALTER COLUMN c SET DEFAULT 1", nil},
		{"rename index and key", "RENAME INDEX a TO b, RENAME KEY c TO d", "RENAME INDEX a TO b, RENAME KEY c TO d", nil},
		{"rename column", "RENAME COLUMN a TO b", "RENAME COLUMN a TO b", []ColumnRename{{"a", "b"}}},
		{"change renames", "CHANGE a b INT NOT NULL", "CHANGE a b INT NOT NULL", []ColumnRename{{"a", "b"}}},
		{"change column quoted", "ADD x INT, CHANGE COLUMN `we``ird` `new name` INT",
			"ADD x INT, CHANGE COLUMN `we``ird` `new name` INT", []ColumnRename{{"we`ird", "new name"}}},
		{"change if exists", "CHANGE COLUMN IF EXISTS a b INT", "CHANGE COLUMN IF EXISTS a b INT", []ColumnRename{{"a", "b"}}},
		{"change same name is not a rename", "CHANGE a a BIGINT, CHANGE b B INT", "CHANGE a a BIGINT, CHANGE b B INT", nil},
		{"keywords inside strings", "ADD COLUMN c VARCHAR(10) DEFAULT 'x, RENAME TO y' COMMENT \"change a b\"",
			"ADD COLUMN c VARCHAR(10) DEFAULT 'x, RENAME TO y' COMMENT \"change a b\"", nil},
		{"escaped quotes in strings", `ADD c INT COMMENT 'it\'s, RENAME TO x', ADD d INT COMMENT 'a''b RENAME TO y'`,
			`ADD c INT COMMENT 'it\'s, RENAME TO x', ADD d INT COMMENT 'a''b RENAME TO y'`, nil},
		{"keywords inside comments", "ADD COLUMN c INT /* RENAME TO y */ -- change a b\n, ADD d INT # RENAME TO z",
			"ADD COLUMN c INT /* RENAME TO y */ -- change a b\n, ADD d INT # RENAME TO z", nil},
		{"parentheses", "ADD COLUMN c INT CHECK (c > 0), ADD d DECIMAL(10,2)", "ADD COLUMN c INT CHECK (c > 0), ADD d DECIMAL(10,2)", nil},
		{"two renames", "CHANGE a b INT, RENAME COLUMN c TO d", "CHANGE a b INT, RENAME COLUMN c TO d", []ColumnRename{{"a", "b"}, {"c", "d"}}},
		{"driver dash comment without space", "--\nALTER TABLE t ADD c INT", "ADD c INT", nil},
		{"dash dash without space is not a comment", "ADD c INT DEFAULT 1--1", "ADD c INT DEFAULT 1--1", nil},
		{"empty executable comment runs nothing", "ADD c INT /*!*/", "ADD c INT /*!*/", nil},
		{"algorithm and lock are left to the server", "ADD c INT, ALGORITHM=INPLACE, LOCK=NONE", "ADD c INT, ALGORITHM=INPLACE, LOCK=NONE", nil},
		{"convert to a character set", "CONVERT TO CHARACTER SET utf8mb4", "CONVERT TO CHARACTER SET utf8mb4", nil},
		{"foreign key to another table", "ADD FOREIGN KEY (a) REFERENCES gl.p (id)", "ADD FOREIGN KEY (a) REFERENCES gl.p (id)", nil},
		{"same name in another schema", "ADD FOREIGN KEY (a) REFERENCES other.t (id)", "ADD FOREIGN KEY (a) REFERENCES other.t (id)", nil},
		{"partition words in a comment", "ADD c INT COMMENT 'EXCHANGE PARTITION p WITH TABLE x'", "ADD c INT COMMENT 'EXCHANGE PARTITION p WITH TABLE x'", nil},
		{"partition maintenance kept", "ADD PARTITION (PARTITION p9 VALUES LESS THAN (9)), COALESCE PARTITION 2", "ADD PARTITION (PARTITION p9 VALUES LESS THAN (9)), COALESCE PARTITION 2", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec, err := ParseAlter(c.in, "gl", "t")
			if err != nil {
				t.Fatalf("ParseAlter(%q): %v", c.in, err)
			}
			if spec.Body != c.body {
				t.Errorf("body = %q, want %q", spec.Body, c.body)
			}
			if !reflect.DeepEqual(spec.Renames, c.renames) {
				t.Errorf("renames = %v, want %v", spec.Renames, c.renames)
			}
		})
	}
}

func TestParseAlterRefuses(t *testing.T) {
	cases := []struct{ in, phrase string }{
		{"", "the ALTER is empty"},
		{"EXCHANGE PARTITION p0 WITH TABLE x", "(EXCHANGE PARTITION ... WITH TABLE x)"},
		{"CONVERT PARTITION p0 TO TABLE gl.x", "(CONVERT PARTITION ... TO TABLE gl.x)"},
		{"CONVERT TABLE `x` TO PARTITION p9 VALUES LESS THAN (10)", "(CONVERT TABLE x TO PARTITION)"},
		{"UNION=(a, b) ENGINE=MRG_MyISAM", "UNION of other tables"},
		{"ADD FOREIGN KEY (a) REFERENCES `gl`.`t` (id)", "referencing t itself"},
		{"ADD b INT REFERENCES T (id)", "referencing t itself"},
		{"DROP PARTITION p0", "DROP PARTITION, which deletes"},
		{"truncate partition all", "TRUNCATE PARTITION, which deletes"},
		{"DISCARD PARTITION p0 TABLESPACE", "DISCARD ... TABLESPACE"},
		{"  ;", "the ALTER is empty"},
		{"ALTER TABLE t", "the ALTER is empty"},
		{"ALTER TABLE t;", "the ALTER is empty"},
		{"-- nothing\n", "the ALTER is empty"},
		{"RENAME TO t2", "the ALTER gives t another name"},
		{"RENAME AS t2", "the ALTER gives t another name"},
		{"RENAME t2", "the ALTER gives t another name"},
		{"ADD c INT, RENAME TO `t2`", "the ALTER gives t another name"},
		{"ALTER TABLE other ADD c INT", "names table other but the migration is of gl.t"},
		{"ALTER TABLE otherdb.t ADD c INT", "names table otherdb.t"},
		{"ALTER TABLE T ADD c INT", "names table T"},
		{"ADD c INT; DROP TABLE x", "more than one statement"},
		{"ADD c INT /*!50000 , RENAME TO x */", "executable comment"},
		{"ADD c INT /*M!100000 , RENAME TO x */", "executable comment"},
		{"ADD c INT /*! , RENAME TO x */", "executable comment"},
		{"/*M! ALTER TABLE t */ ADD c INT", "executable comment"},
		{"ADD c INT /*! a /*! b */ */", "executable comment nested"},
		{"ADD c INT COMMENT 'open", "unterminated ' string"},
		{"ADD `c INT", "unterminated `identifier`"},
		{"ADD c INT /* open", "unterminated /* comment"},
		{"ADD c DECIMAL(10,2", "unbalanced '('"},
		{"ADD c INT)", "unbalanced ')'"},
		{"CHANGE a", "CHANGE that is not"},
		{"RENAME COLUMN a b", "RENAME COLUMN that is not"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			_, err := ParseAlter(c.in, "gl", "t")
			if err == nil || !strings.Contains(err.Error(), c.phrase) {
				t.Errorf("ParseAlter(%q) = %v, want an error containing %q", c.in, err, c.phrase)
			}
		})
	}
}

// A column dropped and added again in one ALTER is a new column (recreated), in every spelling;
// an index or key of the same name, or a column only dropped or only added, is not.
func TestParseAlterRecreatedColumns(t *testing.T) {
	cases := map[string][]string{
		"DROP COLUMN c, ADD COLUMN c INT DEFAULT 7":                      {"c"},
		"DROP c, ADD c INT":                                              {"c"},
		"DROP COLUMN IF EXISTS `C`, ADD COLUMN IF NOT EXISTS c INT":      {"c"},
		"DROP COLUMN a, DROP COLUMN b, ADD COLUMN (b INT, a INT, x INT)": {"b", "a"},
		"ADD COLUMN c INT, DROP COLUMN c":                                nil,
		"DROP INDEX c, ADD INDEX c (v)":                                  nil,
		"DROP KEY c, ADD UNIQUE KEY c (v)":                               nil,
		"DROP COLUMN c, ADD d INT DEFAULT 1":                             nil,
		"DROP PRIMARY KEY, ADD PRIMARY KEY (id, c)":                      nil,
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			spec, err := ParseAlter(in, "gl", "t")
			if err != nil {
				t.Fatalf("ParseAlter(%q): %v", in, err)
			}
			if !reflect.DeepEqual(spec.Recreated, want) {
				t.Errorf("ParseAlter(%q).Recreated = %q, want %q", in, spec.Recreated, want)
			}
		})
	}
}
