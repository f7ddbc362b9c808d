package dbconn

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// Reads of a server's settings and topology shared by the checks and the run.

// ReadVariables reads the named global variables; a variable the server does not have is absent.
func ReadVariables(ctx context.Context, db *sql.DB, names ...string) (map[string]string, error) {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + n + "'"
	}
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ("+strings.Join(quoted, ", ")+")")
	if err != nil {
		return nil, fmt.Errorf("read server variables: %w", err)
	}
	defer rows.Close()
	vars := map[string]string{}
	for rows.Next() {
		var n, v string
		if err := rows.Scan(&n, &v); err != nil {
			return nil, fmt.Errorf("read server variables: %w", err)
		}
		vars[strings.ToLower(n)] = v
	}
	return vars, rows.Err()
}

// IsOn reads a boolean server variable.
func IsOn(v string) bool { return strings.EqualFold(v, "ON") || v == "1" }

// ReplicaStatus is the part of SHOW SLAVE/REPLICA STATUS the topology needs.
type ReplicaStatus struct {
	SourceHost string
	SourcePort int
	IORunning  string
	SQLRunning string
	GtidIOPos  string // MariaDB: the GTIDs received from the source (empty elsewhere)
	// SecondsBehind is Seconds_Behind_Master (Seconds_Behind_Source): empty or NULL while the
	// replication threads are not running.
	SecondsBehind string
}

// ReadReplicaStatus returns the server's replication source, or nil when it does not replicate.
func ReadReplicaStatus(ctx context.Context, db *sql.DB, f Flavor, addr string) (*ReplicaStatus, error) {
	rows, err := db.QueryContext(ctx, f.ReplicaStatusSQL())
	if err != nil {
		return nil, fmt.Errorf("read replication status on %s (%s needs the REPLICATION CLIENT privilege): %w", addr, f.ReplicaStatusSQL(), err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("read replication status on %s: %w", addr, err)
	}
	if !rows.Next() {
		return nil, rows.Err()
	}
	row, err := RowMap(rows, cols)
	if err != nil {
		return nil, fmt.Errorf("read replication status on %s: %w", addr, err)
	}
	hostCol, portCol := f.ReplicaHostColumn()
	st := &ReplicaStatus{
		SourceHost: row[hostCol],
		IORunning:  firstOf(row, "Slave_IO_Running", "Replica_IO_Running"),
		SQLRunning: firstOf(row, "Slave_SQL_Running", "Replica_SQL_Running"),
		GtidIOPos:  row["Gtid_IO_Pos"],

		SecondsBehind: firstOf(row, "Seconds_Behind_Master", "Seconds_Behind_Source"),
	}
	if st.SourceHost == "" {
		return nil, nil // replication configured and then reset: not a replica
	}
	if st.SourcePort, err = strconv.Atoi(row[portCol]); err != nil {
		return nil, fmt.Errorf("read replication status on %s: %s is %q", addr, portCol, row[portCol])
	}
	return st, nil
}

func firstOf(row map[string]string, names ...string) string {
	for _, n := range names {
		if v, ok := row[n]; ok {
			return v
		}
	}
	return ""
}

// QueryStrings runs q and returns the first column of every row.
func QueryStrings(ctx context.Context, db Querier, q string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// RowMap scans the current row of rows, whose columns are cols, into a map from column name to
// value (NULL as ""): for statements whose columns differ by flavor and version (SHOW REPLICA
// STATUS, SHOW INDEX).
func RowMap(rows *sql.Rows, cols []string) (map[string]string, error) {
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	row := make(map[string]string, len(cols))
	for i, c := range cols {
		row[c] = vals[i].String
	}
	return row, nil
}
