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
