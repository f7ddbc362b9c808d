package binlogapply

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const txnTableDDL = `CREATE TABLE %s (id INT PRIMARY KEY, v INT, pad VARCHAR(100))`

// newTxnFixture is a fixture on txnTableDDL with rows 1..n and a MyISAM table {M} beside it: a
// transaction that touches a non-transactional table makes the server log the row events that a
// rollback undoes.
func newTxnFixture(t *testing.T, name string, n int, o fixtureOpts) *fixture {
	t.Helper()
	f := newFixture(t, name, txnTableDDL, o)
	testenv.Exec(t, f.db, fmt.Sprintf("CREATE TABLE %s (id INT) ENGINE=MyISAM", f.nonTxn()))
	f.exec(fmt.Sprintf(`INSERT INTO {T} SELECT seq, 0, 'p' FROM seq_1_to_%d`, n))
	if f.app != nil {
		f.sentinel(20 * time.Second)
	}
	return f
}

// mysqlLogsNoRollback is the flavor limit of the tests that log rolled-back row events.
const mysqlLogsNoRollback = "with gtid_mode=ON MySQL refuses a non-transactional table in a transaction (error 1785), " +
	"so it never logs row events that a ROLLBACK undoes"

func (f *fixture) nonTxn() string { return table.Qualify(testSchema, f.orig+"_nt") }

// onOneConn runs stmts in order on one connection ({T}: the original, {M}: the MyISAM table).
func (f *fixture) onOneConn(stmts ...string) {
	f.t.Helper()
	c := f.conn()
	defer c.Close()
	c.run(stmts...)
}

// session is one connection held out of the pool.
type session struct {
	f    *fixture
	conn *sql.Conn
}

func (f *fixture) conn() *session {
	f.t.Helper()
	conn, err := f.db.Conn(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return &session{f: f, conn: conn}
}

func (s *session) Close() { s.conn.Close() }

func (s *session) run(stmts ...string) {
	s.f.t.Helper()
	for _, q := range stmts {
		q = strings.NewReplacer("{T}", table.Qualify(testSchema, s.f.orig), "{M}", s.f.nonTxn()).Replace(q)
		if _, err := s.conn.ExecContext(context.Background(), q); err != nil {
			s.f.t.Fatalf("%s: %v", q, err)
		}
	}
}

// requireLogged fails unless an event whose text starts with prefix was logged since the start:
// the test really exercises what it names.
func (f *fixture) requireLogged(prefix string) {
	f.t.Helper()
	rows, err := f.db.Query(fmt.Sprintf("SHOW BINLOG EVENTS IN '%s' FROM %d", f.cfg.Start.File, f.cfg.Start.Pos))
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	var info string
	for i := range vals {
		vals[i] = new(any)
	}
	vals[len(cols)-1] = &info
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			f.t.Fatal(err)
		}
		if strings.HasPrefix(info, prefix) {
			return
		}
	}
	f.t.Fatalf("no %q event in the binary log since %s: the test does not exercise it", prefix, f.cfg.Start)
}

func (f *fixture) compareTxn() {
	f.t.Helper()
	f.sentinel(20 * time.Second)
	cols := []string{"id", "v", "pad"}
	f.compare(cols, cols, "id", "id")
}

// Changes rolled back to a savepoint are logged (a MyISAM table was touched) and never applied;
// savepoints nest, and the changes before the savepoint and after the rollback are applied.
func TestSavepointRollbackToNotApplied(t *testing.T) {
	testenv.OnlyMariaDB(t, mysqlLogsNoRollback)
	f := newTxnFixture(t, "sp_rollback", 10, fixtureOpts{})
	f.onOneConn(`BEGIN`,
		`UPDATE {T} SET v = 1 WHERE id = 1`,
		`SAVEPOINT s1`,
		`UPDATE {T} SET v = 99 WHERE id = 2`,
		`INSERT INTO {M} VALUES (1)`,
		`DELETE FROM {T} WHERE id = 3`,
		`SAVEPOINT s2`,
		`UPDATE {T} SET v = 98 WHERE id = 4`,
		`ROLLBACK TO SAVEPOINT s1`,
		`UPDATE {T} SET v = 2 WHERE id = 5`,
		`SAVEPOINT s3`,
		`INSERT INTO {T} VALUES (11, 11, 'n')`,
		`INSERT INTO {M} VALUES (2)`,
		`ROLLBACK TO s3`,
		`INSERT INTO {T} VALUES (12, 12, 'n')`,
		`COMMIT`)
	f.requireLogged("ROLLBACK TO")
	f.compareTxn()
}

// A transaction logged with its row events and a final ROLLBACK is not applied: a rollback to a
// savepoint set before any change, and an XA transaction rolled back before XA PREPARE.
func TestLoggedRollbackNotApplied(t *testing.T) {
	testenv.OnlyMariaDB(t, mysqlLogsNoRollback)
	f := newTxnFixture(t, "rollback", 10, fixtureOpts{})
	f.onOneConn(`BEGIN`, `SAVEPOINT s0`,
		`UPDATE {T} SET v = 99 WHERE id <= 3`, `INSERT INTO {M} VALUES (1)`, `DELETE FROM {T} WHERE id = 4`,
		`ROLLBACK TO s0`, `UPDATE {T} SET v = 5 WHERE id = 5`, `COMMIT`)
	f.onOneConn(`XA START 'rb'`, `UPDATE {T} SET v = 97 WHERE id = 6`, `INSERT INTO {M} VALUES (2)`,
		`XA END 'rb'`, `XA ROLLBACK 'rb'`)
	f.requireLogged("ROLLBACK")
	f.compareTxn()
}

// XA transactions: a prepared one is applied at its XA COMMIT (after changes made meanwhile by
// others) even across a reconnection, a prepared one rolled back is not, and XA COMMIT ONE PHASE
// is an ordinary commit.
func TestXATransactions(t *testing.T) {
	testenv.Serial(t) // a prepared XA transaction refuses every migration's start
	f := newTxnFixture(t, "xa", 10, fixtureOpts{useGTID: true, noStart: true})
	var dropped atomic.Int32
	f.afterEvent = func(ev *replication.BinlogEvent) error {
		if ev.Header.EventType == replication.XA_PREPARE_LOG_EVENT && dropped.Add(1) == 1 {
			return errors.New("test: connection dropped after XA PREPARE")
		}
		return nil
	}
	f.start()
	xa := f.conn() // a prepared transaction stays with its session
	defer xa.Close()
	t.Cleanup(func() { _, _ = f.db.Exec(`XA ROLLBACK 'c1'`); _, _ = f.db.Exec(`XA ROLLBACK 'r1'`) })
	xa.run(`XA START 'c1'`, `UPDATE {T} SET v = 1 WHERE id = 1`, `DELETE FROM {T} WHERE id = 2`,
		`XA END 'c1'`, `XA PREPARE 'c1'`)
	f.exec(`UPDATE {T} SET v = 3 WHERE id = 3`)
	xa.run(`XA COMMIT 'c1'`)
	xa.run(`XA START 'r1'`, `UPDATE {T} SET v = 99 WHERE id = 4`, `INSERT INTO {T} VALUES (20, 20, 'x')`,
		`XA END 'r1'`, `XA PREPARE 'r1'`)
	f.exec(`UPDATE {T} SET v = 5 WHERE id = 5`)
	xa.run(`XA ROLLBACK 'r1'`)
	f.onOneConn(`XA START 'o1'`, `UPDATE {T} SET v = 6 WHERE id = 6`, `XA END 'o1'`, `XA COMMIT 'o1' ONE PHASE`)
	f.requireLogged("XA ROLLBACK")
	f.compareTxn()
	if s := f.app.Stats(); s.Reconnects < 1 || dropped.Load() < 2 {
		t.Errorf("the connection was not dropped after XA PREPARE: stats %+v", s)
	}
}

// A connection lost right after a SAVEPOINT resumes at the start of the unfinished transaction,
// so the changes after the savepoint are applied (with GTID and with file/position).
func TestReconnectAfterSavepoint(t *testing.T) {
	for i, useGTID := range []bool{true, false} {
		t.Run(fmt.Sprintf("gtid=%v", useGTID), func(t *testing.T) {
			f := newTxnFixture(t, fmt.Sprintf("sp_reconnect%d", i), 500,
				fixtureOpts{useGTID: useGTID, noStart: true})
			var dropped atomic.Int32
			f.afterEvent = func(ev *replication.BinlogEvent) error {
				if q, ok := ev.Event.(*replication.QueryEvent); ok && strings.HasPrefix(string(q.Query), "SAVEPOINT") &&
					dropped.Add(1) == 1 {
					return errors.New("test: connection dropped after SAVEPOINT")
				}
				return nil
			}
			f.start()
			f.onOneConn(`BEGIN`, `UPDATE {T} SET v = 1 WHERE id <= 250`, `SAVEPOINT s1`,
				`UPDATE {T} SET v = v + 10`, `DELETE FROM {T} WHERE id % 7 = 0`, `COMMIT`)
			f.requireLogged("SAVEPOINT")
			f.compareTxn()
			if s := f.app.Stats(); s.Reconnects < 1 || dropped.Load() < 1 {
				t.Errorf("the connection was not dropped after SAVEPOINT: stats %+v", s)
			}
		})
	}
}

// A transaction larger than MaxTxnBytes that cannot roll back (InnoDB only: MariaDB flags its
// group, MySQL under gtid_mode=ON never logs a rollback) is streamed, and a connection lost in its
// middle skips what was already queued; one that may still roll back stops Run with a message
// instead of being applied early: a MyISAM table is touched on MariaDB, an XA transaction is
// prepared on MySQL (which refuses MyISAM in a transaction under GTIDs, error 1785).
func TestLargeTransaction(t *testing.T) {
	testenv.Serial(t) // a prepared XA transaction refuses every migration's start
	f := newTxnFixture(t, "large_txn", 2000, fixtureOpts{noStart: true})
	f.cfg.MaxTxnBytes = 20000
	var rowsEvents atomic.Int32
	f.afterEvent = func(ev *replication.BinlogEvent) error {
		// Count only this test's own row events: other packages' tests write to the same server.
		re, isRows := ev.Event.(*replication.RowsEvent)
		if !isRows || string(re.Table.Table) != f.orig {
			return nil
		}
		if k, ok := rowsKind(ev.Header.EventType); ok && k == chUpdate && rowsEvents.Add(1) == 3 {
			return errors.New("test: connection dropped inside a streamed transaction")
		}
		return nil
	}
	f.start()
	f.onOneConn(`BEGIN`, `UPDATE {T} SET v = v + 1`, `DELETE FROM {T} WHERE id % 5 = 0`,
		`UPDATE {T} SET v = v * 3 WHERE id % 2 = 0`, `COMMIT`)
	f.compareTxn()
	if f.app.skippedRows.Load() == 0 {
		t.Errorf("no row skipped after the connection was lost in the streamed transaction (stats %+v)", f.app.Stats())
	}
	if f.flavor.MariaDB {
		f.onOneConn(`BEGIN`, `SAVEPOINT s0`, `UPDATE {T} SET v = v + 1`, `INSERT INTO {M} VALUES (1)`, `COMMIT`)
	} else {
		t.Cleanup(func() { _, _ = f.db.Exec(`XA ROLLBACK 'large'`) })
		f.onOneConn(`XA START 'large'`, `UPDATE {T} SET v = v + 1`, `XA END 'large'`, `XA PREPARE 'large'`)
	}
	err := f.runError(20 * time.Second)
	if !strings.Contains(err.Error(), "too large to hold") {
		t.Errorf("Run failed with %v, want a transaction too large to hold", err)
	}
}

func TestParseTxnControl(t *testing.T) {
	x1 := xidKey(1, []byte("x1"), nil)
	cases := []struct {
		q    string
		want txnStmt
	}{
		{"BEGIN", txnStmt{kind: txnBegin}},
		{"START TRANSACTION", txnStmt{kind: txnBegin}},
		{"XA START X'6c61726765',X'',1", txnStmt{kind: txnXAStart}},
		{"COMMIT", txnStmt{kind: txnCommit}},
		{"ROLLBACK", txnStmt{kind: txnRollback}},
		{"SAVEPOINT `S 1`", txnStmt{kind: txnSavepoint, name: "s 1"}},
		{"SAVEPOINT `a``b`", txnStmt{kind: txnSavepoint, name: "a`b"}},
		{"ROLLBACK TO `s1`", txnStmt{kind: txnRollbackTo, name: "s1"}},
		{"ROLLBACK WORK TO SAVEPOINT s1", txnStmt{kind: txnRollbackTo, name: "s1"}},
		{"XA END X'7831',X'',1", txnStmt{kind: txnXAEnd}},
		{"XA COMMIT X'7831',X'',1", txnStmt{kind: txnXACommit, xid: x1}},
		{"XA COMMIT 'x1'", txnStmt{kind: txnXACommit, xid: x1}},
		{"XA ROLLBACK X'7831',X'',1", txnStmt{kind: txnXARollback, xid: x1}},
		{"XA COMMIT 'x1' ONE PHASE", txnStmt{kind: txnCommit}},
		{"XA COMMIT X'7831',X'6271',7", txnStmt{kind: txnXACommit, xid: xidKey(7, []byte("x1"), []byte("bq"))}},
		{"ROLLBACK TO", txnStmt{kind: txnOther}},
		{"COMMIT_X", txnStmt{kind: txnOther}},
		{"ALTER TABLE t ADD c INT", txnStmt{kind: txnOther}},
		{"SAVEPOINTS", txnStmt{kind: txnOther}},
	}
	for _, c := range cases {
		if got := parseTxnControl(c.q); got != c.want {
			t.Errorf("parseTxnControl(%q) = %+v, want %+v", c.q, got, c.want)
		}
	}
	// The XA_prepare event's body names the same xid as the XA COMMIT statement.
	body := []byte{0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 'x', '1'}
	if key, one, err := xaPrepare(body); err != nil || one || key != x1 {
		t.Errorf("xaPrepare = %q, %v, %v; want %q", key, one, err, x1)
	}
	if _, _, err := xaPrepare(body[:14]); err == nil {
		t.Error("xaPrepare accepted a truncated event")
	}
}
