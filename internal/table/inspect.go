package table

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// ErrNotFound is returned by Inspect when the table does not exist.
var ErrNotFound = errors.New("table not found")

// Inspect reads a base table's engine, columns and unique keys from information_schema.
// It returns an error wrapping ErrNotFound when there is no such table, and an error naming the
// table type when it is a view or another non-base table.
func Inspect(ctx context.Context, db dbconn.Querier, schema, name string) (*Table, error) {
	t := &Table{Schema: schema, Name: name}
	var tableType string
	var engine sql.NullString
	err := db.QueryRowContext(ctx,
		`SELECT TABLE_TYPE, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`,
		schema, name).Scan(&tableType, &engine)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s.%s", ErrNotFound, schema, name)
	}
	if err != nil {
		return nil, fmt.Errorf("inspect %s.%s: %w", schema, name, err)
	}
	if tableType != "BASE TABLE" {
		return nil, fmt.Errorf("%s.%s is a %s, not a base table", schema, name, strings.ToLower(tableType))
	}
	t.Engine = engine.String
	if err := readColumns(ctx, db, t); err != nil {
		return nil, err
	}
	if err := readUniqueKeys(ctx, db, t); err != nil {
		return nil, err
	}
	return t, nil
}

func readColumns(ctx context.Context, db dbconn.Querier, t *Table) error {
	rows, err := db.QueryContext(ctx, `SELECT COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE,
		COALESCE(CHARACTER_SET_NAME, ''), COALESCE(COLLATION_NAME, ''), COALESCE(CHARACTER_OCTET_LENGTH, 0),
		COALESCE(DATETIME_PRECISION, 0), EXTRA, COALESCE(GENERATION_EXPRESSION, ''), COLUMN_DEFAULT IS NULL
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`,
		t.Schema, t.Name)
	if err != nil {
		return fmt.Errorf("read columns of %s.%s: %w", t.Schema, t.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var c Column
		var nullable, extra, genExpr string
		var noDefault bool
		if err := rows.Scan(&c.Name, &c.Position, &c.DataType, &c.ColumnType, &nullable, &c.Charset, &c.Collation,
			&c.OctetLength, &c.FracDigits, &extra, &genExpr, &noDefault); err != nil {
			return fmt.Errorf("read columns of %s.%s: %w", t.Schema, t.Name, err)
		}
		c.DataType = strings.ToLower(c.DataType)
		if c.DataType == "enum" || c.DataType == "set" {
			// Members keep their case: under a case-sensitive collation 'a' and 'A' are two members.
			c.EnumValues = ParseEnumValues(c.ColumnType)
		}
		c.ColumnType = strings.ToLower(c.ColumnType)
		c.Nullable = nullable == "YES"
		c.Unsigned = strings.Contains(c.ColumnType, "unsigned")
		c.Generated = generatedColumn(extra, genExpr)
		if c.Generated {
			x := strings.ToUpper(extra)
			c.Stored, c.GenerationExpr = strings.Contains(x, "STORED") || strings.Contains(x, "PERSISTENT"), genExpr
		}
		c.AutoIncrement = strings.Contains(strings.ToLower(extra), "auto_increment")
		// A NOT NULL column whose COLUMN_DEFAULT is SQL NULL has no DEFAULT clause (MariaDB shows a
		// DEFAULT NULL as the text 'NULL'; MySQL's NOT NULL columns cannot default to NULL).
		c.NoDefault = noDefault && !c.Nullable && !c.AutoIncrement && !c.Generated
		t.Columns = append(t.Columns, c)
	}
	return rows.Err()
}

// generatedColumn tells a generated column from information_schema.COLUMNS' EXTRA and
// GENERATION_EXPRESSION: "VIRTUAL GENERATED", "STORED GENERATED" (MySQL, MariaDB) or "PERSISTENT
// GENERATED" (MariaDB). MySQL's "DEFAULT_GENERATED" marks a column with an expression default
// (DEFAULT CURRENT_TIMESTAMP(6), DEFAULT (a+1)): an ordinary column, copied like any other.
func generatedColumn(extra, genExpr string) bool {
	if genExpr != "" {
		return true
	}
	for _, w := range strings.Fields(strings.ToUpper(extra)) {
		if w == "GENERATED" {
			return true
		}
	}
	return false
}

func readUniqueKeys(ctx context.Context, db dbconn.Querier, t *Table) error {
	rows, err := db.QueryContext(ctx, `SELECT INDEX_NAME, COLUMN_NAME, SUB_PART IS NOT NULL
		FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND NON_UNIQUE = 0
		ORDER BY INDEX_NAME, SEQ_IN_INDEX`, t.Schema, t.Name)
	if err != nil {
		return fmt.Errorf("read unique keys of %s.%s: %w", t.Schema, t.Name, err)
	}
	defer rows.Close()
	byName := map[string]*Key{}
	var order []string
	for rows.Next() {
		var idx, col string
		var prefix bool
		if err := rows.Scan(&idx, &col, &prefix); err != nil {
			return fmt.Errorf("read unique keys of %s.%s: %w", t.Schema, t.Name, err)
		}
		k, ok := byName[idx]
		if !ok {
			k = &Key{Name: idx, Primary: idx == "PRIMARY"}
			byName[idx] = k
			order = append(order, idx)
		}
		k.Columns = append(k.Columns, col)
		k.HasPrefix = k.HasPrefix || prefix
	}
	if err := rows.Err(); err != nil {
		return err
	}
	sort.SliceStable(order, func(i, j int) bool {
		return order[i] == "PRIMARY" && order[j] != "PRIMARY"
	})
	for _, n := range order {
		t.UniqueKeys = append(t.UniqueKeys, *byName[n])
	}
	return nil
}

// ParseEnumValues returns the members of "enum('a','b”c')" or "set(...)", unquoted.
func ParseEnumValues(columnType string) []string {
	open := strings.IndexByte(columnType, '(')
	if open < 0 || !strings.HasSuffix(columnType, ")") {
		return nil
	}
	body := columnType[open+1 : len(columnType)-1]
	var vals []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(body); i++ {
		ch := body[i]
		switch {
		case !in && ch == '\'':
			in = true
		case in && ch == '\'' && i+1 < len(body) && body[i+1] == '\'':
			cur.WriteByte('\'')
			i++
		case in && ch == '\'':
			in = false
			vals = append(vals, cur.String())
			cur.Reset()
		case in && ch == '\\' && i+1 < len(body):
			cur.WriteByte(body[i+1])
			i++
		case in:
			cur.WriteByte(ch)
		}
	}
	return vals
}
