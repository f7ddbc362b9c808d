package binlogapply

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Under PARTIAL_JSON MySQL logs every update as a partial update event, JSON column or not: the
// events of a table without a JSON column carry whole row images and are applied as updates.
func TestMySQLPartialUpdateEventsWithoutJSONApplied(t *testing.T) {
	testenv.OnlyMySQL(t, "binlog_row_value_options is MySQL's")
	f := newFixture(t, "mysqlopt1", `CREATE TABLE %s (id INT PRIMARY KEY, v VARCHAR(64), n INT UNSIGNED)`, fixtureOpts{})
	f.exec("INSERT INTO {T} VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
	f.copyNow("id, v, n")
	f.onOneConn("SET SESSION binlog_row_value_options = 'PARTIAL_JSON'",
		"UPDATE {T} SET v = CONCAT(v, 'x'), n = 4294967295 WHERE id <= 2", "UPDATE {T} SET id = 7 WHERE id = 3")
	f.sentinel(20 * time.Second)
	orig, ghost := f.mappedColumns()
	f.compare(orig, ghost, "id", "id")
}

// Compressed transactions (binlog_transaction_compression=ON, MySQL 8.0.20+) are decoded and
// applied like any others: inserts, updates and deletes of the original, in transactions of one
// and of many statements, beside writes to another table in the same transaction, and a
// transaction that touches only another table; applied with the batch path and the statement
// path, the ghost equals the original.
func TestMySQLCompressedTransactionsApplied(t *testing.T) {
	testenv.OnlyMySQL(t, "binlog_transaction_compression is MySQL's")
	for i, oneByOne := range []bool{false, true} {
		t.Run(fmt.Sprintf("statementByStatement=%v", oneByOne), func(t *testing.T) {
			f := newFixture(t, fmt.Sprintf("compressed%d", i), `CREATE TABLE %s (id INT PRIMARY KEY, v VARCHAR(64), j JSON)`,
				fixtureOpts{statementByStatement: oneByOne})
			f.exec("CREATE TABLE IF NOT EXISTS other_compressed (id INT PRIMARY KEY)", "DELETE FROM other_compressed")
			f.onOneConn("SET SESSION binlog_transaction_compression = ON",
				`INSERT INTO {T} VALUES (1, 'a', _utf8mb4'{"x": 1}'), (2, 'b', NULL), (3, REPEAT('c', 60), _utf8mb4'[1, 2]')`,
				"UPDATE {T} SET v = 'bb', j = JSON_OBJECT(_utf8mb4'k', 2) WHERE id = 2",
				"DELETE FROM {T} WHERE id = 1",
				"INSERT INTO other_compressed VALUES (1)",
				"BEGIN", "INSERT INTO {T} VALUES (4, 'd', NULL)", "INSERT INTO other_compressed VALUES (2)",
				"UPDATE {T} SET v = 'dd' WHERE id = 4", "COMMIT")
			f.sentinel(20 * time.Second)
			orig, ghost := f.mappedColumns()
			f.compare(orig, ghost, "id", "id")
			if n := testenv.CountRows(t, f.db, testSchema, f.ghost); n != 3 {
				t.Fatalf("ghost has %d rows, want 3", n)
			}
		})
	}
}
