package dbconn

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync"
)

// The session settings every connection of the tool sets for itself instead of inheriting the
// server's globals (doc/requirements.md lists each global and what the tool does with it):
//
//   - autocommit=1: every statement the tool runs outside an explicit transaction commits (a
//     global autocommit=0 left the sentinel and the copied chunks uncommitted);
//   - transaction isolation REPEATABLE READ: a copied chunk reads committed rows only (READ
//     UNCOMMITTED would copy a row that is rolled back later, never in the binlog), and the
//     checksum's consistent snapshot is a snapshot (it also sets the level itself);
//   - wait_timeout and interactive_timeout at the servers' default (8 hours): a short global one
//     would drop a pool's idle session, or a dedicated session between two steps (sessions that need
//     another value, the cut-over's lock and the table lock, set theirs afterwards);
//   - no statement time limit (MySQL's max_execution_time, MariaDB's max_statement_time): a global
//     limit would kill the chunker's and the checksum's long SELECTs;
//   - MariaDB's innodb_snapshot_isolation OFF, where the server has it (ON by default from 11.6):
//     the copy's INSERT IGNORE ... SELECT, a consistent read, meets ghost rows the applier wrote
//     after the statement's read view, which it must skip (copier/copycheck.go); snapshot isolation
//     fails the statement with error 1020 (Record has changed since last read) instead.
//
// The rest is the DSN's (dbconn.go): time zone, character set, sql_mode, max_error_count. The
// isolation and the time limit are named differently by each flavor, so they are set once the
// first connection has said which server it is (sessionSetup).

// SessionTimeout is the wait_timeout and interactive_timeout of the tool's sessions, in seconds.
const SessionTimeout = 28800

// IsolationVariable is the name of the transaction isolation variable: tx_isolation on MariaDB
// before 11.1 (which renamed it), transaction_isolation elsewhere.
func (f Flavor) IsolationVariable() string {
	if f.MariaDB && !f.atLeast(11, 1) {
		return "tx_isolation"
	}
	return "transaction_isolation"
}

// StatementTimeVariable is the name of the statement time limit: MariaDB's max_statement_time
// (seconds, every statement), MySQL's max_execution_time (milliseconds, read-only SELECTs).
func (f Flavor) StatementTimeVariable() string {
	if f.MariaDB {
		return "max_statement_time"
	}
	return "max_execution_time"
}

// SessionSettingsSQL is the statement that gives a session the flavor-dependent settings above.
func (f Flavor) SessionSettingsSQL() string {
	return "SET SESSION " + f.IsolationVariable() + " = 'REPEATABLE-READ', SESSION " + f.StatementTimeVariable() + " = 0"
}

// sessionSetup runs the flavor's SessionSettingsSQL on each new connection of a pool; the flavor
// is read from the pool's first connection.
type sessionSetup struct {
	mu   sync.Mutex
	stmt string
}

func (s *sessionSetup) apply(ctx context.Context, conn driver.Conn) error {
	stmt, err := s.statement(ctx, conn)
	if err != nil {
		return err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		return fmt.Errorf("set the session's settings: the driver cannot run statements")
	}
	if _, err := ex.ExecContext(ctx, stmt, nil); err != nil {
		return fmt.Errorf("set the session's settings (%s): %w", stmt, err)
	}
	return nil
}

func (s *sessionSetup) statement(ctx context.Context, conn driver.Conn) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stmt != "" {
		return s.stmt, nil
	}
	q, ok := conn.(driver.QueryerContext)
	if !ok {
		return "", fmt.Errorf("read server version: the driver cannot run queries")
	}
	vals, err := queryRow(ctx, q, "SELECT @@version, @@version_comment", 2)
	if err != nil {
		return "", fmt.Errorf("read server version: %w", err)
	}
	f, err := ParseFlavor(text(vals[0]), text(vals[1]))
	if err != nil {
		return "", err
	}
	s.stmt = f.SessionSettingsSQL()
	if f.MariaDB { // the variable exists from 10.6.18, 10.11.8, 11.4.2, ...: ask the server
		if _, err := queryRow(ctx, q, "SELECT @@innodb_snapshot_isolation", 1); err == nil {
			s.stmt += ", SESSION innodb_snapshot_isolation = OFF"
		}
	}
	return s.stmt, nil
}

// queryRow reads the first row (n columns) of query on a driver connection.
func queryRow(ctx context.Context, q driver.QueryerContext, query string, n int) ([]driver.Value, error) {
	rows, err := q.QueryContext(ctx, query, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }()
	vals := make([]driver.Value, n)
	if err := rows.Next(vals); err != nil {
		return nil, err
	}
	return vals, nil
}

func text(v driver.Value) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}
