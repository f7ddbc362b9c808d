// Package sqltok splits MariaDB/MySQL statement text into tokens the way the server's lexer does,
// as far as go-ghostlite needs: where words, quoted identifiers, strings and punctuation are, and
// which text is a comment. It is the one tokenizer of the project (the --alter parser and the
// binlog DDL watcher both use it).
//
// Invariants (each checked against a real MariaDB 10.11 lexer, see the tests):
//   - Comments are never tokens: "# ..." and "-- ..." to the end of the line ("--" only when a space,
//     a control character such as a newline, or the end of the text follows; "1--1" is 1 - -1),
//     and "/* ... */", which does not nest.
//   - Executable comments "/*! ... */", "/*!NNNNN ... */", "/*M! ... */" and "/*M!NNNNNN ... */" are
//     SQL: their content is tokenized like the rest, each token marked Executable. A "/* */"
//     comment inside one is a comment; a "*/" inside a string inside one does not end it; an
//     executable comment nested in another is an error (the server refuses it). With
//     Options.ServerVersion zero every versioned comment counts as executed (the safe reading for
//     a watcher: the server rewrites a versioned comment it skipped to "/* NNNNN" in its binary
//     log); otherwise the server's rule decides, and a skipped one is a comment that may contain
//     one nested "/* */".
//   - Strings ('...' and "...") know doubled quotes and backslash escapes (unless
//     Options.NoBackslashEscapes); identifiers (`...`, and "..." under Options.AnsiQuotes) know
//     doubled quotes only. Token.Text is the unquoted value; Start and End are byte offsets of the
//     token as written, quotes included.
//   - Anything the server would reject as unterminated (a string, an identifier, a comment) is an
//     *Error, never a guess.
//
// Not modelled: numbers are words and punctuation ("1.5e3" is three tokens), multi-byte operators
// are single bytes, and character-set introducers (_utf8'x') are a word followed by a string.
package sqltok

import (
	"fmt"
	"strings"
)

// Kind is what a token is.
type Kind int

const (
	Word   Kind = iota // an unquoted keyword, identifier or number
	Ident              // a quoted identifier (Text unquoted)
	String             // a string literal (Text unquoted)
	Punct              // any other single byte: , ( ) . = ; * / @ ...
)

// Token is one lexical unit of a statement.
type Token struct {
	Kind       Kind
	Text       string
	Start, End int  // byte offsets in the input, quotes included
	Executable bool // inside an executable comment /*! ... */ or /*M! ... */
}

// IsWord reports whether t is the unquoted word w (any case).
func (t Token) IsWord(w string) bool { return t.Kind == Word && strings.EqualFold(t.Text, w) }

// IsPunct reports whether t is the punctuation byte p.
func (t Token) IsPunct(p byte) bool { return t.Kind == Punct && len(t.Text) == 1 && t.Text[0] == p }

// Name returns the identifier t spells, when it can be one (a word or a quoted identifier).
func (t Token) Name() (string, bool) {
	if t.Kind == Word || t.Kind == Ident {
		return t.Text, true
	}
	return "", false
}

// Options are the session settings that change how the server reads a statement.
type Options struct {
	NoBackslashEscapes bool // sql_mode NO_BACKSLASH_ESCAPES: a backslash in a string is itself
	AnsiQuotes         bool // sql_mode ANSI_QUOTES: "..." is an identifier, not a string
	// ServerVersion (e.g. 101119 for 10.11.19) decides which versioned comments run; zero runs
	// them all, /*M! included. MariaDB says whether that server is MariaDB, which skips
	// /*!50700../*!99999 (MySQL-only features) whatever its version; MySQL reads /*M! as a plain
	// comment. Versions are read as MariaDB does: 5 digits, or 6 when a sixth follows.
	ServerVersion int
	MariaDB       bool
}

// Error is a text the server would refuse to read; Pos is the byte offset of what is not closed.
type Error struct {
	Pos int
	Msg string // e.g. "unterminated ' string"; reads well after "an"
}

func (e *Error) Error() string { return fmt.Sprintf("%s at byte %d", e.Msg, e.Pos) }

// Tokenize splits s into tokens.
func Tokenize(s string, o Options) ([]Token, error) {
	l := &lexer{s: s, o: o, execStart: -1}
	for l.i < len(s) {
		if err := l.step(); err != nil {
			return nil, err
		}
	}
	if l.execStart >= 0 {
		return nil, &Error{Pos: l.execStart, Msg: "unterminated /*! executable comment"}
	}
	return l.toks, nil
}

type lexer struct {
	s         string
	o         Options
	i         int
	toks      []Token
	execStart int // offset of the executable comment being read, -1 outside one
}

// step reads one token, comment or run of white space at l.i.
func (l *lexer) step() error {
	s, c := l.s, l.s[l.i]
	switch {
	case isSpace(c):
		l.i++
	case c == '#' || (c == '-' && l.dashComment()):
		l.skipLine()
	case c == '/' && strings.HasPrefix(s[l.i:], "/*"):
		return l.comment()
	case c == '*' && l.execStart >= 0 && strings.HasPrefix(s[l.i:], "*/"):
		l.execStart = -1
		l.i += 2
	case c == '`' || c == '\'' || c == '"':
		return l.quoted(c)
	case isWordByte(c):
		j := l.i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		l.emit(Word, s[l.i:j], j)
	default:
		l.emit(Punct, s[l.i:l.i+1], l.i+1)
	}
	return nil
}

func (l *lexer) emit(k Kind, text string, end int) {
	l.toks = append(l.toks, Token{Kind: k, Text: text, Start: l.i, End: end, Executable: l.execStart >= 0})
	l.i = end
}

// dashComment reports whether the "-" at l.i starts a "-- " comment: a second dash followed by
// white space, a control character or the end of the text.
func (l *lexer) dashComment() bool {
	s, i := l.s, l.i
	if i+1 >= len(s) || s[i+1] != '-' {
		return false
	}
	return i+2 == len(s) || s[i+2] <= ' ' || s[i+2] == 0x7f
}

func (l *lexer) skipLine() {
	if nl := strings.IndexByte(l.s[l.i:], '\n'); nl >= 0 {
		l.i += nl + 1
	} else {
		l.i = len(l.s)
	}
}

// comment reads a comment starting with "/*" at l.i: a plain one, or the opening of an executable one.
func (l *lexer) comment() error {
	s, start := l.s, l.i
	marker := 0 // length of "/*!" or "/*M!"
	if strings.HasPrefix(s[start:], "/*!") {
		marker = 3
	} else if strings.HasPrefix(s[start:], "/*M!") {
		marker = 4
	}
	if marker == 4 && l.o.ServerVersion != 0 && !l.o.MariaDB {
		marker = 0 // MySQL reads /*M! as a plain comment
	}
	if marker == 0 {
		end := strings.Index(s[start+2:], "*/")
		if end < 0 {
			return &Error{Pos: start, Msg: "unterminated /* comment"}
		}
		l.i = start + 2 + end + 2
		return nil
	}
	if l.execStart >= 0 {
		return &Error{Pos: start, Msg: "executable comment nested in another (the server refuses it)"}
	}
	l.i = start + marker
	version, digits := readVersion(s[l.i:])
	l.i += digits
	if digits > 0 && !l.runs(version, marker == 4) {
		return l.skipVersioned(start)
	}
	l.execStart = start
	return nil
}

// readVersion reads the 5 or 6 digit version right after "/*!" or "/*M!".
func readVersion(s string) (version, digits int) {
	for digits < len(s) && digits < 6 && s[digits] >= '0' && s[digits] <= '9' {
		version = version*10 + int(s[digits]-'0')
		digits++
	}
	if digits < 5 {
		return 0, 0
	}
	return version, digits
}

// runs says whether the server runs a versioned comment.
func (l *lexer) runs(version int, mariaSyntax bool) bool {
	if l.o.ServerVersion == 0 {
		return true
	}
	if l.o.MariaDB && !mariaSyntax && version >= 50700 && version <= 99999 {
		return false
	}
	return version <= l.o.ServerVersion
}

// skipVersioned skips a versioned comment the server does not run: up to its "*/", past one
// nested "/* ... */".
func (l *lexer) skipVersioned(start int) error {
	s := l.s
	for l.i < len(s) {
		switch {
		case strings.HasPrefix(s[l.i:], "/*"):
			end := strings.Index(s[l.i+2:], "*/")
			if end < 0 {
				l.i = len(s)
				continue
			}
			l.i += 2 + end + 2
		case strings.HasPrefix(s[l.i:], "*/"):
			l.i += 2
			return nil
		default:
			l.i++
		}
	}
	return &Error{Pos: start, Msg: "unterminated /*! versioned comment"}
}

// quoted reads a string or quoted identifier whose opening quote q is at l.i.
func (l *lexer) quoted(q byte) error {
	kind := String
	if q == '`' || (q == '"' && l.o.AnsiQuotes) {
		kind = Ident
	}
	escapes := kind == String && !l.o.NoBackslashEscapes
	s := l.s
	var b strings.Builder
	for j := l.i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '\\' && escapes && j+1 < len(s):
			b.WriteString(unescape(s[j+1]))
			j++
		case c == q && j+1 < len(s) && s[j+1] == q:
			b.WriteByte(q)
			j++
		case c == q:
			l.emit(kind, b.String(), j+1)
			return nil
		default:
			b.WriteByte(c)
		}
	}
	if kind == Ident {
		return &Error{Pos: l.i, Msg: fmt.Sprintf("unterminated %cidentifier%c", q, q)}
	}
	return &Error{Pos: l.i, Msg: fmt.Sprintf("unterminated %c string", q)}
}

// unescape is what a backslash escape stands for in a string (\% and \_ keep their backslash).
func unescape(c byte) string {
	switch c {
	case '0':
		return "\x00"
	case 'b':
		return "\b"
	case 'n':
		return "\n"
	case 'r':
		return "\r"
	case 't':
		return "\t"
	case 'Z':
		return "\x1a"
	case '%', '_':
		return "\\" + string(c)
	}
	return string(c)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// MentionsName reports whether name appears in q as a name: in any case, not inside a longer word.
// It is the fallback where a statement cannot be read: by mention only.
func MentionsName(q, name string) bool {
	lq, ln := strings.ToLower(q), strings.ToLower(name)
	for from := 0; ln != ""; {
		i := strings.Index(lq[from:], ln)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(ln)
		if (start == 0 || !isNameByte(lq[start-1])) && (end == len(lq) || !isNameByte(lq[end])) {
			return true
		}
		from = start + 1
	}
	return false
}

// isNameByte is a byte an unquoted name may hold.
func isNameByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
