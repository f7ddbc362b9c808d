package checkpoint

import (
	"strings"
	"testing"
)

// The ALTER a checkpoint records reads the same however it is written (case, spacing, comments,
// quoting of identifiers and strings), and differently for any other clause.
func TestNormalizeAlter(t *testing.T) {
	same := []string{
		"CHANGE a b INT, ADD COLUMN c VARCHAR(10) DEFAULT 'x''y'",
		"change  `A`\n\tB int ,add column c varchar ( 10 ) default \"x'y\" /* a comment */",
		"Change `a` `b` Int, Add Column `C` VarChar(10) Default 'x\\'y' -- the end\n",
	}
	want, err := NormalizeAlter(same[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range same[1:] {
		if got, err := NormalizeAlter(s); err != nil || got != want {
			t.Errorf("%q reads as %q (%v), want %q", s, got, err, want)
		}
	}
	for _, s := range []string{
		"DROP COLUMN a, ADD COLUMN b INT AFTER id",
		"CHANGE a b INT, ADD COLUMN c VARCHAR(10) DEFAULT 'X''y'",
		"CHANGE a b INT, ADD COLUMN c VARCHAR(11) DEFAULT 'x''y'",
	} {
		if got, err := NormalizeAlter(s); err != nil || got == want {
			t.Errorf("%q reads as %q (%v), the same as the first ALTER", s, got, err)
		}
	}
}

// Line breaks in strings and identifiers are escaped (the normalized ALTER is shown in a one-line
// error), and the escaping keeps distinct ALTERs distinct: a line break is not a backslash and
// an n.
func TestNormalizeAlterOneLine(t *testing.T) {
	broken, err := NormalizeAlter("ADD COLUMN `x\ny` INT DEFAULT 'a\nb'")
	if err != nil || strings.ContainsAny(broken, "\r\n") {
		t.Fatalf("%q (%v), want one line", broken, err)
	}
	escaped, err := NormalizeAlter("ADD COLUMN `x\ny` INT DEFAULT 'a\\\\nb'") // the string holds a backslash and an n
	if err != nil || escaped == broken {
		t.Errorf("%q and %q (%v), want them different", broken, escaped, err)
	}
}
