package dbconn

import (
	"context"
	"database/sql"
	"time"
)

// Querier is what reading the server needs: *sql.DB, *sql.Conn and *sql.Tx all satisfy it.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// CeilSeconds is d in whole seconds, rounded up, and at least 1: the unit of session timeouts
// such as lock_wait_timeout and wait_timeout, where 0 would not mean "no wait".
func CeilSeconds(d time.Duration) int64 {
	if s := int64((d + time.Second - 1) / time.Second); s > 1 {
		return s
	}
	return 1
}

// DeprecationWarning is true for the warnings that say a name in the statement is deprecated
// (1287, and MySQL's 3719 for the utf8 alias and 3778 for a utf8mb3 collation): MySQL raises 1287
// for every CONVERT(... USING utf8mb3) and COLLATE utf8mb3_..., which the tool writes for the
// columns of that charset. They are about the statement's text, never about a value. And MySQL's
// 4095, a date string whose delimiter is deprecated ('1999.000' into a DATE): the value is read
// and stored as the server's own ALTER stores it, which warns the same even in strict mode
// (measured on MySQL 9.7); a value it changes raises its own warning. (MariaDB's 4095 is an
// error of stored packages, never a row's warning.)
func DeprecationWarning(level string, code int) bool {
	return level == "Warning" && (code == 1287 || code == 3719 || code == 3778 || code == 4095)
}
