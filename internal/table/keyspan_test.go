package table

import "testing"

func TestKeySpanExcludesOnlyIntegerKeysOutsideIt(t *testing.T) {
	s := KeySpan{Column: "id", Lower: "10", Upper: "20"}
	for _, c := range []struct {
		column string
		v      any
		out    bool
	}{
		{"id", int64(10), true}, {"id", int64(11), false}, {"ID", int64(20), false}, {"id", int64(21), true},
		{"id", int64(-5), true}, {"id", uint64(18446744073709551615), true}, {"id", uint64(15), false},
		{"other", int64(99), false}, {"id", "99", false}, {"id", nil, false},
	} {
		if got := s.Excludes(c.column, c.v); got != c.out {
			t.Errorf("Excludes(%s, %v) = %v, want %v", c.column, c.v, got, c.out)
		}
	}
	incl := KeySpan{Column: "id", Lower: "10", LowerInclusive: true}
	if incl.Excludes("id", int64(10)) || incl.Excludes("id", int64(1<<62)) || !incl.Excludes("id", int64(9)) {
		t.Error("an inclusive lower end with no upper end")
	}
	if (KeySpan{}).Excludes("id", int64(1)) {
		t.Error("the zero span excludes a key")
	}
	tbl := &Table{Columns: []Column{{Name: "id", DataType: "bigint"}, {Name: "s", DataType: "varchar"}}}
	if sp := IntegerKeySpan(tbl, Key{Columns: []string{"s"}}, []byte("a"), false, []byte("b")); sp.Column != "" {
		t.Error("a span over a string key")
	}
	if sp := IntegerKeySpan(tbl, Key{Columns: []string{"id", "s"}}, nil, false, nil); sp.Column != "" {
		t.Error("a span over two columns")
	}
	if sp := IntegerKeySpan(tbl, Key{Columns: []string{"id"}}, []byte("1"), true, []byte("9")); sp != (KeySpan{Column: "id", Lower: "1", Upper: "9", LowerInclusive: true}) {
		t.Errorf("span over an integer key: %+v", sp)
	}
}
