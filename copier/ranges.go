package copier

import (
	"context"
	"database/sql"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Ranges walks a table in chunks of its shared key the way the copy does, for other readers of
// both tables (the checksum): the same key order, the same typed key values, the same index.
// A missing end (nil) is unbounded, so a walk can cover keys below the first and above the last.
type Ranges struct {
	k *keyRange
}

// NewRanges walks original in the order of key (a unique key of original without prefix).
func NewRanges(original *table.Table, key table.Key) (*Ranges, error) {
	k, err := newKeyRange(&Config{Original: original, OriginalKey: key})
	if err != nil {
		return nil, err
	}
	return &Ranges{k: k}, nil
}

// From is the original's name with its key forced: `schema`.`tbl` FORCE INDEX (`key`).
func (r *Ranges) From() string { return r.k.from }

// Bounds returns the smallest and the largest key, or nil, nil for an empty table.
func (r *Ranges) Bounds(ctx context.Context, conn *sql.Conn) (min, max []sql.RawBytes, err error) {
	return r.k.bounds(ctx, conn)
}

// ChunkEnd is the key size rows on from lower (inclusive or not), at most max.
func (r *Ranges) ChunkEnd(ctx context.Context, conn *sql.Conn, lower []sql.RawBytes, inclusive bool, max []sql.RawBytes, size int) ([]sql.RawBytes, error) {
	return r.k.chunkEnd(ctx, conn, lower, inclusive, max, size)
}

// Equal reports whether two keys are the same values.
func (r *Ranges) Equal(a, b []sql.RawBytes) bool { return r.k.equal(a, b) }

// Where is the condition "key in (lower, upper]" ([lower, upper] when inclusive) over cols, the
// quoted (maybe qualified) expressions that hold the key's columns, in key order: the original's
// own columns, or the ghost's columns that receive them. A nil end is unbounded.
func (r *Ranges) Where(cols []string, lower []sql.RawBytes, inclusive bool, upper []sql.RawBytes) (string, []any) {
	k := *r.k
	k.quoted = cols
	terms, args := []string{"TRUE"}, []any(nil)
	if lower != nil {
		lo, a := k.compare(lower, inclusive, true)
		terms, args = append(terms, "("+lo+")"), append(args, a...)
	}
	if upper != nil {
		hi, a := k.compare(upper, true, false)
		terms, args = append(terms, "("+hi+")"), append(args, a...)
	}
	return strings.Join(terms, " AND "), args
}

// Columns are the key's columns, in key order.
func (r *Ranges) Columns() []*table.Column { return r.k.cols }

// Format renders a key for a message: its values, comma-separated, in key order.
func Format(key []sql.RawBytes) string {
	if key == nil {
		return "(none)"
	}
	parts := make([]string, len(key))
	for i, v := range key {
		parts[i] = string(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
