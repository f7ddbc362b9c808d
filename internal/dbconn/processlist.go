package dbconn

import "context"

// Processlist tables: where other sessions' ID, STATE and INFO are read.
const (
	performanceProcesslist = "performance_schema.processlist"
	informationProcesslist = "information_schema.PROCESSLIST"
)

// ProcesslistTable is the table to read other sessions' ID, STATE and INFO from on q's server:
// performance_schema.processlist where it shows this very session (MySQL 8.0.22 and later with
// performance_schema on), else information_schema.PROCESSLIST. On MySQL the latter's INFO column is
// utf8mb3, and reading any row of it fails (error 3854, "Cannot convert string ... from utf8mb4 to
// utf8mb3") while any session runs a statement holding a 4-byte character: an application's
// emoji would fail the cut-over's checks. MariaDB has no such table and converts that text
// without failing.
func ProcesslistTable(ctx context.Context, q Querier) string {
	var mine int
	err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+performanceProcesslist+" WHERE ID = CONNECTION_ID()").Scan(&mine)
	if err == nil && mine == 1 {
		return performanceProcesslist
	}
	return informationProcesslist
}
