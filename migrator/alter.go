package migrator

import (
	"errors"
	"fmt"
	"strings"
)

// The ALTER given with --alter is parsed only as far as go-ghostlite must understand it: where its
// clauses start, whether it renames the table (refused) and which columns it renames. The server
// validates everything else when the ALTER runs on the ghost table. The tokenizer knows backtick
// identifiers, quoted strings and comments, so a comma or a keyword inside them never counts.

// columnRename is a column rename read from the ALTER: CHANGE [COLUMN] from to ..., or
// RENAME COLUMN from TO to. Names are as written (without quotes).
type columnRename struct {
	From, To string
}

// alterSpec is a parsed ALTER.
type alterSpec struct {
	// Body is the clauses, ready to follow "ALTER TABLE <ghost> ": the leading "ALTER TABLE t" and
	// a trailing semicolon removed, the rest as the user wrote it.
	Body    string
	Renames []columnRename
	// Recreated are columns the ALTER both drops and adds (DROP COLUMN c, ADD COLUMN c ...): the
	// new column is another column, filled with its default, never with the old values.
	Recreated []string
}

type tokenKind int

const (
	tokWord   tokenKind = iota // unquoted keyword, identifier or number
	tokIdent                   // `quoted identifier` (text unquoted)
	tokString                  // 'string' or "string" (text unquoted)
	tokPunct                   // any other single character: , ( ) . = ;
)

type token struct {
	kind       tokenKind
	text       string
	start, end int // byte offsets in the input
	depth      int // parenthesis depth at the token (a '(' counts outside itself)
}

func (t token) isWord(w string) bool { return t.kind == tokWord && strings.EqualFold(t.text, w) }

func (t token) isPunct(p byte) bool { return t.kind == tokPunct && t.text == string(p) }

// name returns the identifier a token spells, when it can be one.
func (t token) name() (string, bool) {
	if t.kind == tokWord || t.kind == tokIdent {
		return t.text, true
	}
	return "", false
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// tokenize splits s into tokens, skipping white space and comments. It refuses unterminated
// quotes and comments, and executable comments (/*! ... */, /*M! ... */) whose content the server
// would run but a reader would take for a comment.
func tokenize(s string) ([]token, error) {
	var toks []token
	depth := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' || (c == '-' && strings.HasPrefix(s[i:], "--") && (i+2 == len(s) || strings.IndexByte(" \t\n\r", s[i+2]) >= 0)):
			if nl := strings.IndexByte(s[i:], '\n'); nl >= 0 {
				i += nl + 1
			} else {
				i = len(s)
			}
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			if strings.HasPrefix(s[i:], "/*!") || strings.HasPrefix(s[i:], "/*M!") {
				return nil, errors.New("the ALTER contains an executable comment (/*! ... */): write its content as plain SQL")
			}
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, errors.New("the ALTER has an unterminated /* comment")
			}
			i += end + 4
		case c == '`' || c == '\'' || c == '"':
			text, n, err := readQuoted(s[i:])
			if err != nil {
				return nil, err
			}
			kind := tokString
			if c == '`' {
				kind = tokIdent
			}
			toks = append(toks, token{kind: kind, text: text, start: i, end: i + n, depth: depth})
			i += n
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			toks = append(toks, token{kind: tokWord, text: s[i:j], start: i, end: j, depth: depth})
			i = j
		default:
			if c == ')' {
				if depth == 0 {
					return nil, errors.New("the ALTER has an unbalanced ')'")
				}
				depth--
			}
			toks = append(toks, token{kind: tokPunct, text: string(c), start: i, end: i + 1, depth: depth})
			if c == '(' {
				depth++
			}
			i++
		}
	}
	if depth != 0 {
		return nil, errors.New("the ALTER has an unbalanced '('")
	}
	return toks, nil
}

// readQuoted reads a quoted token at the start of s (its first byte is the quote) and returns the
// unquoted text and the number of bytes consumed. A doubled quote stands for itself; in strings a
// backslash escapes the next byte (the default sql_mode).
func readQuoted(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && q != '`' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i++
		case c == q && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case c == q:
			return b.String(), i + 1, nil
		default:
			b.WriteByte(c)
		}
	}
	if q == '`' {
		return "", 0, errors.New("the ALTER has an unterminated `identifier`")
	}
	return "", 0, fmt.Errorf("the ALTER has an unterminated %c string", q)
}

// parseAlter parses the --alter value for a migration of schema.tbl. It accepts the clauses alone
// or after "ALTER [ONLINE] [IGNORE] TABLE [schema.]tbl", refuses an empty ALTER, more than one
// statement, an ALTER that names another table and one that renames the table, and returns the
// column renames it finds.
func parseAlter(stmt, schema, tbl string) (*alterSpec, error) {
	toks, err := tokenize(stmt)
	if err != nil {
		return nil, err
	}
	// One statement only: a ';' may only end the text.
	for i, t := range toks {
		if t.isPunct(';') {
			if i != len(toks)-1 {
				return nil, errors.New("the ALTER contains more than one statement (';' in the middle): give the clauses of one ALTER")
			}
			toks = toks[:i]
			stmt = stmt[:t.start]
		}
	}
	toks, bodyStart, err := stripAlterPrefix(toks, schema, tbl)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, errors.New("the ALTER is empty: give the clauses to apply, e.g. --alter \"ADD COLUMN c INT\"")
	}
	spec := &alterSpec{Body: strings.TrimSpace(stmt[bodyStart:])}
	dropped, added := map[string]bool{}, map[string]bool{}
	for i, t := range toks {
		if t.depth != 0 || t.kind != tokWord {
			continue
		}
		switch strings.ToUpper(t.text) {
		case "RENAME":
			r, err := parseRename(toks[i+1:], tbl)
			if err != nil {
				return nil, err
			}
			if r != nil {
				spec.Renames = append(spec.Renames, *r)
			}
		case "DROP":
			if name, ok := droppedColumn(toks[i+1:]); ok {
				dropped[strings.ToLower(name)] = true
			}
		case "ADD":
			for _, name := range addedColumns(toks[i+1:], t.depth) {
				if dropped[strings.ToLower(name)] && !added[strings.ToLower(name)] {
					spec.Recreated = append(spec.Recreated, name)
				}
				added[strings.ToLower(name)] = true
			}
		case "CHANGE":
			r, err := parseChange(toks[i+1:])
			if err != nil {
				return nil, err
			}
			if r != nil {
				spec.Renames = append(spec.Renames, *r)
			}
		}
	}
	return spec, nil
}

// stripAlterPrefix removes a leading "ALTER [ONLINE] [IGNORE] TABLE [schema.]name" and checks it
// names the migrated table. It returns the remaining tokens and the byte offset where they start.
func stripAlterPrefix(toks []token, schema, tbl string) ([]token, int, error) {
	if len(toks) == 0 || !toks[0].isWord("ALTER") {
		if len(toks) == 0 {
			return toks, 0, nil
		}
		return toks, toks[0].start, nil
	}
	i := 1
	for i < len(toks) && (toks[i].isWord("ONLINE") || toks[i].isWord("IGNORE")) {
		i++
	}
	if i >= len(toks) || !toks[i].isWord("TABLE") {
		// A clause such as ALTER COLUMN c SET DEFAULT 1 or ALTER INDEX i INVISIBLE.
		return toks, toks[0].start, nil
	}
	i++
	first, ok := tokenName(toks, i)
	if !ok {
		return nil, 0, errors.New("the ALTER TABLE names no table: give the clauses alone or ALTER TABLE <table> <clauses>")
	}
	i++
	gotSchema, gotTable := "", first
	if i+1 < len(toks) && toks[i].isPunct('.') {
		second, ok := tokenName(toks, i+1)
		if !ok {
			return nil, 0, errors.New("the ALTER TABLE names no table after the schema")
		}
		gotSchema, gotTable = first, second
		i += 2
	}
	if gotTable != tbl || (gotSchema != "" && gotSchema != schema) {
		named := gotTable
		if gotSchema != "" {
			named = gotSchema + "." + gotTable
		}
		return nil, 0, fmt.Errorf("the ALTER names table %s but the migration is of %s.%s: fix --alter or --database/--table", named, schema, tbl)
	}
	if i >= len(toks) {
		return nil, 0, nil
	}
	return toks[i:], toks[i].start, nil
}

func tokenName(toks []token, i int) (string, bool) {
	if i >= len(toks) {
		return "", false
	}
	return toks[i].name()
}

// parseRename reads what follows a RENAME keyword: COLUMN a TO b is a column rename, INDEX/KEY a TO b
// is harmless, anything else renames the table and is refused.
func parseRename(rest []token, tbl string) (*columnRename, error) {
	if len(rest) > 0 && (rest[0].isWord("INDEX") || rest[0].isWord("KEY")) {
		return nil, nil
	}
	if len(rest) > 0 && rest[0].isWord("COLUMN") {
		from, ok1 := tokenName(rest, 1)
		to, ok2 := tokenName(rest, 3)
		if !ok1 || !ok2 || len(rest) < 3 || !rest[2].isWord("TO") {
			return nil, errors.New("the ALTER has a RENAME COLUMN that is not RENAME COLUMN a TO b")
		}
		if strings.EqualFold(from, to) {
			return nil, nil
		}
		return &columnRename{From: from, To: to}, nil
	}
	return nil, fmt.Errorf("the ALTER renames the table %s (RENAME TO): go-ghostlite keeps the table's name; migrate, then RENAME TABLE separately", tbl)
}

// parseChange reads what follows CHANGE: [COLUMN] [IF EXISTS] old new <definition>.
func parseChange(rest []token) (*columnRename, error) {
	i := 0
	if i < len(rest) && rest[i].isWord("COLUMN") {
		i++
	}
	if i+1 < len(rest) && rest[i].isWord("IF") && rest[i+1].isWord("EXISTS") {
		i += 2
	}
	from, ok1 := tokenName(rest, i)
	to, ok2 := tokenName(rest, i+1)
	if !ok1 || !ok2 {
		return nil, errors.New("the ALTER has a CHANGE that is not CHANGE [COLUMN] old_name new_name definition")
	}
	if strings.EqualFold(from, to) {
		return nil, nil
	}
	return &columnRename{From: from, To: to}, nil
}

// renameRefusal returns the refusal for renames the user approved neither way, or nil.
func renameRefusal(renames []columnRename, approve, skip bool) error {
	if len(renames) == 0 || approve || skip {
		return nil
	}
	parts := make([]string, len(renames))
	froms := make([]string, len(renames))
	tos := make([]string, len(renames))
	for i, r := range renames {
		parts[i] = r.From + " to " + r.To
		froms[i] = r.From
		tos[i] = r.To
	}
	noun := "column"
	if len(renames) > 1 {
		noun = "columns"
	}
	return fmt.Errorf("the ALTER renames %s %s: pass --approve-renamed-columns to copy %s's data into %s, or --skip-renamed-columns to leave %s empty",
		noun, strings.Join(parts, ", "), strings.Join(froms, "/"), strings.Join(tos, "/"), strings.Join(tos, "/"))
}

// notColumn are the words after ADD or DROP that start something other than a column.
var notColumn = map[string]bool{"INDEX": true, "KEY": true, "PRIMARY": true, "UNIQUE": true, "FULLTEXT": true,
	"SPATIAL": true, "CONSTRAINT": true, "FOREIGN": true, "CHECK": true, "PARTITION": true, "PERIOD": true,
	"SYSTEM": true, "VECTOR": true}

// droppedColumn reads what follows DROP: [COLUMN] [IF EXISTS] name, or false for anything else.
func droppedColumn(rest []token) (string, bool) {
	i := 0
	if i < len(rest) && rest[i].isWord("COLUMN") {
		i++
	} else if i < len(rest) && rest[i].kind == tokWord && notColumn[strings.ToUpper(rest[i].text)] {
		return "", false
	}
	if i+1 < len(rest) && rest[i].isWord("IF") && rest[i+1].isWord("EXISTS") {
		i += 2
	}
	return tokenName(rest, i)
}

// addedColumns reads what follows ADD: [COLUMN] [IF NOT EXISTS] name ..., or a parenthesized list
// of column definitions; nothing for an index, key or constraint. depth is the ADD token's depth.
func addedColumns(rest []token, depth int) []string {
	i := 0
	if i < len(rest) && rest[i].isWord("COLUMN") {
		i++
	} else if i < len(rest) && rest[i].kind == tokWord && notColumn[strings.ToUpper(rest[i].text)] {
		return nil
	}
	if i+2 < len(rest) && rest[i].isWord("IF") && rest[i+1].isWord("NOT") && rest[i+2].isWord("EXISTS") {
		i += 3
	}
	if i < len(rest) && rest[i].isPunct('(') {
		// ADD [COLUMN] (a INT, b INT): each name opens a definition at depth+1.
		var names []string
		expect := true
		for _, t := range rest[i+1:] {
			if t.depth <= depth {
				break
			}
			if t.depth == depth+1 && t.isPunct(',') {
				expect = true
				continue
			}
			if expect && t.depth == depth+1 {
				if n, ok := t.name(); ok && !(t.kind == tokWord && notColumn[strings.ToUpper(t.text)]) {
					names = append(names, n)
				}
				expect = false
			}
		}
		return names
	}
	if n, ok := tokenName(rest, i); ok {
		return []string{n}
	}
	return nil
}
