package binlogapply

import "testing"

// TestWritesTable: which statements logged as text write rows of gl.t (default schema gl).
func TestWritesTable(t *testing.T) {
	cases := []struct {
		q    string
		want bool
	}{
		{"INSERT INTO t VALUES (1)", true},
		{"insert low_priority ignore into `gl`.`t` (id) values (1)", true},
		{"REPLACE t SET id = 1", true},
		{"INSERT INTO x SELECT * FROM t", false},
		{"INSERT INTO other.t VALUES (1)", false},
		{"UPDATE t SET v = 1", true},
		{"UPDATE x JOIN t ON x.id = t.id SET x.v = 1", true}, // a multi-table update may write t: a false stop is safe
		{"UPDATE x SET v = (SELECT 1) WHERE id IN (SELECT id FROM t)", false},
		{"DELETE FROM t WHERE id = 1", true},
		{"DELETE x FROM x JOIN gl.t USING (id)", true},
		{"DELETE FROM x WHERE id IN (SELECT id FROM t)", false},
		{"LOAD DATA INFILE '/tmp/f' INTO TABLE t", true},
		{"LOAD DATA INFILE '/tmp/t' INTO TABLE x", false},
		{"SET STATEMENT max_statement_time = 1 FOR UPDATE t SET v = 1", true},
		{"/*!40000 INSERT INTO t VALUES (1) */", true},
		{"WITH c AS (SELECT 1) UPDATE t SET v = 1", true},
		{"INSERT INTO `t VALUES (1)", true}, // unreadable: t is mentioned
		{"ALTER TABLE t ADD c INT", false},  // DDL is ddlwatch's
		{"UPDATE tt SET t = 1", false},
	}
	for _, c := range cases {
		if got := writesTable(c.q, "gl", "gl", "t"); got != c.want {
			t.Errorf("writesTable(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}
