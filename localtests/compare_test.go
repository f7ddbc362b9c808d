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
	rows, err := r.admin.Query(`SELECT COLUMN_NAME, DATA_TYPE, IS_GENERATED = 'ALWAYS' FROM information_schema.COLUMNS
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

// compare checks a finished migration: helper tables gone, the migrated table equal to the
// original as of the cut-over (converted by the server as the ALTER did), and verify.sql.
func (r *runner) compare() {
	t := r.t
	for _, n := range []string{"_gl_test_gho", "_gl_test_ghc"} {
		if r.exists(n) {
			t.Errorf("%s still exists after the migration", n)
		}
	}
	if !r.exists("_gl_test_del") || !r.exists("gl_test") {
		t.Fatalf("after the migration want gl_test and _gl_test_del, have %v", testenv.TableNames(t, r.admin, r.schema, ""))
	}

	orig := r.columns("_gl_test_del")
	migrated := r.columns("gl_test")
	byName := map[string]column{}
	for _, c := range migrated {
		byName[strings.ToLower(c.name)] = c
	}
	var from, to []string       // compared columns: original names, new names
	var exact []string          // new names of float/double/decimal columns, compared exactly too
	mapped := map[string]bool{} // new names already compared
	for _, c := range orig {
		if c.generated {
			continue
		}
		newName, renamed := r.c.CompareColumns[strings.ToLower(c.name)]
		if !renamed {
			newName = c.name
		}
		nc, ok := byName[strings.ToLower(newName)]
		if !ok {
			if renamed {
				t.Fatalf("compare_columns: %s -> %s, but gl_test has no column %s", c.name, newName, newName)
			}
			continue // dropped by the ALTER
		}
		if nc.generated {
			continue
		}
		if mapped[strings.ToLower(nc.name)] {
			t.Fatalf("compare_columns: column %s of gl_test is compared twice", nc.name)
		}
		mapped[strings.ToLower(nc.name)] = true
		from = append(from, quote(c.name))
		to = append(to, nc.name)
		switch nc.dataType {
		case "float", "double", "decimal":
			exact = append(exact, nc.name)
		}
	}
	if len(to) == 0 {
		t.Fatal("no column to compare")
	}
	quotedTo := make([]string, len(to))
	for i, c := range to {
		quotedTo[i] = quote(c)
	}

	// The expected table: the original's rows, converted by the server into the new structure.
	r.exec("DROP TABLE IF EXISTS expected", "CREATE TABLE expected LIKE gl_test")
	ctx := context.Background()
	conn, err := r.admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ins := fmt.Sprintf("INSERT INTO %s.expected (%s) SELECT %s FROM %s.`_gl_test_del`",
		quote(r.schema), strings.Join(quotedTo, ", "), strings.Join(from, ", "), quote(r.schema))
	if _, err := conn.ExecContext(ctx, ins); err != nil {
		t.Fatalf("build the expected table: %s: %v", ins, err)
	}

	order := r.orderBy("gl_test", to)
	wantRows, wantSum := testenv.Checksum(t, r.admin, r.schema, "expected", to, order)
	gotRows, gotSum := testenv.Checksum(t, r.admin, r.schema, "gl_test", to, order)
	if gotRows != wantRows || gotSum != wantSum {
		t.Errorf("gl_test differs from the original as of the cut-over over columns %v: rows %d, want %d; checksum %s, want %s",
			to, gotRows, wantRows, gotSum, wantSum)
		r.logDiff(to)
	} else {
		t.Logf("gl_test matches the original: %d rows, columns %v", gotRows, to)
	}

	// HEX() of a FLOAT, DOUBLE or DECIMAL rounds it to an integer: compare those exactly, row by row.
	if len(exact) > 0 {
		var cond []string
		for _, k := range r.keyColumns("gl_test") {
			cond = append(cond, fmt.Sprintf("g.%s <=> e.%s", quote(k), quote(k)))
		}
		for _, c := range exact {
			cond = append(cond, fmt.Sprintf("g.%s <=> e.%s", quote(c), quote(c)))
		}
		var bad int
		q := fmt.Sprintf("SELECT COUNT(*) FROM %[1]s.expected e WHERE NOT EXISTS (SELECT 1 FROM %[1]s.gl_test g WHERE %[2]s)",
			quote(r.schema), strings.Join(cond, " AND "))
		if err := r.admin.QueryRow(q).Scan(&bad); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if bad != 0 {
			t.Errorf("%d rows differ in the exact values of %v", bad, exact)
		}
	}

	for _, q := range r.c.Verify {
		r.verify(conn, q)
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

// logDiff logs a few rows that differ between expected and gl_test, to help the reader.
func (r *runner) logDiff(cols []string) {
	hexed := make([]string, len(cols))
	for i, c := range cols {
		hexed[i] = fmt.Sprintf("COALESCE(HEX(%s), 'NULL')", quote(c))
	}
	row := "CONCAT_WS('|', " + strings.Join(hexed, ", ") + ")"
	q := fmt.Sprintf(`SELECT 'missing', %[2]s FROM %[1]s.expected WHERE %[2]s NOT IN (SELECT %[2]s FROM %[1]s.gl_test)
		UNION ALL SELECT 'unexpected', %[2]s FROM %[1]s.gl_test WHERE %[2]s NOT IN (SELECT %[2]s FROM %[1]s.expected) LIMIT 10`,
		quote(r.schema), row)
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
