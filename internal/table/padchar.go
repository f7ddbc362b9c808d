package table

import (
	"fmt"
	"strconv"
	"strings"
)

// PAD_CHAR_TO_FULL_LENGTH. With this sql_mode a CHAR(n) column reads as its value padded with
// spaces to n characters, so the server's own ALTER (run with the global sql_mode) keeps the padding
// when CHAR becomes VARCHAR, TEXT, BINARY...; a CHAR column keeps its type and the padding is
// stripped again on store. The tool's sessions keep their own sql_mode (the mode would change how
// CHAR keys compare in their WHERE clauses too); they pad the value instead, with RPAD, on the
// copy's SELECT list and on the applier's bound value (the binlog carries CHAR values unpadded).

// PadCharMode is the sql_mode flag.
const PadCharMode = "PAD_CHAR_TO_FULL_LENGTH"

// HasPadChar reports whether sql_mode (comma-separated) holds PAD_CHAR_TO_FULL_LENGTH.
func HasPadChar(sqlMode string) bool {
	for _, m := range strings.Split(sqlMode, ",") {
		if strings.EqualFold(strings.TrimSpace(m), PadCharMode) {
			return true
		}
	}
	return false
}

// PadChar is the padding a value of an original CHAR column needs on its way to the ghost column:
// Length characters, 0 for none.
type PadChar struct {
	Length int
}

// PadCharOf is the padding for original column o copied into ghost column g when the server's
// sql_mode has PAD_CHAR_TO_FULL_LENGTH: o's length when o is CHAR(n) and g is not CHAR.
func PadCharOf(o, g *Column) (PadChar, error) {
	if o.DataType != "char" || g.DataType == "char" {
		return PadChar{}, nil
	}
	t := strings.TrimPrefix(o.ColumnType, "char(")
	end := strings.IndexByte(t, ')')
	if end < 0 || t == o.ColumnType {
		return PadChar{}, fmt.Errorf("column %s: cannot read the length of %q", o.Name, o.ColumnType)
	}
	n, err := strconv.Atoi(t[:end])
	if err != nil {
		return PadChar{}, fmt.Errorf("column %s: cannot read the length of %q: %w", o.Name, o.ColumnType, err)
	}
	return PadChar{Length: n}, nil
}

// Expr pads SQL expression v (a value of the CHAR column, in its charset) to p.Length characters.
func (p PadChar) Expr(v string) string {
	if p.Length == 0 {
		return v
	}
	return fmt.Sprintf("RPAD(%s, %d, ' ')", v, p.Length)
}
