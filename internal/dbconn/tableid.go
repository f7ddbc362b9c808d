package dbconn

import (
	"context"
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
//
// Names compare exactly: information_schema compares them case-insensitively, so CASEU and caseu
// of one schema (on a case-sensitive server) would both match "caseu". Only where the server
// lists no exact match does the name in lower case count (lower_case_table_names=1 and 2 store
// InnoDB names in lower case). A partitioned table is listed once per partition (name#P#part,
// name#p#part); its identity is the least of its partitions'.
func TableID(ctx context.Context, q Querier, src, schema, name string) (int64, error) {
	tbl, col, _ := strings.Cut(src, ".")
	full := schema + "/" + name
	rows, err := q.QueryContext(ctx, "SELECT NAME, "+col+" FROM information_schema."+tbl+" WHERE NAME = ? OR NAME LIKE ?",
		full, likeEscape(full)+"#P#%")
	if err != nil {
		return 0, fmt.Errorf("read table id of %s.%s: %w", schema, name, err)
	}
	defer rows.Close()
	var exact, lower int64
	for rows.Next() {
		var got string
		var id int64
		if err := rows.Scan(&got, &id); err != nil {
			return 0, fmt.Errorf("read table id of %s.%s: %w", schema, name, err)
		}
		base := got
		if i := strings.Index(strings.ToUpper(got), "#P#"); i >= 0 {
			base = got[:i]
		}
		switch {
		case base == full:
			exact = leastID(exact, id)
		case base == strings.ToLower(full):
			lower = leastID(lower, id)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("read table id of %s.%s: %w", schema, name, err)
	}
	if exact != 0 {
		return exact, nil
	}
	return lower, nil
}

func leastID(cur, id int64) int64 {
	if cur == 0 || id < cur {
		return id
	}
	return cur
}

// likeEscape escapes LIKE's wildcards (and its escape character) in s.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
