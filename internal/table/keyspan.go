package table

import (
	"math/big"
	"strings"
)

// KeySpan is a range of a key made of one integer column, as the row copy walks it: (Lower,
// Upper], or [Lower, Upper] when LowerInclusive; an empty end is unbounded. The zero KeySpan
// (no Column) stands for "any key": it excludes nothing.
type KeySpan struct {
	Column         string // the original's key column
	Lower, Upper   string // decimal integers as the server returns them; "": unbounded
	LowerInclusive bool
}

// IntegerKeySpan is the span (lower, upper] (or [lower, upper]) of key k of t, or the zero
// KeySpan when k is not a single column of an integer type (a key compared by collation, or over
// several columns, is not ordered by Excludes).
func IntegerKeySpan(t *Table, k Key, lower []byte, inclusive bool, upper []byte) KeySpan {
	if len(k.Columns) != 1 {
		return KeySpan{}
	}
	c, ok := t.Column(k.Columns[0])
	if !ok {
		return KeySpan{}
	}
	switch strings.ToLower(c.DataType) {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
		return KeySpan{Column: c.Name, Lower: string(lower), Upper: string(upper), LowerInclusive: inclusive}
	}
	return KeySpan{}
}

// Excludes reports whether the key value v of column (an int64 or a uint64, as decoded from a
// row image) lies outside the span. Anything it cannot compare (another column, another type, an
// end that is not an integer) is not excluded.
func (s KeySpan) Excludes(column string, v any) bool {
	if s.Column == "" || !strings.EqualFold(s.Column, column) {
		return false
	}
	var x big.Int
	switch n := v.(type) {
	case int64:
		x.SetInt64(n)
	case uint64:
		x.SetUint64(n)
	default:
		return false
	}
	if lo, ok := new(big.Int).SetString(s.Lower, 10); ok && s.Lower != "" {
		if c := x.Cmp(lo); c < 0 || (c == 0 && !s.LowerInclusive) {
			return true
		}
	}
	if hi, ok := new(big.Int).SetString(s.Upper, 10); ok && s.Upper != "" {
		if x.Cmp(hi) > 0 {
			return true
		}
	}
	return false
}
