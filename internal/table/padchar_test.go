package table

import "testing"

// A CHAR(n) value going to a column of another type is padded to n characters when the server's
// sql_mode has PAD_CHAR_TO_FULL_LENGTH, as the server's own ALTER reads it; CHAR to CHAR is not.
func TestPadCharOf(t *testing.T) {
	if !HasPadChar("STRICT_ALL_TABLES,pad_char_to_full_length") || HasPadChar("STRICT_ALL_TABLES") {
		t.Error("HasPadChar misreads sql_mode")
	}
	o := &Column{Name: "c", DataType: "char", ColumnType: "char(8)"}
	p, err := PadCharOf(o, &Column{DataType: "varchar"})
	if err != nil || p.Expr("CONVERT(? USING utf8mb4)") != "RPAD(CONVERT(? USING utf8mb4), 8, ' ')" {
		t.Errorf("CHAR(8) -> VARCHAR: %+v %v", p, err)
	}
	if p, _ := PadCharOf(o, &Column{DataType: "char"}); p.Expr("`c`") != "`c`" {
		t.Errorf("CHAR -> CHAR padded: %+v", p)
	}
	if p, _ := PadCharOf(&Column{DataType: "varchar", ColumnType: "varchar(8)"}, &Column{DataType: "text"}); p.Length != 0 {
		t.Errorf("VARCHAR padded: %+v", p)
	}
	if _, err := PadCharOf(&Column{Name: "c", DataType: "char", ColumnType: "char"}, &Column{DataType: "text"}); err == nil {
		t.Error("unreadable CHAR length accepted")
	}
}
