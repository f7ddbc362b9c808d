package binlogapply

import (
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
)

// The DDL watcher decides whether a statement read from the binary log as text changes the
// original table: its definition, its name, its rows outside row events, or the triggers on it.
// Such a statement ends the migration (ErrOriginalAltered): the ghost would be stale at the swap.
//
// It counts: ALTER TABLE t (and ALTER TABLE x ... RENAME TO t, EXCHANGE PARTITION ... WITH TABLE t,
// REFERENCES t), DROP TABLE/SEQUENCE listing t, DROP DATABASE of t's schema, RENAME TABLE listing
// t on either side, TRUNCATE t, CREATE [OR REPLACE] TABLE/SEQUENCE t, CREATE TABLE x (... REFERENCES
// t), CREATE/DROP INDEX ... ON t, CREATE [OR REPLACE] [DEFINER=...] TRIGGER ... ON t. Statements
// that only read t (CREATE TABLE x LIKE t, ANALYZE, CREATE VIEW) and TEMPORARY tables do not count.
// DROP TRIGGER is ignored (it names no table): the migrator refuses a table with triggers, so the
// original has none at the start, and the CREATE TRIGGER that would give it one already stopped the
// run; with --include-triggers the migrator reads the triggers again under the cut-over lock.
//
// Invariants:
//   - The text is tokenized by internal/sqltok, executable comments (/*! */, /*M! */, versioned)
//     read as SQL, under each sql_mode quoting a session may have used (the event does not say
//     which): the statement counts if it does under any of them.
//   - Where the watcher cannot tell (the text does not tokenize under a mode, or a statement that
//     must name a table names none it can read) it counts the statement if the table's name
//     appears anywhere in the text as a name (any case, not inside a longer word: "t" in "`t`",
//     "db.t", "'t'", not in "TABLE"). A false stop is safe; a missed DDL is not.
//   - Names compare case-insensitively, schema and table: on a case-sensitive server a change of a
//     twin table differing only in case stops the migration too (safe).

// lexModes are the quoting modes a statement is read under.
var lexModes = []sqltok.Options{
	{},
	{NoBackslashEscapes: true},
	{AnsiQuotes: true},
	{AnsiQuotes: true, NoBackslashEscapes: true},
}

type verdict int

const (
	untouched verdict = iota
	touched
	unsure // a statement that must name a table, and no name could be read
)

// touchesTable reports whether statement q, run with default schema defSchema, changes
// schema.name (see the rules above).
func touchesTable(q, defSchema, schema, name string) bool {
	for _, o := range lexModes {
		v := unsure
		if toks, err := sqltok.Tokenize(q, o); err == nil {
			p := &ddlParser{toks: toks, defSchema: defSchema, schema: schema, name: name}
			v = p.statement()
		}
		if v == touched || (v == unsure && mentions(q, name)) {
			return true
		}
	}
	return false
}

// mentions reports whether name appears in q as a name (sqltok.MentionsName).
func mentions(q, name string) bool { return sqltok.MentionsName(q, name) }

// firstWord is the statement's kind for messages, e.g. "ALTER TABLE" or "CREATE TRIGGER" (never
// the statement itself, which may carry data).
func firstWord(q string) string {
	toks, err := sqltok.Tokenize(q, sqltok.Options{})
	if err != nil || len(toks) == 0 || toks[0].Kind != sqltok.Word {
		return "query"
	}
	p := &ddlParser{toks: toks}
	verb := p.next()
	if verb == "CREATE" {
		if obj, _ := p.createObject(); obj != "" {
			return verb + " " + obj
		}
	}
	if obj := p.word(p.i); verb != "TRUNCATE" && isObjectWord(obj) {
		return verb + " " + obj
	}
	return verb
}

type ddlParser struct {
	toks                    []sqltok.Token
	i                       int
	defSchema, schema, name string
}

func (p *ddlParser) statement() verdict {
	switch p.next() {
	case "ALTER":
		p.skip("ONLINE", "OFFLINE", "IGNORE")
		if p.next() == "TABLE" {
			p.skip("IF", "EXISTS")
			return either(p.nameAt(), p.clausesName())
		}
	case "DROP":
		return p.drop()
	case "RENAME":
		if w := p.next(); w == "TABLE" || w == "TABLES" {
			return p.anyName()
		}
	case "TRUNCATE":
		p.skip("TABLE")
		return p.nameAt()
	case "CREATE":
		return p.create()
	}
	return untouched
}

func (p *ddlParser) drop() verdict {
	if p.word(p.i) == "TEMPORARY" {
		return untouched
	}
	switch p.next() {
	case "TABLE", "TABLES", "SEQUENCE":
		return p.anyName()
	case "INDEX", "KEY":
		return p.afterON("")
	case "DATABASE", "SCHEMA":
		p.skip("IF", "EXISTS")
		if p.i >= len(p.toks) {
			return unsure
		}
		db, ok := p.toks[p.i].Name()
		return verdictOf(ok, ok && strings.EqualFold(db, p.schema))
	}
	return untouched
}

func (p *ddlParser) create() verdict {
	obj, temporary := p.createObject()
	switch obj {
	case "TABLE":
		if temporary {
			return untouched
		}
		p.skip("IF", "NOT", "EXISTS")
		return either(p.nameAt(), p.clausesName())
	case "SEQUENCE":
		p.skip("IF", "NOT", "EXISTS")
		return p.nameAt()
	case "INDEX":
		return p.afterON("")
	case "TRIGGER":
		p.skip("IF", "NOT", "EXISTS")
		trg, ok := p.qualified(p.defSchema)
		if !ok {
			return unsure
		}
		return p.afterON(trg.schema) // a trigger's table is in the trigger's schema
	}
	return untouched
}

// createObject moves past CREATE's modifiers (OR REPLACE, DEFINER = ..., ALGORITHM = ..., UNIQUE,
// TEMPORARY ...) to the kind of object created, and returns it ("" if none is found).
func (p *ddlParser) createObject() (obj string, temporary bool) {
	for p.i < len(p.toks) {
		w := p.next()
		if w == "TEMPORARY" {
			temporary = true
		}
		if w == "KEY" {
			w = "INDEX"
		}
		if isObjectWord(w) {
			return w, temporary
		}
	}
	return "", temporary
}

func isObjectWord(w string) bool {
	switch w {
	case "TABLE", "TABLES", "INDEX", "KEY", "TRIGGER", "SEQUENCE", "VIEW", "PROCEDURE", "FUNCTION", "EVENT",
		"DATABASE", "SCHEMA", "USER", "ROLE", "SERVER", "PACKAGE", "TABLESPACE":
		return true
	}
	return false
}

func (p *ddlParser) word(i int) string {
	if i >= len(p.toks) || p.toks[i].Kind != sqltok.Word {
		return ""
	}
	return strings.ToUpper(p.toks[i].Text)
}

func (p *ddlParser) next() string {
	w := p.word(p.i)
	p.i++
	return w
}

// skip advances over any of the given keywords.
func (p *ddlParser) skip(words ...string) {
	for p.i < len(p.toks) {
		w := p.word(p.i)
		found := false
		for _, s := range words {
			if w == s {
				found = true
			}
		}
		if !found {
			return
		}
		p.i++
	}
}

// qualified reads a possibly schema-qualified name at the cursor; def is the schema of an
// unqualified one.
func (p *ddlParser) qualified(def string) (qualName, bool) {
	if p.i >= len(p.toks) {
		return qualName{}, false
	}
	first, ok := p.toks[p.i].Name()
	if !ok {
		return qualName{}, false
	}
	n := qualName{schema: def, name: first}
	p.i++
	if p.i+1 < len(p.toks) && p.toks[p.i].IsPunct('.') {
		if second, ok := p.toks[p.i+1].Name(); ok {
			n = qualName{schema: first, name: second}
			p.i += 2
		}
	}
	return n, true
}

func (p *ddlParser) isOurs(n qualName) bool {
	return strings.EqualFold(n.schema, p.schema) && strings.EqualFold(n.name, p.name)
}

// nameAt judges the table name at the cursor.
func (p *ddlParser) nameAt() verdict {
	n, ok := p.qualified(p.defSchema)
	return verdictOf(ok, ok && p.isOurs(n))
}

// anyName judges a list of names ("a, b", "a TO b, c TO d", with IF EXISTS, WAIT n ...): every
// name in it counts.
func (p *ddlParser) anyName() verdict {
	seen := false
	for p.i < len(p.toks) {
		n, ok := p.qualified(p.defSchema)
		if !ok {
			p.i++
			continue
		}
		seen = true
		if p.isOurs(n) {
			return touched
		}
	}
	return verdictOf(seen, false)
}

// afterON judges the table after the first ON (CREATE/DROP INDEX, CREATE TRIGGER); an
// unqualified name is in schema def, or the default schema when def is empty.
func (p *ddlParser) afterON(def string) verdict {
	if def == "" {
		def = p.defSchema
	}
	for p.i < len(p.toks) {
		if p.next() == "ON" {
			n, ok := p.qualified(def)
			return verdictOf(ok, ok && p.isOurs(n))
		}
	}
	return unsure
}

// clausesName judges the tables named inside an ALTER TABLE or CREATE TABLE: RENAME [TO|AS] t,
// EXCHANGE PARTITION p WITH TABLE t, and a foreign key's REFERENCES t.
func (p *ddlParser) clausesName() verdict {
	for p.i < len(p.toks) {
		switch p.next() {
		case "RENAME":
			p.skip("TO", "AS")
		case "WITH":
			if p.word(p.i) != "TABLE" {
				continue
			}
			p.i++
		case "REFERENCES":
		default:
			continue
		}
		if n, ok := p.qualified(p.defSchema); ok && p.isOurs(n) {
			return touched
		}
	}
	return untouched
}

func verdictOf(readable, ours bool) verdict {
	switch {
	case !readable:
		return unsure
	case ours:
		return touched
	}
	return untouched
}

// either combines two verdicts on one statement: touched wins, then unsure.
func either(a, b verdict) verdict {
	if a == touched || b == touched {
		return touched
	}
	if a == unsure || b == unsure {
		return unsure
	}
	return untouched
}

// rebuiltTables parses "OPTIMIZE [NO_WRITE_TO_BINLOG | LOCAL] TABLE a [, b ...]" into the tables
// it rebuilds: InnoDB recreates each (a new table id, the same definition and rows). Anything else
// gives nil.
func rebuiltTables(q, defSchema string) []qualName {
	toks, err := sqltok.Tokenize(q, sqltok.Options{})
	if err != nil {
		return nil
	}
	p := &ddlParser{toks: toks, defSchema: defSchema}
	if p.next() != "OPTIMIZE" {
		return nil
	}
	p.skip("NO_WRITE_TO_BINLOG", "LOCAL")
	if w := p.next(); w != "TABLE" && w != "TABLES" {
		return nil
	}
	var out []qualName
	for {
		n, ok := p.qualified(defSchema)
		if !ok {
			return nil
		}
		out = append(out, n)
		if p.i >= len(p.toks) {
			return out
		}
		if !p.toks[p.i].IsPunct(',') {
			return nil
		}
		p.i++
	}
}
