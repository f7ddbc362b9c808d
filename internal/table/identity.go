package table

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"
)

// InnoDBTableID reads the InnoDB table id of schema.name from information_schema.<source>
// (INNODB_SYS_TABLES on MariaDB, INNODB_TABLES on MySQL): the id survives RENAME and changes when
// the table is re-created. It returns 0 when no such table is listed (a name in the server's
// file-name encoding is not found either).
//
// Names compare exactly: information_schema compares them case-insensitively, so CASEU and caseu
// of one schema (on a case-sensitive server) would both match "caseu". Only where the server
// lists no exact match does the name in lower case count (lower_case_table_names=1 and 2 store
// InnoDB names in lower case). A partitioned table is listed once per partition (name#P#part,
// name#p#part); its id is the least of its partitions' ids.
func InnoDBTableID(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}, source, schema, name string) (int64, error) {
	full := schema + "/" + name
	rows, err := q.QueryContext(ctx, "SELECT NAME, TABLE_ID FROM information_schema."+source+" WHERE NAME = ? OR NAME LIKE ?",
		full, likeEscape(full)+"#P#%")
	if err != nil {
		return 0, fmt.Errorf("read the table id of %s.%s: %w", schema, name, err)
	}
	defer rows.Close()
	var exact, lower int64
	for rows.Next() {
		var got string
		var id int64
		if err := rows.Scan(&got, &id); err != nil {
			return 0, fmt.Errorf("read the table id of %s.%s: %w", schema, name, err)
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
		return 0, fmt.Errorf("read the table id of %s.%s: %w", schema, name, err)
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

// TooLong reports whether name exceeds MaxIdentifierLength, which the server counts in
// characters, not bytes (a 59-character Cyrillic name is 118 bytes and fits).
func TooLong(name string) bool { return utf8.RuneCountInString(name) > MaxIdentifierLength }
