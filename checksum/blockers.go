package checksum

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// The checksum's read lock (LOCK TABLES ... READ) waits on the original's metadata lock: a
// session with an open transaction that wrote or locked rows of the original (SELECT ... FOR
// UPDATE) holds it until it ends. When the lock times out, the log names those sessions so that
// an operator can end them: from performance_schema.metadata_locks where it shows metadata locks
// (the cut-over's checks need it too), else the InnoDB transactions that hold locks
// (information_schema.INNODB_TRX, both flavors; it cannot tell on which table).

// isLockWait is the server's lock wait timeout (1205), of a metadata lock or of a row lock.
func isLockWait(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1205
}

// blockers describes the sessions that may keep the original locked, "" when none is found.
func (c *Checksum) blockers(ctx context.Context) string {
	q, args := `SELECT trx_mysql_thread_id, COALESCE(trx_query, ''), CONCAT('an open transaction since ', trx_started)
		FROM information_schema.INNODB_TRX WHERE trx_tables_locked > 0 AND trx_mysql_thread_id <> CONNECTION_ID()`, []any(nil)
	if ok, _ := dbconn.MetadataLocksVisible(ctx, c.db); ok {
		q = `SELECT DISTINCT t.PROCESSLIST_ID, COALESCE(t.PROCESSLIST_INFO, s.SQL_TEXT, ''), CONCAT('holds ', m.LOCK_TYPE, ' on the table')
			FROM performance_schema.metadata_locks m
			JOIN performance_schema.threads t ON t.THREAD_ID = m.OWNER_THREAD_ID
			LEFT JOIN performance_schema.events_statements_current s ON s.THREAD_ID = t.THREAD_ID
			WHERE m.OBJECT_TYPE = 'TABLE' AND m.OBJECT_SCHEMA = ? AND m.OBJECT_NAME = ? AND m.LOCK_STATUS = 'GRANTED'
			AND t.PROCESSLIST_ID IS NOT NULL AND t.PROCESSLIST_ID <> CONNECTION_ID()`
		args = []any{c.cfg.Original.Schema, c.cfg.Original.Name}
	}
	rows, err := c.db.QueryContext(ctx, q, args...)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	defer func() { _ = rows.Close() }()
	var out []string
	for rows.Next() {
		var id int64
		var stmt, what string
		if err := rows.Scan(&id, &stmt, &what); err != nil {
			return "unknown (" + err.Error() + ")"
		}
		switch {
		case stmt == "":
			what += "; its statement is not known"
		case len(stmt) > 200:
			stmt = stmt[:200] + "..."
			fallthrough
		default:
			what += fmt.Sprintf("; statement: %q", stmt)
		}
		out = append(out, fmt.Sprintf("session %d (%s)", id, what))
	}
	return strings.Join(out, ", ")
}
