package table

import (
	"reflect"
	"testing"
)

func TestQuoteIdent(t *testing.T) {
	cases := map[string]string{"a": "`a`", "we`ird": "`we``ird`", "": "``"}
	for in, want := range cases {
		if got := QuoteIdent(in); got != want {
			t.Errorf("QuoteIdent(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Qualify("s", "t"); got != "`s`.`t`" {
		t.Errorf("Qualify = %q", got)
	}
	if got := Placeholders(3); got != "?, ?, ?" {
		t.Errorf("Placeholders(3) = %q", got)
	}
}

func TestHelperTableNames(t *testing.T) {
	if GhostName("t") != "_t_gho" || OldName("t", "") != "_t_del" {
		t.Fatal("helper table names differ from gh-ost's")
	}
	if got := OldName("t", "20261121180501"); got != "_t_20261121180501_del" {
		t.Fatalf("OldName with timestamp = %q", got)
	}
}

func TestParseEnumValues(t *testing.T) {
	got := ParseEnumValues("enum('a','b''c','d,e','')")
	want := []string{"a", "b'c", "d,e", ""}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q want %q", got, want)
	}
	if got := ParseEnumValues("set('x','y')"); !reflect.DeepEqual(got, []string{"x", "y"}) {
		t.Fatalf("set: got %q", got)
	}
}

func TestGeneratedColumnFromExtra(t *testing.T) {
	for _, c := range []struct {
		extra, expr string
		want        bool
	}{
		{"VIRTUAL GENERATED", "(`a` + 1)", true},
		{"STORED GENERATED", "(`a` + 2)", true},
		{"PERSISTENT GENERATED", "", true},
		{"DEFAULT_GENERATED", "", false},
		{"DEFAULT_GENERATED on update CURRENT_TIMESTAMP(6)", "", false},
		{"on update current_timestamp(6)", "", false},
		{"INVISIBLE", "", false},
		{"auto_increment", "", false},
		{"", "", false},
	} {
		if got := generatedColumn(c.extra, c.expr); got != c.want {
			t.Errorf("generatedColumn(%q, %q) = %v, want %v", c.extra, c.expr, got, c.want)
		}
	}
}
