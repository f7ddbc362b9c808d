package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
)

// The ALTER given with --alter is parsed only as far as go-ghostlite must understand it: where its
// clauses start, whether it renames the table (refused) and which columns it renames. The server
// validates everything else when the ALTER runs on the ghost table. The tokens come from
// internal/sqltok, so a comma or a keyword inside a quoted identifier, a string or a comment never
// counts.

// ColumnRename is a column rename read from the ALTER: CHANGE [COLUMN] from to ..., or
// RENAME COLUMN from TO to. Names are as written (without quotes).
type ColumnRename struct {
	From, To string
}

// AlterSpec is a parsed ALTER.
type AlterSpec struct {
	// Body is the clauses, ready to follow "ALTER TABLE <ghost> ": the leading "ALTER TABLE t" and
	// a trailing semicolon removed, the rest as the user wrote it.
	Body    string
	Renames []ColumnRename
	// Recreated are columns the ALTER both drops and adds (DROP COLUMN c, ADD COLUMN c ...): the
	// new column is another column, filled with its default, never with the old values.
	Recreated []string
}

// token is a token of the ALTER with its parenthesis depth (a '(' counts outside itself).
type token struct {
	sqltok.Token
	depth int
}

func (t token) isWord(w string) bool { return t.IsWord(w) }

func (t token) isPunct(p byte) bool { return t.IsPunct(p) }

// name returns the identifier a token spells, when it can be one.
func (t token) name() (string, bool) { return t.Name() }

// tokenize splits the ALTER into tokens with internal/sqltok (the default sql_mode), skipping white
// space and comments. It refuses what the server would refuse to read (unterminated quotes and
// comments), unbalanced parentheses, and executable comments (/*! ... */, /*M! ... */): their
// content is SQL the server would run, and the ALTER is checked as plain SQL only.
func tokenize(s string) ([]token, error) {
	raw, err := sqltok.Tokenize(s, sqltok.Options{})
	if err != nil {
		var te *sqltok.Error
		if errors.As(err, &te) {
			return nil, fmt.Errorf("the ALTER has an %s: close it or remove it", te)
		}
		return nil, fmt.Errorf("read the ALTER: %w", err)
	}
	toks := make([]token, 0, len(raw))
	depth := 0
	for _, t := range raw {
		if t.Executable {
			return nil, errors.New("the ALTER contains an executable comment (/*! ... */): write its content as plain SQL")
		}
		if t.IsPunct(')') {
			if depth == 0 {
				return nil, errors.New("the ALTER has an unbalanced ')'")
			}
			depth--
		}
		toks = append(toks, token{Token: t, depth: depth})
		if t.IsPunct('(') {
			depth++
		}
	}
	if depth != 0 {
		return nil, errors.New("the ALTER has an unbalanced '('")
	}
	return toks, nil
}

// ParseAlter parses the --alter value for a migration of schema.tbl. It accepts the clauses alone
// or after "ALTER [ONLINE] [IGNORE] TABLE [schema.]tbl", refuses an empty ALTER, more than one
// statement, an ALTER that names another table, one that renames the table and the clauses
// reachRefusal refuses (alterreach.go), and returns the
// column renames it finds.
func ParseAlter(stmt, schema, tbl string) (*AlterSpec, error) {
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
			stmt = stmt[:t.Start]
		}
	}
	toks, bodyStart, err := stripAlterPrefix(toks, schema, tbl)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, errors.New("the ALTER is empty: give the clauses to apply, e.g. --alter \"ADD COLUMN c INT\"")
	}
	if err := reachRefusal(toks, schema, tbl); err != nil {
		return nil, err
	}
	spec := &AlterSpec{Body: strings.TrimSpace(stmt[bodyStart:])}
	dropped, added := map[string]bool{}, map[string]bool{}
	for i, t := range toks {
		if t.depth != 0 || t.Kind != sqltok.Word {
			continue
		}
		switch strings.ToUpper(t.Text) {
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
		return toks, toks[0].Start, nil
	}
	i := 1
	for i < len(toks) && (toks[i].isWord("ONLINE") || toks[i].isWord("IGNORE")) {
		i++
	}
	if i >= len(toks) || !toks[i].isWord("TABLE") {
		// A clause such as ALTER COLUMN c SET DEFAULT 1 or ALTER INDEX i INVISIBLE.
		return toks, toks[0].Start, nil
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
	return toks[i:], toks[i].Start, nil
}

func tokenName(toks []token, i int) (string, bool) {
	if i >= len(toks) {
		return "", false
	}
	return toks[i].name()
}

// parseRename reads what follows a RENAME keyword: COLUMN a TO b is a column rename, INDEX/KEY a TO b
// is harmless, anything else renames the table and is refused.
func parseRename(rest []token, tbl string) (*ColumnRename, error) {
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
		return &ColumnRename{From: from, To: to}, nil
	}
	return nil, fmt.Errorf("alter statement seems to RENAME the table. This is not supported, and you should run your RENAME outside the migration: the ALTER gives %s another name (RENAME TO), while the migration keeps it; migrate without RENAME TO, then run RENAME TABLE", tbl)
}

// parseChange reads what follows CHANGE: [COLUMN] [IF EXISTS] old new <definition>.
func parseChange(rest []token) (*ColumnRename, error) {
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
	return &ColumnRename{From: from, To: to}, nil
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
	} else if i < len(rest) && rest[i].Kind == sqltok.Word && notColumn[strings.ToUpper(rest[i].Text)] {
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
	} else if i < len(rest) && rest[i].Kind == sqltok.Word && notColumn[strings.ToUpper(rest[i].Text)] {
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
				if n, ok := t.name(); ok && !(t.Kind == sqltok.Word && notColumn[strings.ToUpper(t.Text)]) {
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
