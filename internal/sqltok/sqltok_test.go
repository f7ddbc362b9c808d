package sqltok

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// render shows tokens compactly: words bare, identifiers in backticks, strings in single quotes,
// an executable token prefixed with '!'.
func render(toks []Token) string {
	parts := make([]string, len(toks))
	for i, t := range toks {
		s := t.Text
		switch t.Kind {
		case Ident:
			s = "`" + s + "`"
		case String:
			s = "'" + s + "'"
		}
		if t.Executable {
			s = "!" + s
		}
		parts[i] = s
	}
	return strings.Join(parts, " ")
}

func TestTokenize(t *testing.T) {
	cases := []struct {
		name, in string
		o        Options
		want     string
	}{
		{"words and punctuation", "ALTER TABLE db.t ADD c INT(11);", Options{}, "ALTER TABLE db . t ADD c INT ( 11 ) ;"},
		{"hash comment", "ALTER # TABLE t\nTABLE t", Options{}, "ALTER TABLE t"},
		{"dash comment with space", "ALTER -- TABLE x\nTABLE t", Options{}, "ALTER TABLE t"},
		{"dash comment with newline (driver style)", "--\nALTER TABLE t", Options{}, "ALTER TABLE t"},
		{"dash comment with tab", "--\tx\nALTER TABLE t", Options{}, "ALTER TABLE t"},
		{"dash comment with carriage return runs to the newline", "--\rALTER TABLE x\nt", Options{}, "t"},
		{"dash comment with control char", "--\x01x\nt", Options{}, "t"},
		{"dash dash at the end", "t --", Options{}, "t"},
		{"dash dash without space is two minuses", "1--1", Options{}, "1 - - 1"},
		{"dash dash x", "t --x", Options{}, "t - - x"},
		{"block comment", "/* ALTER TABLE t */ ANALYZE TABLE t", Options{}, "ANALYZE TABLE t"},
		{"block comment does not nest", "/* a /* b */ c */", Options{}, "c * /"},
		{"block comment with M", "/*M ALTER */ x", Options{}, "x"},
		{"executable comment", "/*! ALTER TABLE t */", Options{}, "!ALTER !TABLE !t"},
		{"executable comment glued", "/*!ALTER*/TABLE t", Options{}, "!ALTER TABLE t"},
		{"versioned", "/*!50100 ALTER TABLE t */ x", Options{}, "!ALTER !TABLE !t x"},
		{"six digit version", "/*!100100 ALTER */", Options{}, "!ALTER"},
		{"four digits are content", "/*!1234 x */", Options{}, "!1234 !x"},
		{"MariaDB syntax", "/*M! ALTER */ /*M!100100 TABLE */", Options{}, "!ALTER !TABLE"},
		{"comment inside executable", "/*! ALTER /* no */ TABLE */", Options{}, "!ALTER !TABLE"},
		{"string with */ inside executable", "/*! 'a*/b' */ x", Options{}, "!'a*/b' x"},
		{"dash comment inside executable", "/*! a -- b */\nc */ d", Options{}, "!a !c d"},
		{"*/ outside executable is punctuation", "a */ b", Options{}, "a * / b"},
		{"too new for the server", "a /*!999999 b */ c", Options{ServerVersion: 101119, MariaDB: true}, "a c"},
		{"too new holds one nested comment", "a /*!999999 b /* c */ d */ e", Options{ServerVersion: 101119, MariaDB: true}, "a e"},
		{"MySQL-only on MariaDB", "a /*!80023 b */ c", Options{ServerVersion: 101119, MariaDB: true}, "a c"},
		{"MySQL-only on MySQL", "a /*!80023 b */ c", Options{ServerVersion: 80036}, "a !b c"},
		{"M! on MySQL is a comment", "a /*M! b */ c", Options{ServerVersion: 80036}, "a c"},
		{"M! version below 50700 rule", "a /*M!80023 b */ c", Options{ServerVersion: 101119, MariaDB: true}, "a !b c"},
		{"zero version runs everything", "a /*!999999 b */ c", Options{}, "a !b c"},
		{"backslash escape", `'it\'s' x`, Options{}, "'it's' x"},
		{"doubled quote", `'it''s' "a""b"`, Options{}, `'it's' 'a"b'`},
		{"escapes", `'\n\t\%\_\\'`, Options{}, "'\n\t\\%\\_\\'"},
		{"no backslash escapes", `'a\' x`, Options{NoBackslashEscapes: true}, `'a\' x`},
		{"backtick doubled", "`we``ird` `a\\`", Options{}, "`we`ird` `a\\`"},
		{"ansi quotes", `"t" 'x'`, Options{AnsiQuotes: true}, "`t` 'x'"},
		{"keywords in strings and identifiers", "'ALTER TABLE t' `ALTER`", Options{}, "'ALTER TABLE t' `ALTER`"},
		{"unicode word", "tëst_1$", Options{}, "tëst_1$"},
		{"empty executable comment", "/*!*/ x", Options{}, "x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			toks, err := Tokenize(c.in, c.o)
			if err != nil {
				t.Fatalf("Tokenize(%q): %v", c.in, err)
			}
			if got := render(toks); got != c.want {
				t.Errorf("Tokenize(%q) = %s, want %s", c.in, got, c.want)
			}
			for _, tok := range toks {
				if tok.Start < 0 || tok.End > len(c.in) || tok.Start >= tok.End {
					t.Errorf("token %q has offsets %d..%d", tok.Text, tok.Start, tok.End)
				}
			}
		})
	}
}

func TestTokenizeOffsets(t *testing.T) {
	in := "ALTER /*! TABLE */ `a``b` 'x''y'"
	toks, err := Tokenize(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tok := range toks {
		got = append(got, in[tok.Start:tok.End])
	}
	if want := "ALTER|TABLE|`a``b`|'x''y'"; strings.Join(got, "|") != want {
		t.Errorf("token spans %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestTokenizeRefuses(t *testing.T) {
	cases := []struct {
		in  string
		o   Options
		msg string
		pos int
	}{
		{"a 'open", Options{}, "unterminated ' string", 2},
		{`a "open`, Options{}, `unterminated " string`, 2},
		{`a "open`, Options{AnsiQuotes: true}, `unterminated "identifier"`, 2},
		{"a `open", Options{}, "unterminated `identifier`", 2},
		{`'a\'`, Options{}, "unterminated ' string", 0},
		{"a /* open", Options{}, "unterminated /* comment", 2},
		{"a /*! open", Options{}, "unterminated /*! executable comment", 2},
		{"a /*! b # c */", Options{}, "unterminated /*! executable comment", 2},
		{"a /*!999999 open", Options{ServerVersion: 101119}, "unterminated /*! versioned comment", 2},
		{"a /*! b /*! c */ d */", Options{}, "executable comment nested in another", 8},
	}
	for _, c := range cases {
		_, err := Tokenize(c.in, c.o)
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Msg, c.msg) || e.Pos != c.pos {
			t.Errorf("Tokenize(%q) = %v, want %q at byte %d", c.in, err, c.msg, c.pos)
		}
	}
}

func TestTokenHelpers(t *testing.T) {
	toks, err := Tokenize("alter `t` ,", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !toks[0].IsWord("ALTER") || toks[1].IsWord("t") || !toks[2].IsPunct(',') || toks[0].IsPunct('a') {
		t.Error("IsWord/IsPunct")
	}
	if n, ok := toks[1].Name(); !ok || n != "t" {
		t.Errorf("Name of `t` = %q, %v", n, ok)
	}
	if _, ok := toks[2].Name(); ok {
		t.Error("punctuation has a name")
	}
	if s := fmt.Sprint(&Error{Pos: 3, Msg: "unterminated ' string"}); s != "unterminated ' string at byte 3" {
		t.Errorf("Error() = %q", s)
	}
}
