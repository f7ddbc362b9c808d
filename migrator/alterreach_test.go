package migrator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The schema of TestAlterReachesNoOtherTable: a plain table t, a partitioned table tp, and other
// tables the ALTER clauses can name (vx, vy: candidates for a partition exchange or conversion,
// p: a parent for foreign keys, mx: a MyISAM table for a MERGE union).
var reachSchema = []string{
	"CREATE TABLE t (id INT NOT NULL PRIMARY KEY, pid INT NULL, v INT NOT NULL) ENGINE=InnoDB",
	"INSERT INTO t SELECT seq, 1 + seq % 10, seq FROM seq_1_to_500",
	`CREATE TABLE tp (id INT NOT NULL PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB PARTITION BY RANGE (id)
	 (PARTITION p0 VALUES LESS THAN (1000), PARTITION p1 VALUES LESS THAN (2000), PARTITION p2 VALUES LESS THAN (3000))`,
	"INSERT INTO tp SELECT seq, seq FROM seq_1_to_2999",
	"CREATE TABLE vx (id INT NOT NULL PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB",
	"INSERT INTO vx SELECT seq, seq FROM seq_1_to_500",
	"CREATE TABLE vy (id INT NOT NULL PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB",
	"INSERT INTO vy SELECT seq, seq FROM seq_3000_to_3400",
	"CREATE TABLE p (id INT NOT NULL PRIMARY KEY) ENGINE=InnoDB",
	"INSERT INTO p SELECT seq FROM seq_1_to_10",
	"CREATE TABLE mx (id INT NOT NULL PRIMARY KEY, pid INT NULL, v INT NOT NULL) ENGINE=MyISAM",
	"INSERT INTO mx SELECT seq, seq, seq FROM seq_1_to_50",
}

// reachCase is an ALTER clause that can name another table. refusal is the phrase of the one-line
// refusal, "" where the migration goes through.
type reachCase struct {
	tbl, alter, refusal string
}

var reachCases = []reachCase{
	{"tp", "EXCHANGE PARTITION p0 WITH TABLE vx", "the ALTER exchanges a partition with another table (EXCHANGE PARTITION ... WITH TABLE vx)"},
	{"tp", "EXCHANGE PARTITION p0 WITH TABLE `" + prepareDB + "`.vx WITHOUT VALIDATION", "EXCHANGE PARTITION ... WITH TABLE " + prepareDB + ".vx"},
	{"tp", "/* c */ exchange partition p0 with table vx", "EXCHANGE PARTITION"},
	{"tp", "CONVERT TABLE vy TO PARTITION p3 VALUES LESS THAN (4000)", "the ALTER converts another table into a partition (CONVERT TABLE vy TO PARTITION)"},
	{"tp", "CONVERT PARTITION p2 TO TABLE vz", "the ALTER converts a partition into a table of its own (CONVERT PARTITION ... TO TABLE vz)"},
	{"tp", "DROP PARTITION p0", "the ALTER has DROP PARTITION, which deletes the partition's rows"},
	{"tp", "TRUNCATE PARTITION p1", "the ALTER has TRUNCATE PARTITION"},
	{"tp", "ADD PARTITION (PARTITION p3 VALUES LESS THAN (4000))", ""},
	{"tp", "REORGANIZE PARTITION p1, p2 INTO (PARTITION p12 VALUES LESS THAN (3000))", ""},
	{"tp", "REMOVE PARTITIONING", ""},
	{"t", "RENAME TO vw", "alter statement seems to RENAME the table"},
	{"t", "RENAME AS vx", "alter statement seems to RENAME the table"},
	{"t", "ADD c INT, RENAME " + prepareDB + ".vw", "alter statement seems to RENAME the table"},
	{"t", "ADD CONSTRAINT fk_self FOREIGN KEY (pid) REFERENCES t (id)", "the ALTER adds a foreign key referencing t itself"},
	{"t", "ADD COLUMN sid INT NULL REFERENCES `" + prepareDB + "`.`T` (id)", "the ALTER adds a foreign key referencing t itself"},
	{"t", "ADD CONSTRAINT fk_p FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE", ""},
	{"t", "UNION=(mx), ENGINE=MRG_MyISAM", "the ALTER gives the table a UNION of other tables"},
	{"t", "ENGINE=CONNECT TABLE_TYPE=CSV FILE_NAME='gl_reach.csv'", "the ALTER makes the table use the CONNECT engine"},
	{"t", "CONNECTION='mysql://ghostlite:ghostlite@127.0.0.1/" + prepareDB + "/vx'", "the ALTER gives the table a CONNECTION"},
	{"t", "ENGINE = 'FEDERATED'", "the ALTER makes the table use the FEDERATED engine"},
	{"t", "ENGINE=innodb", ""},
	{"t", "DISCARD TABLESPACE", "the ALTER has DISCARD ... TABLESPACE"},
	{"t", "IMPORT TABLESPACE", "the ALTER has IMPORT ... TABLESPACE"},
}

// TestAlterReachesNoOtherTable walks every ALTER clause of the server's grammar that can name
// another table (partition exchange and conversion, RENAME, foreign keys, a MERGE union) and the
// partition maintenance clauses, through a dry run and a real run: a refused clause is refused in
// one line before anything is created, and every other table of the schema keeps its rows
// (count and checksum) and nothing new is left; a clause that goes through migrates the table
// with every row.
func TestAlterReachesNoOtherTable(t *testing.T) {
	for _, c := range reachCases {
		for _, execute := range []bool{false, true} {
			mode := "dry run"
			if execute {
				mode = "execute"
			}
			t.Run(fmt.Sprintf("%s %s %s", c.tbl, c.alter, mode), func(t *testing.T) {
				db := testenv.Database(t, prepareDB)
				testenv.Exec(t, db, reachSchema...)
				before := captureState(t, db)
				cfg := testConfig(t, prepareDB, c.tbl, c.alter, nil)
				if execute {
					live(&cfg)
					cfg.OkToDropTable = true
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				err := mustNew(t, cfg).Run(ctx)
				switch {
				case c.refusal == "" && err != nil:
					t.Fatalf("the migration failed: %v", err)
				case c.refusal != "" && (err == nil || !strings.Contains(err.Error(), c.refusal)):
					t.Fatalf("got %v, want a refusal saying %q", err, c.refusal)
				case err != nil && strings.Contains(err.Error(), "\n"):
					t.Errorf("the refusal is not one line: %q", err)
				}
				// Every table keeps its rows, the migrated one too; no table is added or removed.
				assertUnchanged(t, db, before, c.tbl)
			})
		}
	}
}
