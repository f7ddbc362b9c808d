package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Table creates (or empties) the database name, creates a table in it from ddl and runs the
// statements that fill it. It returns a pool on the database.
func Table(t testing.TB, database, ddl string, fill ...string) *sql.DB {
	t.Helper()
	db := Database(t, database)
	Exec(t, db, ddl)
	Exec(t, db, fill...)
	return db
}

// OwnTable is Table in a database of the test's own (OwnDatabase): it returns the pool and the
// database's name.
func OwnTable(t testing.TB, prefix, ddl string, fill ...string) (*sql.DB, string) {
	t.Helper()
	db, name := OwnDatabase(t, prefix)
	Exec(t, db, ddl)
	Exec(t, db, fill...)
	return db, name
}

// ReadColumns lists the columns of schema.tbl in table order (none when it does not exist).
func ReadColumns(ctx context.Context, db *sql.DB, schema, tbl string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, schema, tbl)
	if err != nil {
		return nil, fmt.Errorf("columns of %s.%s: %w", schema, tbl, err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("columns of %s.%s: %w", schema, tbl, err)
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

// Columns is ReadColumns that fails the test on an error.
func Columns(t testing.TB, db *sql.DB, schema, tbl string) []string {
	t.Helper()
	cols, err := ReadColumns(context.Background(), db, schema, tbl)
	if err != nil {
		t.Fatal(err)
	}
	return cols
}

// HasColumn reports whether schema.tbl has the column col.
func HasColumn(t testing.TB, db *sql.DB, schema, tbl, col string) bool {
	t.Helper()
	return slices.Contains(Columns(t, db, schema, tbl), col)
}

// ReadExisting reports which of names are tables of schema (names that do not exist are absent).
func ReadExisting(ctx context.Context, db *sql.DB, schema string, names ...string) (map[string]bool, error) {
	out := map[string]bool{}
	rows, err := db.QueryContext(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", schema)
	if err != nil {
		return nil, fmt.Errorf("tables of %s: %w", schema, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("tables of %s: %w", schema, err)
		}
		if slices.Contains(names, n) {
			out[n] = true
		}
	}
	return out, rows.Err()
}

// Existing is ReadExisting that fails the test on an error.
func Existing(t testing.TB, db *sql.DB, schema string, names ...string) map[string]bool {
	t.Helper()
	out, err := ReadExisting(context.Background(), db, schema, names...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// CountRows counts the rows of schema.tbl.
func CountRows(t testing.TB, db *sql.DB, schema, tbl string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow("SELECT COUNT(*) FROM " + quote(schema) + "." + quote(tbl)).Scan(&n); err != nil {
		t.Fatalf("count the rows of %s.%s: %v", schema, tbl, err)
	}
	return n
}

// ReadInt64s reads two integer columns of every row of schema.tbl, as key -> value. Reading the
// key twice (value = key) gives the set of keys.
func ReadInt64s(ctx context.Context, db *sql.DB, schema, tbl, key, value string) (map[int64]int64, error) {
	q := fmt.Sprintf("SELECT %s, %s FROM %s.%s", quote(key), quote(value), quote(schema), quote(tbl))
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read %s.%s: %w", schema, tbl, err)
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var k, v int64
		if err := rows.Scan(&k, &v); err != nil {
			return nil, fmt.Errorf("read %s.%s: %w", schema, tbl, err)
		}
		out[k] = v
	}
	return out, rows.Err()
}

// Int64s is ReadInt64s that fails the test on an error.
func Int64s(t testing.TB, db *sql.DB, schema, tbl, key, value string) map[int64]int64 {
	t.Helper()
	out, err := ReadInt64s(context.Background(), db, schema, tbl, key, value)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// RowsText reads every row of schema.tbl ordered by orderBy, each row as its values (as the
// pool's session reads them: text) joined by "|", NULL for a null. Two tables compare row by row.
// Every column is read, MySQL's invisible ones too (SELECT * leaves them out).
func RowsText(t testing.TB, db *sql.DB, schema, tbl, orderBy string) []string {
	t.Helper()
	names := Columns(t, db, schema, tbl)
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = quote(n)
	}
	rows, err := db.Query("SELECT " + strings.Join(quoted, ", ") + " FROM " + quote(schema) + "." + quote(tbl) + " ORDER BY " + orderBy)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = "NULL"
			if v.Valid {
				parts[i] = v.String
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
