package copier

import (
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// ENUM and SET key columns. An index orders an ENUM by its member's number (1 for the first
// member, 0 for the error value) and a SET by its bitmask, not by text; a comparison with a
// string compares text. So a key is read as numbers (col+0) and compared by number:
//
//   - "col > k" (and <, >=, <=) becomes "col IN (numbers...)": the server compares the column with
//     each number by its number, and the range optimizer uses an IN list where it scans the whole
//     index for "col > k". A list longer than maxMemberList falls back to "col > k" (right, slower).
//   - "col = k" compares the member's text (the SET's members in declaration order), which the
//     optimizer treats as a constant of the index; the ENUM error value, which has no text, is 0.

// maxMemberList is the longest IN list of member numbers written for one comparison.
const maxMemberList = 256

// memberTerm is "column op value" for ENUM or SET key column i holding the number raw.
func (k *keyRange) memberTerm(i int, op string, raw sql.RawBytes) (string, []any) {
	c, col := k.cols[i], k.quoted[i]
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil { // never for a value read as col+0; compare as the server would
		return fmt.Sprintf("%s+0 %s ?", col, op), []any{string(raw)}
	}
	if op == "=" {
		if text, ok := memberText(c, n); ok && c.Charset != "" && c.Collation != "" {
			return fmt.Sprintf("%s = CONVERT(CONVERT(? USING utf8mb4) USING %s) COLLATE %s", col, c.Charset, c.Collation), []any{[]byte(text)}
		}
		return col + " = ?", []any{n}
	}
	top := uint64(len(c.EnumValues))
	if c.DataType == "set" {
		top = 1<<uint(len(c.EnumValues)) - 1
		if len(c.EnumValues) >= 64 {
			top = ^uint64(0)
		}
	}
	from, to := uint64(0), top
	switch op {
	case ">":
		from = n + 1
	case ">=":
		from = n
	case "<":
		to = n - 1
		if n == 0 {
			return "FALSE", nil
		}
	case "<=":
		to = n
	}
	if from > to || from > top {
		return "FALSE", nil
	}
	if to-from >= maxMemberList {
		return fmt.Sprintf("%s %s ?", col, op), []any{n}
	}
	list := make([]string, 0, to-from+1)
	for v := from; v <= to; v++ {
		list = append(list, strconv.FormatUint(v, 10))
	}
	return fmt.Sprintf("%s IN (%s)", col, strings.Join(list, ", ")), nil
}

// memberText is the text of ENUM or SET value n of column c (false for the ENUM error value or a
// number beyond the members).
func memberText(c *table.Column, n uint64) (string, bool) {
	if c.DataType == "enum" {
		if n == 0 || n > uint64(len(c.EnumValues)) {
			return "", false
		}
		return c.EnumValues[n-1], true
	}
	var parts []string
	for bit := 0; n != 0; bit++ {
		if bit >= len(c.EnumValues) {
			return "", false
		}
		if n&1 == 1 {
			parts = append(parts, c.EnumValues[bit])
		}
		n >>= 1
	}
	return strings.Join(parts, ","), true
}
