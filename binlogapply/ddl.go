package binlogapply

import (
	"strings"
)

// Query events in a row-based binary log are transaction control (BEGIN, COMMIT) or statements
// logged as text, DDL mostly. A DDL whose target is the original table ends the migration: the
// row images that follow would no longer match the original's column model.

// firstWord is the statement's first keyword, upper case, for messages (never the statement).
func firstWord(q string) string {
	toks := tokenize(q)
	if len(toks) == 0 || toks[0].quoted {
		return "query"
	}
	return strings.ToUpper(toks[0].text)
}

type token struct {
	text   string
	quoted bool // a `quoted` identifier
	ident  bool // a bare word or quoted identifier
}

// tokenize splits a statement into words, quoted identifiers and punctuation; string literals
// and comments are dropped.
func tokenize(q string) []token {
	var toks []token
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				return toks
			}
			i += end + 4
		case c == '#' || (c == '-' && strings.HasPrefix(q[i:], "-- ")):
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				return toks
			}
			i += end + 1
		case c == '`':
			var b strings.Builder
			j := i + 1
			for j < len(q) {
				if q[j] == '`' {
					if j+1 < len(q) && q[j+1] == '`' {
						b.WriteByte('`')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(q[j])
				j++
			}
			toks = append(toks, token{text: b.String(), quoted: true, ident: true})
			i = j + 1
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(q) && q[j] != c {
				if q[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		case isWordByte(c):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			toks = append(toks, token{text: q[i:j], ident: true})
			i = j
		default:
			toks = append(toks, token{text: string(c)})
			i++
		}
	}
	return toks
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// touchesTable reports whether DDL statement q (run with default schema defSchema) alters, drops,
// renames, truncates, re-creates or re-indexes schema.name. References that only read the table
// (CREATE TABLE x LIKE t, ANALYZE) do not count.
func touchesTable(q, defSchema, schema, name string) bool {
	p := &ddlParser{toks: tokenize(q), defSchema: defSchema, schema: schema, name: name}
	switch p.next() {
	case "ALTER":
		p.skip("ONLINE", "OFFLINE", "IGNORE")
		if p.next() == "TABLE" {
			p.skip("IF", "EXISTS")
			return p.tableMatches()
		}
	case "DROP":
		p.skip("TEMPORARY")
		switch p.next() {
		case "TABLE", "TABLES":
			p.skip("IF", "EXISTS")
			return p.listMatches()
		case "INDEX", "KEY":
			return p.afterON()
		}
	case "RENAME":
		if w := p.next(); w == "TABLE" || w == "TABLES" {
			return p.listMatches()
		}
	case "TRUNCATE":
		p.skip("TABLE")
		return p.tableMatches()
	case "CREATE":
		p.skip("OR", "REPLACE", "TEMPORARY", "ONLINE", "OFFLINE", "UNIQUE", "FULLTEXT", "SPATIAL")
		switch p.next() {
		case "TABLE":
			p.skip("IF", "NOT", "EXISTS")
			return p.tableMatches()
		case "INDEX", "KEY":
			return p.afterON()
		}
	}
	return false
}

type ddlParser struct {
	toks                    []token
	i                       int
	defSchema, schema, name string
}

func (p *ddlParser) word(i int) string {
	if i >= len(p.toks) || p.toks[i].quoted {
		return ""
	}
	return strings.ToUpper(p.toks[i].text)
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

// tableMatches reads a possibly qualified table name at the cursor and compares it with ours.
func (p *ddlParser) tableMatches() bool {
	if p.i >= len(p.toks) || !p.toks[p.i].ident {
		return false
	}
	sch, tbl := p.defSchema, p.toks[p.i].text
	p.i++
	if p.i+1 < len(p.toks) && p.toks[p.i].text == "." && !p.toks[p.i].quoted && p.toks[p.i+1].ident {
		sch, tbl = tbl, p.toks[p.i+1].text
		p.i += 2
	}
	return strings.EqualFold(sch, p.schema) && strings.EqualFold(tbl, p.name)
}

// listMatches checks every table of "a, b" or "a TO b, c TO d".
func (p *ddlParser) listMatches() bool {
	for p.i < len(p.toks) {
		if p.tableMatches() {
			return true
		}
		if p.i >= len(p.toks) {
			return false
		}
		if t := p.toks[p.i]; t.text == "," || (!t.quoted && strings.EqualFold(t.text, "TO")) {
			p.i++
			continue
		}
		return false
	}
	return false
}

// afterON finds "ON tbl" of CREATE/DROP INDEX.
func (p *ddlParser) afterON() bool {
	for p.i < len(p.toks) {
		if p.next() == "ON" {
			return p.tableMatches()
		}
	}
	return false
}
