package localtests

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

type column struct {
	name      string
	dataType  string
	generated bool
}

// columns lists the columns of tbl in the case's schema, in ordinal order.
func (r *runner) columns(tbl string) []column {
	r.t.Helper()
	rows, err := r.admin.Query(`SELECT COLUMN_NAME, DATA_TYPE, COALESCE(GENERATION_EXPRESSION, '') <> '' FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, r.schema, tbl)
	if err != nil {
		r.t.Fatal(err)
	}
	defer rows.Close()
	var out []column
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.name, &c.dataType, &c.generated); err != nil {
			r.t.Fatal(err)
		}
		c.dataType = strings.ToLower(c.dataType)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		r.t.Fatal(err)
	}
	if len(out) == 0 {
		r.t.Fatalf("table %s.%s has no columns (missing?)", r.schema, tbl)
	}
	return out
}

// keyColumns returns the columns of tbl's primary key, or else of its first unique key whose
// columns are all NOT NULL; nil when there is none.
func (r *runner) keyColumns(tbl string) []string {
	r.t.Helper()
	rows, err := r.admin.Query(`SELECT s.INDEX_NAME, s.COLUMN_NAME FROM information_schema.STATISTICS s
		WHERE s.TABLE_SCHEMA = ? AND s.TABLE_NAME = ? AND s.NON_UNIQUE = 0
		AND NOT EXISTS (SELECT 1 FROM information_schema.STATISTICS n WHERE n.TABLE_SCHEMA = s.TABLE_SCHEMA
			AND n.TABLE_NAME = s.TABLE_NAME AND n.INDEX_NAME = s.INDEX_NAME AND n.NULLABLE = 'YES')
		ORDER BY s.INDEX_NAME <> 'PRIMARY', s.INDEX_NAME, s.SEQ_IN_INDEX`, r.schema, tbl)
	if err != nil {
		r.t.Fatal(err)
	}
	defer rows.Close()
	var first string
	var cols []string
	for rows.Next() {
		var idx, col string
		if err := rows.Scan(&idx, &col); err != nil {
			r.t.Fatal(err)
		}
		if first == "" {
			first = idx
		}
		if idx == first {
			cols = append(cols, col)
		}
	}
	if err := rows.Err(); err != nil {
		r.t.Fatal(err)
	}
	return cols
}

// orderBy is the ORDER BY list for checksums of tbl: its key, or else every column in cols.
func (r *runner) orderBy(tbl string, cols []string) string {
	key := r.keyColumns(tbl)
	if len(key) == 0 {
		key = cols
	}
	q := make([]string, len(key))
	for i, c := range key {
		q[i] = quote(c)
	}
	return strings.Join(q, ", ")
}

// compare checks a finished migration: helper tables gone, and each migrated table equal, in its
// definition and its rows, to what the server's own ALTER makes of its original as of the cut-over
// (see oracle_test.go); then verify.sql.
func (r *runner) compare() {
	t := r.t
	tables := r.tables()
	for _, tbl := range tables {
		for _, n := range []string{"_" + tbl + "_gho", "_" + tbl + "_ghc"} {
			if r.exists(n) {
				t.Errorf("%s still exists after the migration", n)
			}
		}
		if !r.exists("_"+tbl+"_del") || !r.exists(tbl) {
			t.Fatalf("after the migration want %s and _%s_del, have %v", tbl, tbl, testenv.TableNames(t, r.admin, r.schema, ""))
		}
	}
	r.buildExpected(tables)
	for _, tbl := range tables {
		r.compareDefinitions(tbl)
		r.compareRows(tbl, r.expectedName(tbl))
	}
	ctx := context.Background()
	// An application's session (utf8mb4): a JSON path literal is text there, not binary.
	conn, err := r.appSession().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range r.c.Verify {
		r.verify(conn, q)
	}
}

// compareRows compares every row of tbl with the table expected over the columns they share by
// name: a checksum of the values' bytes, and FLOAT/DOUBLE/DECIMAL exactly with <=> (HEX rounds them).
func (r *runner) compareRows(tbl, expected string) {
	t := r.t
	have := map[string]bool{}
	for _, c := range r.columns(tbl) {
		have[strings.ToLower(c.name)] = true
	}
	var cols, exact []string
	for _, c := range r.columns(expected) {
		if !have[strings.ToLower(c.name)] {
			continue // reported by compareDefinitions
		}
		cols = append(cols, c.name)
		switch c.dataType {
		case "float", "double", "decimal":
			exact = append(exact, c.name)
		}
	}
	if len(cols) == 0 {
		t.Fatal("no column to compare")
	}
	order := r.orderBy(expected, cols)
	wantRows, wantSum := testenv.Checksum(t, r.admin, r.schema, expected, cols, order)
	gotRows, gotSum := testenv.Checksum(t, r.admin, r.schema, tbl, cols, order)
	if gotRows != wantRows || gotSum != wantSum {
		t.Errorf("%s's rows differ from %s over columns %v: rows %d, want %d; checksum %s, want %s",
			tbl, expected, cols, gotRows, wantRows, gotSum, wantSum)
		r.logDiff(tbl, expected, cols)
	} else {
		t.Logf("%s matches %s: %d rows, columns %v", tbl, expected, gotRows, cols)
	}
	if len(exact) == 0 {
		return
	}
	var cond []string
	for _, c := range append(r.keyColumns(expected), exact...) {
		cond = append(cond, fmt.Sprintf("g.%s <=> e.%s", quote(c), quote(c)))
	}
	var bad int
	q := fmt.Sprintf("SELECT COUNT(*) FROM %[1]s.%[3]s e WHERE NOT EXISTS (SELECT 1 FROM %[1]s.%[4]s g WHERE %[2]s)",
		quote(r.schema), strings.Join(cond, " AND "), quote(expected), quote(tbl))
	if err := r.admin.QueryRow(q).Scan(&bad); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if bad != 0 {
		t.Errorf("%d rows differ in the exact values of %v", bad, exact)
	}
}

// verify runs one verify.sql query in the case's schema: it must return one row, one value, 1.
func (r *runner) verify(conn *sql.Conn, q string) {
	t := r.t
	ctx := context.Background()
	if _, err := conn.ExecContext(ctx, "USE "+quote(r.schema)); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		t.Errorf("verify.sql: %s: %v", q, err)
		return
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for rows.Next() {
		var v sql.NullString
		if len(cols) != 1 {
			break
		}
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		vals = append(vals, fmt.Sprint(v.String))
	}
	if err := rows.Err(); err != nil {
		t.Errorf("verify.sql: %s: %v", q, err)
		return
	}
	if len(cols) != 1 || len(vals) != 1 || vals[0] != "1" {
		t.Errorf("verify.sql: %s: want one row with the value 1, got %d columns, rows %q", q, len(cols), vals)
	}
}

// logDiff logs a few rows that differ between expected and tbl, to help the reader.
func (r *runner) logDiff(tbl, expected string, cols []string) {
	hexed := make([]string, len(cols))
	for i, c := range cols {
		hexed[i] = fmt.Sprintf("COALESCE(HEX(%s), 'NULL')", quote(c))
	}
	row := "CONCAT_WS('|', " + strings.Join(hexed, ", ") + ")"
	q := fmt.Sprintf(`SELECT 'missing', %[2]s FROM %[1]s.%[3]s WHERE %[2]s NOT IN (SELECT %[2]s FROM %[1]s.%[4]s)
		UNION ALL SELECT 'unexpected', %[2]s FROM %[1]s.%[4]s WHERE %[2]s NOT IN (SELECT %[2]s FROM %[1]s.%[3]s) LIMIT 10`,
		quote(r.schema), row, quote(expected), quote(tbl))
	rows, err := r.admin.Query(q)
	if err != nil {
		r.t.Logf("diff query: %v", err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var kind, v string
		if err := rows.Scan(&kind, &v); err != nil {
			r.t.Logf("diff: %v", err)
			return
		}
		r.t.Logf("%s row (hex of %v): %s", kind, cols, v)
	}
}
