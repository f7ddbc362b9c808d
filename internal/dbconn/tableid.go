package dbconn

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// TableIDSources are where the identity of a table (a number that survives RENAME and changes
// when the table is re-created) is read, by its name schema/table, as INFORMATION_SCHEMA_TABLE.COLUMN:
// MariaDB's InnoDB table ids, and on MySQL the id of the table's file-per-table tablespace (which a
// RENAME keeps). Not MySQL's INNODB_TABLES: reading it takes a shared metadata lock on every table
// it lists, so it waits behind any pending RENAME (measured on MySQL 9.7), the very state a
// cut-over and its recovery read. NAME is in the server's file-name encoding: plain names match;
// other names, and a table outside a tablespace of its own, are not found.
var TableIDSources = []string{"INNODB_SYS_TABLES.TABLE_ID", "INNODB_TABLESPACES.SPACE"}

// ReadableTableIDSource is the first of TableIDSources that q can read, "" when none.
func ReadableTableIDSource(ctx context.Context, q Querier) string {
	for _, src := range TableIDSources {
		tbl, _, _ := strings.Cut(src, ".")
		var one int
		err := q.QueryRowContext(ctx, "SELECT 1 FROM information_schema."+tbl+" LIMIT 1").Scan(&one)
		if err == nil {
			return src
		}
	}
	return ""
}

// TableID reads the identity of schema.name from src (one of TableIDSources): 0 when not found.
func TableID(ctx context.Context, q Querier, src, schema, name string) (int64, error) {
	tbl, col, _ := strings.Cut(src, ".")
	var id int64
	err := q.QueryRowContext(ctx, "SELECT "+col+" FROM information_schema."+tbl+" WHERE NAME = ?", schema+"/"+name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read table id of %s.%s: %w", schema, name, err)
	}
	return id, nil
}
