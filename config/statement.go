package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
)

// --statement (Spirit's flag): the change as SQL statements separated by ';', in the schema
// --database names, instead of --table and --alter. ParseStatement reads each statement as the
// table it changes and the clauses of an ALTER TABLE of it; the server validates the clauses when
// the ALTER runs on the ghost table, as for --alter.
//
// Rules (doc/flags.md, "--statement"):
//   - ALTER [ONLINE] [IGNORE] TABLE [schema.]t <clauses> is t and its clauses, as --alter reads a
//     leading ALTER TABLE (plan.ParseAlter); ALGORITHM= and LOCK= stay clauses, as in --alter;
//   - CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX [IF NOT EXISTS] i [USING type] ON [schema.]t (parts)
//     [options] is ADD [UNIQUE|FULLTEXT|SPATIAL] INDEX [IF NOT EXISTS] i (parts) [USING type]
//     [options], its ALGORITHM= and LOCK= options becoming clauses of their own;
//     DROP INDEX [IF EXISTS] i ON [schema.]t is DROP INDEX [IF EXISTS] i, likewise;
//   - a schema named must be the given one; a table may appear in one statement only (names
//     compare without case: refusing twins that differ in case is safe, missing one is not);
//   - every other statement needs no online migration and is refused (never run); empty
//     statements between ';' are ignored, and a text with no statement is refused;
//   - the text is read by internal/sqltok (the default sql_mode); executable comments are refused,
//     as in --alter.
//
// Every refusal is one line starting with "--statement" and wraps ErrUsage.

// TableAlter is one statement of --statement: the table it changes (in --database) and the ALTER's
// clauses without "ALTER TABLE t", the form Config.Alter holds.
type TableAlter struct {
	Table, Alter string
}

// stmtToken is a token of one statement with its parenthesis depth (a '(' counts outside itself).
type stmtToken struct {
	sqltok.Token
	depth int
}

// statement is one non-empty statement of the text: its tokens and the text it spans.
type statement struct {
	text string // the whole --statement text: token offsets point into it
	toks []stmtToken
}

// ParseStatement reads text, one or more statements separated by ';' in schema, as one TableAlter
// per statement, in order. It asks no server.
func ParseStatement(text, schema string) ([]TableAlter, error) {
	stmts, err := splitStatements(text)
	if err != nil {
		return nil, err
	}
	if len(stmts) == 0 {
		return nil, usagef("--statement has no statement: give one or more ALTER TABLE, CREATE INDEX or DROP INDEX statements separated by ';'")
	}
	var out []TableAlter
	seen := map[string]string{} // lower-case name -> the name as first written
	for _, s := range stmts {
		ta, err := s.tableAlter(schema)
		if err != nil {
			return nil, err
		}
		if first, ok := seen[strings.ToLower(ta.Table)]; ok {
			return nil, usagef("--statement: table %s appears in two statements; merge them into one ALTER TABLE", first)
		}
		seen[strings.ToLower(ta.Table)] = ta.Table
		out = append(out, ta)
	}
	return out, nil
}

func usagef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// splitStatements tokenizes text and cuts it at each ';', dropping empty statements.
func splitStatements(text string) ([]statement, error) {
	raw, err := sqltok.Tokenize(text, sqltok.Options{})
	if err != nil {
		var te *sqltok.Error
		if errors.As(err, &te) {
			return nil, usagef("--statement has an %s: close it or remove it", te)
		}
		return nil, usagef("--statement: %v", err)
	}
	var stmts []statement
	cur := statement{text: text}
	depth := 0
	end := func() error {
		if depth != 0 {
			return usagef("--statement: %s has an unbalanced '(': close it", cur.quoted())
		}
		if len(cur.toks) > 0 {
			stmts = append(stmts, cur)
		}
		cur = statement{text: text}
		return nil
	}
	for _, t := range raw {
		if t.Executable {
			return nil, usagef("--statement contains an executable comment (/*! ... */): write its content as plain SQL")
		}
		switch {
		case t.IsPunct(';'):
			if err := end(); err != nil {
				return nil, err
			}
			continue
		case t.IsPunct(')'):
			if depth == 0 {
				cur.toks = append(cur.toks, stmtToken{Token: t})
				return nil, usagef("--statement: %s has an unbalanced ')'", cur.quoted())
			}
			depth--
		}
		cur.toks = append(cur.toks, stmtToken{Token: t, depth: depth})
		if t.IsPunct('(') {
			depth++
		}
	}
	if err := end(); err != nil {
		return nil, err
	}
	return stmts, nil
}

// span is the text of toks as written (comments between them included), "" for none.
func (s statement) span(toks []stmtToken) string {
	if len(toks) == 0 {
		return ""
	}
	return s.text[toks[0].Start:toks[len(toks)-1].End]
}

// quoted is the statement for a message: quoted, white space collapsed, cut after 60 bytes.
func (s statement) quoted() string {
	q := strings.Join(strings.Fields(s.span(s.toks)), " ")
	if len(q) > 60 {
		cut := 60
		for cut > 0 && !utf8.RuneStart(q[cut]) {
			cut--
		}
		q = q[:cut] + "..."
	}
	return `"` + q + `"`
}

// word is the upper-case word at i, "" when there is none or it is not a word.
func (s statement) word(i int) string {
	if i < len(s.toks) && s.toks[i].Kind == sqltok.Word {
		return strings.ToUpper(s.toks[i].Text)
	}
	return ""
}

// tableAlter reads one statement.
func (s statement) tableAlter(schema string) (TableAlter, error) {
	switch first := s.word(0); {
	case first == "ALTER":
		i := 1
		for s.word(i) == "ONLINE" || s.word(i) == "IGNORE" {
			i++
		}
		if s.word(i) == "TABLE" {
			return s.alterTable(i+1, schema)
		}
	case first == "CREATE":
		if i, ok := s.createIndexAt(); ok {
			return s.createIndex(i, schema)
		}
	case first == "DROP" && s.word(1) == "INDEX":
		return s.dropIndex(schema)
	}
	return TableAlter{}, usagef("--statement: %s needs no online migration: run it directly; --statement takes ALTER TABLE, CREATE INDEX and DROP INDEX statements only", s.quoted())
}

// tableName reads [schema.]name at i, checks the schema and returns the name and the index after it.
func (s statement) tableName(i int, schema, what string) (string, int, error) {
	name, ok := s.name(i)
	if !ok {
		return "", 0, usagef("--statement: %s names no table: write %s", s.quoted(), what)
	}
	if i+1 < len(s.toks) && s.toks[i+1].IsPunct('.') {
		second, ok := s.name(i + 2)
		if !ok {
			return "", 0, usagef("--statement: %s names no table after the schema %s", s.quoted(), name)
		}
		if name != schema {
			return "", 0, usagef("--statement: %s names schema %s; --database is %s: every table of --statement is in --database (migrate %s.%s in a run with --database=%s)",
				s.quoted(), name, schema, name, second, name)
		}
		return second, i + 3, nil
	}
	return name, i + 1, nil
}

// name is the identifier at i (a word or a quoted identifier).
func (s statement) name(i int) (string, bool) {
	if i >= len(s.toks) {
		return "", false
	}
	return s.toks[i].Name()
}

// alterTable reads what follows ALTER ... TABLE (at i).
func (s statement) alterTable(i int, schema string) (TableAlter, error) {
	tbl, i, err := s.tableName(i, schema, "ALTER TABLE <table> <clauses>")
	if err != nil {
		return TableAlter{}, err
	}
	if i >= len(s.toks) {
		return TableAlter{}, usagef("--statement: %s has no clauses: give what to change, e.g. ALTER TABLE %s ADD COLUMN c INT", s.quoted(), tbl)
	}
	return TableAlter{Table: tbl, Alter: s.span(s.toks[i:])}, nil
}

// createIndexAt says whether the statement is CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX, and where its
// INDEX is. A CREATE OR REPLACE / ONLINE / OFFLINE INDEX counts as one (createIndex refuses it).
func (s statement) createIndexAt() (int, bool) {
	for i := 1; i < len(s.toks) && i <= 4; i++ {
		switch s.word(i) {
		case "INDEX":
			return i, true
		case "UNIQUE", "FULLTEXT", "SPATIAL", "OR", "REPLACE", "ONLINE", "OFFLINE":
		default:
			return 0, false
		}
	}
	return 0, false
}

// createIndex reads CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX (its INDEX at idx) [IF NOT EXISTS] name
// [USING type] ON [schema.]t (key parts) [options].
func (s statement) createIndex(idx int, schema string) (TableAlter, error) {
	kind := ""
	for i := 1; i < idx; i++ {
		switch w := s.word(i); w {
		case "UNIQUE", "FULLTEXT", "SPATIAL":
			kind += w + " "
		default:
			return TableAlter{}, usagef("--statement: %s: CREATE %s INDEX is not supported: write it as ALTER TABLE <table> ADD INDEX ... (for OR REPLACE: DROP INDEX IF EXISTS <name>, ADD INDEX <name> ...)",
				s.quoted(), strings.Join(wordsOf(s.toks[1:idx]), " "))
		}
	}
	i := idx + 1
	ifNotExists := ""
	if s.word(i) == "IF" && s.word(i+1) == "NOT" && s.word(i+2) == "EXISTS" {
		ifNotExists, i = "IF NOT EXISTS ", i+3
	}
	if _, ok := s.name(i); !ok || s.word(i) == "ON" {
		return TableAlter{}, usagef("--statement: %s names no index: write CREATE INDEX <name> ON <table> (<columns>)", s.quoted())
	}
	name := s.span(s.toks[i : i+1])
	i++
	using := ""
	if s.word(i) == "USING" {
		if _, ok := s.name(i + 1); !ok {
			return TableAlter{}, usagef("--statement: %s has USING without an index type", s.quoted())
		}
		using, i = s.span(s.toks[i:i+2]), i+2
	}
	if s.word(i) != "ON" {
		return TableAlter{}, usagef("--statement: %s has no ON <table>: write CREATE INDEX <name> ON <table> (<columns>)", s.quoted())
	}
	tbl, i, err := s.tableName(i+1, schema, "CREATE INDEX <name> ON <table> (<columns>)")
	if err != nil {
		return TableAlter{}, err
	}
	if i >= len(s.toks) || !s.toks[i].IsPunct('(') {
		return TableAlter{}, usagef("--statement: %s has no key parts: write CREATE INDEX %s ON %s (<columns>)", s.quoted(), name, tbl)
	}
	end := i + 1
	for end < len(s.toks) && s.toks[end].depth > 0 {
		end++
	}
	parts := s.span(s.toks[i : end+1]) // up to the closing ')', which splitStatements found
	options, clauses, err := s.indexOptions(end+1, true)
	if err != nil {
		return TableAlter{}, err
	}
	alter := "ADD " + kind + "INDEX " + ifNotExists + name + " " + parts
	for _, o := range []string{using, options} {
		if o != "" {
			alter += " " + o
		}
	}
	return TableAlter{Table: tbl, Alter: alter + clauses}, nil
}

// dropIndex reads DROP INDEX [IF EXISTS] name ON [schema.]t [ALGORITHM=...] [LOCK=...].
func (s statement) dropIndex(schema string) (TableAlter, error) {
	i := 2
	ifExists := ""
	if s.word(i) == "IF" && s.word(i+1) == "EXISTS" {
		ifExists, i = "IF EXISTS ", i+2
	}
	if _, ok := s.name(i); !ok || s.word(i) == "ON" {
		return TableAlter{}, usagef("--statement: %s names no index: write DROP INDEX <name> ON <table>", s.quoted())
	}
	name := s.span(s.toks[i : i+1])
	if s.word(i+1) != "ON" {
		return TableAlter{}, usagef("--statement: %s has no ON <table>: write DROP INDEX %s ON <table>", s.quoted(), name)
	}
	tbl, i, err := s.tableName(i+2, schema, "DROP INDEX <name> ON <table>")
	if err != nil {
		return TableAlter{}, err
	}
	_, clauses, err := s.indexOptions(i, false)
	if err != nil {
		return TableAlter{}, err
	}
	return TableAlter{Table: tbl, Alter: "DROP INDEX " + ifExists + name + clauses}, nil
}

// indexOptions reads the tail of a CREATE INDEX (options allowed) or DROP INDEX from i: the index
// options as written, and its ALGORITHM [=] x and LOCK [=] x, each as ", ALGORITHM=x" (an ALTER's
// clauses). MariaDB's WAIT n / NOWAIT is refused: it would apply to the ghost table only.
func (s statement) indexOptions(i int, options bool) (string, string, error) {
	var opts []string
	clauses := ""
	run := -1 // start of the current run of option tokens
	flush := func(end int) {
		if run >= 0 {
			opts = append(opts, s.span(s.toks[run:end]))
			run = -1
		}
	}
	for i < len(s.toks) {
		w := ""
		if s.toks[i].depth == 0 {
			w = s.word(i)
		}
		switch {
		case w == "ALGORITHM" || w == "LOCK":
			flush(i)
			j := i + 1
			if j < len(s.toks) && s.toks[j].IsPunct('=') {
				j++
			}
			v, ok := s.name(j)
			if !ok {
				return "", "", usagef("--statement: %s has %s without a value", s.quoted(), w)
			}
			clauses += ", " + w + "=" + v
			i = j + 1
		case w == "WAIT" || w == "NOWAIT":
			return "", "", usagef("--statement: %s has %s, which would apply to the ghost table only: remove it", s.quoted(), w)
		case !options:
			return "", "", usagef("--statement: %s has %q after the table: DROP INDEX takes only ALGORITHM= and LOCK= there", s.quoted(), s.toks[i].Text)
		default:
			if run < 0 {
				run = i
			}
			i++
		}
	}
	flush(len(s.toks))
	return strings.Join(opts, " "), clauses, nil
}

// wordsOf is the upper-case text of toks.
func wordsOf(toks []stmtToken) []string {
	var w []string
	for _, t := range toks {
		w = append(w, strings.ToUpper(t.Text))
	}
	return w
}

// PerTable is c for each table of --statement, in order: a copy of c with Table and Alter from its
// statement and Statement cleared. Without --statement it is c alone. It refuses --statement
// together with --table or --alter, without --database, and any statement ParseStatement refuses
// (every error wraps ErrUsage), and with two tables or more a flag a set cannot honour
// (setUnsupported).
func (c Config) PerTable() ([]Config, error) {
	if c.Statement == "" {
		return []Config{c}, nil
	}
	switch {
	case c.Table != "":
		return nil, usagef("--statement and --table contradict each other: --statement names its tables; give one")
	case c.Alter != "":
		return nil, usagef("--statement and --alter contradict each other: --statement holds the change; give one")
	case c.Database == "":
		return nil, usagef("--statement needs --database (the schema its statements are in)")
	}
	alters, err := ParseStatement(c.Statement, c.Database)
	if err != nil {
		return nil, err
	}
	if flag := c.setUnsupported(); flag != "" && len(alters) > 1 {
		return nil, usagef("%s with %d tables: not supported for a set (each table would end on its own); migrate them one at a time, or without %s",
			flag, len(alters), flag)
	}
	out := make([]Config, len(alters))
	for i, a := range alters {
		out[i] = c
		out[i].Table, out[i].Alter, out[i].Statement = a.Table, a.Alter, ""
	}
	return out, nil
}

// setUnsupported names the flag of c a set cannot honour (a run that ends without the set's
// cut-over: an instant ALTER, a test or a migration on the replica), or "". --recover-cut-over
// recovers each table on its own: a set's renames are single statements, so its tables are all in
// one layout.
func (c Config) setUnsupported() string {
	switch {
	case c.AttemptInstantDDL:
		return "--attempt-instant-ddl"
	case c.TestOnReplica:
		return "--test-on-replica"
	case c.MigrateOnReplica:
		return "--migrate-on-replica"
	}
	return ""
}
