package copier

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// keyRange builds the SQL that walks the original table in shared-key order. Key values read from
// the server travel back to it typed as the column is, so comparisons follow the index's order:
// integers as numbers, character strings re-read in the column's charset and collation, binary
// strings as bytes, decimals cast to the column's type, temporal values as the server's text,
// ENUM and SET by their number (keyrange_enum.go).
type keyRange struct {
	cfg     *Config
	cols    []*table.Column
	quoted  []string // quoted key column names
	from    string   // `schema`.`tbl` FORCE INDEX (`key`)
	orderBy string
	read    string // the SELECT list reading a key: ENUM and SET columns as numbers
	ghost   string // `schema`.`ghost`
}

func newKeyRange(cfg *Config) (*keyRange, error) {
	k := &keyRange{cfg: cfg, ghost: table.Qualify(cfg.Original.Schema, cfg.GhostTable)}
	for _, name := range cfg.OriginalKey.Columns {
		col, ok := cfg.Original.Column(name)
		if !ok {
			return nil, fmt.Errorf("shared key column %s is not in %s", name, cfg.Original.Name)
		}
		switch col.DataType {
		case "bit", "float", "double", "json", "geometry", "point", "linestring", "polygon":
			return nil, fmt.Errorf("shared key %s: column %s is %s, which cannot be used to copy in key order: keep a unique key over other types in both tables",
				cfg.OriginalKey.Name, col.Name, strings.ToUpper(col.DataType))
		}
		k.cols = append(k.cols, col)
		k.quoted = append(k.quoted, table.QuoteIdent(col.Name))
	}
	if len(k.cols) == 0 {
		return nil, fmt.Errorf("shared key %s has no columns", cfg.OriginalKey.Name)
	}
	k.from = fmt.Sprintf("%s FORCE INDEX (%s)", cfg.Original.QualifiedName(), table.QuoteIdent(cfg.OriginalKey.Name))
	k.orderBy = strings.Join(k.quoted, ", ")
	read := make([]string, len(k.cols))
	for i, c := range k.cols {
		read[i] = k.quoted[i]
		if c.DataType == "enum" || c.DataType == "set" {
			read[i] += "+0"
		}
	}
	k.read = strings.Join(read, ", ")
	return k, nil
}

// bounds returns the smallest and largest key, or nil, nil for an empty table.
func (k *keyRange) bounds(ctx context.Context, conn *sql.Conn) (min, max []sql.RawBytes, err error) {
	desc := make([]string, len(k.quoted))
	for i, q := range k.quoted {
		desc[i] = q + " DESC"
	}
	min, err = k.readKey(ctx, conn, fmt.Sprintf("SELECT %s FROM %s ORDER BY %s LIMIT 1", k.read, k.from, k.orderBy))
	if err != nil || min == nil {
		return nil, nil, err
	}
	max, err = k.readKey(ctx, conn, fmt.Sprintf("SELECT %s FROM %s ORDER BY %s LIMIT 1", k.read, k.from, strings.Join(desc, ", ")))
	return min, max, err
}

// chunkEnd finds the key chunkSize rows after lower (within max), reading only the index.
func (k *keyRange) chunkEnd(ctx context.Context, conn *sql.Conn, lower []sql.RawBytes, inclusive bool, max []sql.RawBytes, chunkSize int) ([]sql.RawBytes, error) {
	lo, loArgs := k.compare(lower, inclusive, true)
	hi, hiArgs := k.compare(max, true, false)
	q := fmt.Sprintf("SELECT %s FROM %s WHERE (%s) AND (%s) ORDER BY %s LIMIT 1 OFFSET %d",
		k.read, k.from, lo, hi, k.orderBy, chunkSize-1)
	end, err := k.readKey(ctx, conn, q, append(loArgs, hiArgs...)...)
	if err != nil {
		return nil, err
	}
	if end == nil {
		return max, nil
	}
	return end, nil
}

// anyAbove tells whether the original holds a key above vals, reading only the index.
func (k *keyRange) anyAbove(ctx context.Context, conn *sql.Conn, vals []sql.RawBytes) (bool, error) {
	gt, args := k.compare(vals, false, true)
	key, err := k.readKey(ctx, conn, fmt.Sprintf("SELECT %s FROM %s WHERE %s ORDER BY %s LIMIT 1", k.read, k.from, gt, k.orderBy), args...)
	return key != nil, err
}

// copySQL is the INSERT IGNORE ... SELECT of one chunk: a consistent read of the original when
// the copy tracks the applier's keys (Config.Tracker), otherwise a locking read (LOCK IN SHARE MODE).
func (k *keyRange) copySQL(lower []sql.RawBytes, inclusive bool, upper []sql.RawBytes) (string, []any) {
	lo, loArgs := k.compare(lower, inclusive, true)
	hi, hiArgs := k.compare(upper, true, false)
	q := fmt.Sprintf("INSERT IGNORE INTO %s (%s) SELECT %s FROM %s WHERE (%s) AND (%s)",
		k.ghost, table.QuoteIdents(k.cfg.GhostColumns), strings.Join(k.cfg.SelectExprs, ", "), k.from, lo, hi)
	if k.cfg.Tracker == nil {
		q += " LOCK IN SHARE MODE"
	}
	return q, append(loArgs, hiArgs...)
}

// countSQL counts the original's rows in a range, reading only the key's index.
func (k *keyRange) countSQL(lower []sql.RawBytes, inclusive bool, upper []sql.RawBytes) (string, []any) {
	lo, loArgs := k.compare(lower, inclusive, true)
	hi, hiArgs := k.compare(upper, true, false)
	return fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE (%s) AND (%s)", k.from, lo, hi), append(loArgs, hiArgs...)
}

// missingSQL counts the chunk's rows of the original that have no row with the same ghost key
// in the ghost: rows a copy would have lost. The ghost's key is matched through its own index,
// with each of its columns read from the original as the copy converts it (GhostKeyExprs), and by
// its exact bytes where the key's collation changes (GhostKeyBytes).
func (k *keyRange) missingSQL(lower []sql.RawBytes, inclusive bool, upper []sql.RawBytes) (string, []any) {
	lo, loArgs := k.compare(lower, inclusive, true)
	hi, hiArgs := k.compare(upper, true, false)
	q := fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE (%s) AND (%s) AND %s", k.from, lo, hi, k.notInGhost())
	return q, append(loArgs, hiArgs...)
}

// missingKeysSQL reads the keys of the first limit of the chunk's rows counted by missingSQL.
func (k *keyRange) missingKeysSQL(lower []sql.RawBytes, inclusive bool, upper []sql.RawBytes, limit int) (string, []any) {
	q, args := k.missingSQL(lower, inclusive, upper)
	q = strings.Replace(q, "SELECT COUNT(*) FROM", "SELECT "+k.read+" FROM", 1)
	return fmt.Sprintf("%s ORDER BY %s LIMIT %d", q, k.orderBy, limit), args
}

// stillMissingSQL reads which of keys (as readKeys gave them) the original holds while the ghost
// has no row for them, as missingSQL counts them.
func (k *keyRange) stillMissingSQL(keys [][]sql.RawBytes) (string, []any) {
	var args []any
	terms := make([]string, len(keys))
	for n, key := range keys {
		parts := make([]string, len(k.cols))
		for i := range k.cols {
			expr, a := k.term(i, "=", key[i])
			parts[i] = expr
			args = append(args, a...)
		}
		terms[n] = "(" + strings.Join(parts, " AND ") + ")"
	}
	q := fmt.Sprintf("SELECT %s FROM %s WHERE (%s) AND %s ORDER BY %s",
		k.read, k.from, strings.Join(terms, " OR "), k.notInGhost(), k.orderBy)
	return q, args
}

// notInGhost is the condition that the ghost has no row for the original's row (missingSQL).
func (k *keyRange) notInGhost() string {
	match := make([]string, len(k.cfg.GhostKey.Columns))
	for i, g := range k.cfg.GhostKey.Columns {
		match[i] = fmt.Sprintf("g.%s = %s", table.QuoteIdent(g), k.cfg.GhostKeyExprs[i])
		if i < len(k.cfg.GhostKeyBytes) && k.cfg.GhostKeyBytes[i] != "" {
			match[i] += " AND " + k.cfg.GhostKeyBytes[i]
		}
	}
	return fmt.Sprintf("NOT EXISTS (SELECT 1 FROM %s AS g WHERE %s)", k.ghost, strings.Join(match, " AND "))
}

func (k *keyRange) equal(a, b []sql.RawBytes) bool {
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// readKey reads the first key q selects (k.read's columns), nil when it selects none.
func (k *keyRange) readKey(ctx context.Context, conn *sql.Conn, q string, args ...any) ([]sql.RawBytes, error) {
	keys, err := k.readKeys(ctx, conn, q, args...)
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	return keys[0], nil
}

// readKeys reads every key q selects (k.read's columns). A one-row query (LIMIT 1) reads no
// further.
func (k *keyRange) readKeys(ctx context.Context, conn *sql.Conn, q string, args ...any) ([][]sql.RawBytes, error) {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	raw := make([]sql.RawBytes, len(k.cols))
	dest := make([]any, len(raw))
	for i := range raw {
		dest[i] = &raw[i]
	}
	var keys [][]sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		out := make([]sql.RawBytes, len(raw)) // RawBytes are only valid until the next Next: copy
		for i, r := range raw {
			out[i] = append(sql.RawBytes(nil), r...)
		}
		keys = append(keys, out)
	}
	return keys, rows.Err()
}

// compare builds the lexicographic comparison of the key with vals: key > vals (or >= when
// inclusive) when greater, key < vals (or <=) otherwise. For (a, b) > (x, y):
// (a > x) OR (a = x AND b > y). The expanded form lets the range optimizer use the index.
func (k *keyRange) compare(vals []sql.RawBytes, inclusive, greater bool) (string, []any) {
	strict, last := "<", "<"
	if greater {
		strict, last = ">", ">"
	}
	if inclusive {
		last += "="
	}
	var terms []string
	var args []any
	for i := range k.cols {
		var parts []string
		for j := 0; j < i; j++ {
			expr, a := k.term(j, "=", vals[j])
			parts = append(parts, expr)
			args = append(args, a...)
		}
		op := strict
		if i == len(k.cols)-1 {
			op = last
		}
		expr, a := k.term(i, op, vals[i])
		parts = append(parts, expr)
		args = append(args, a...)
		terms = append(terms, "("+strings.Join(parts, " AND ")+")")
	}
	return strings.Join(terms, " OR "), args
}

// term is "column op value" for key column i holding raw, with its arguments.
func (k *keyRange) term(i int, op string, raw sql.RawBytes) (string, []any) {
	if t := k.cols[i].DataType; t == "enum" || t == "set" {
		return k.memberTerm(i, op, raw)
	}
	expr, arg := k.value(i, raw)
	return fmt.Sprintf("%s %s %s", k.quoted[i], op, expr), []any{arg}
}

// value is the placeholder expression and argument for key column i holding raw.
func (k *keyRange) value(i int, raw sql.RawBytes) (string, any) {
	c := k.cols[i]
	switch c.DataType {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year":
		if c.Unsigned {
			if v, err := strconv.ParseUint(string(raw), 10, 64); err == nil {
				return "?", v
			}
		} else if v, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return "?", v
		}
		return "?", string(raw)
	case "decimal", "numeric":
		return "CAST(? AS " + decimalType(c.ColumnType) + ")", string(raw)
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		return fmt.Sprintf("CONVERT(? USING %s) COLLATE %s", c.Charset, c.Collation), []byte(raw)
	case "date", "datetime", "timestamp", "time":
		return "?", string(raw)
	default: // binary, varbinary, blobs: byte comparison is the index's order
		return "?", []byte(raw)
	}
}

// decimalType turns "decimal(10,2) unsigned" into "DECIMAL(10,2)".
func decimalType(columnType string) string {
	t := columnType
	if i := strings.IndexByte(t, ')'); i >= 0 {
		t = t[:i+1]
	}
	return strings.ToUpper(strings.Replace(t, "numeric", "decimal", 1))
}
