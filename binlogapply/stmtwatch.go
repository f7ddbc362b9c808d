package binlogapply

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
)

// Two more kinds of Query event end the migration, besides a DDL of the original (ddlwatch.go):
//
//   - a row change logged as a statement: a session with binlog_format=STATEMENT (or MIXED, when
//     the server chose a statement) that inserts, updates or deletes rows of the original (or of
//     the ghost) writes no row event, so the applier would never see the change (ErrStatementLogged);
//   - a DDL of a helper table (the ghost, the changelog, the checkpoint table) or a row change of
//     one logged as a statement, made by someone else: the helper is no longer the table this run
//     created (ErrHelperChanged). The run's own DDL of the ghost under the cut-over's lock (its
//     AUTO_INCREMENT counter, the --include-triggers triggers) and the cut-over's RENAMEs are
//     accepted.
//
// A --resume or --revert stream starts before this run created its changelog: see helpers.
//
// Invariants: the text is read as in ddlwatch.go (every quoting mode, executable comments as SQL);
// where a statement cannot be read it counts if it mentions the table's name at all. After the
// swap the watch ends: the original's name is the new table's, and the ghost's is free.

// ErrStatementLogged is wrapped by the error Run returns when a row change of the original (or the
// ghost) logged as a statement is read from the binary log.
var ErrStatementLogged = errors.New("a row change was logged as a statement (binlog_format=STATEMENT or MIXED in the writing session), so it cannot be applied")

// ErrHelperChanged is wrapped by the error Run returns when someone else's DDL, or row change
// logged as a statement, of a helper table (ghost, changelog, checkpoint) is read.
var ErrHelperChanged = errors.New("a helper table of the migration was changed by someone else")

// judgeStatement checks a statement read as text (with default schema defSchema) against the
// rules above; it returns the fatal error to stop Run with, or nil.
func (r *reader) judgeStatement(q, defSchema string, pos uint32) error {
	a := r.a
	schema, orig := a.cfg.Schema, a.cfg.Original.Name
	at := fmt.Sprintf("%s:%d", r.file, pos)
	if touchesTable(q, defSchema, schema, orig) && !a.acceptRename(q, defSchema) {
		return fatal{fmt.Errorf("%w: %s statement on %s.%s was read at %s", ErrOriginalAltered, firstWord(q), schema, orig, at)}
	}
	if a.swapped.Load() {
		return nil
	}
	if a.cfg.OnRebuilt != nil {
		for _, n := range rebuiltTables(q, defSchema) {
			if strings.EqualFold(n.schema, schema) {
				a.cfg.OnRebuilt(n.name)
			}
		}
	}
	for _, name := range []string{orig, a.cfg.Ghost.Name} {
		if writesTable(q, defSchema, schema, name) {
			return fatal{fmt.Errorf("%w: %s statement writing %s.%s was read at %s; make every writer log rows (binlog_format=ROW)",
				ErrStatementLogged, article(firstWord(q)), schema, name, at)}
		}
	}
	for _, w := range a.cfg.IndirectWriters {
		if writesTable(q, defSchema, w.Schema, w.Name) {
			return fatal{fmt.Errorf("%w: %s statement writing %s.%s (%s) was read at %s; make every writer log rows (binlog_format=ROW)",
				ErrStatementLogged, article(firstWord(q)), w.Schema, w.Name, w.Why, at)}
		}
	}
	for _, h := range a.helpers() {
		if h.name == "" {
			continue
		}
		ddl := touchesTable(q, defSchema, schema, h.name)
		if ddl && (a.acceptRename(q, defSchema) || (h.ghost && a.ownGhostDDL(q, defSchema))) {
			continue
		}
		if ddl || writesTable(q, defSchema, schema, h.name) {
			return fatal{fmt.Errorf("%w: %s statement on %s.%s, this run's %s table, was read at %s",
				ErrHelperChanged, article(firstWord(q)), schema, h.name, h.role, at)}
		}
	}
	return nil
}

// article puts "a" or "an" before a statement kind: "an ALTER TABLE", "a DROP TABLE".
func article(kind string) string {
	if kind != "" && strings.ContainsRune("AEIOU", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

type helperTable struct {
	name, role string
	ghost      bool
}

// helpers are the helper tables watched now: none until the first sentinel this run wrote is read.
// Everything before it is the run's own set-up, which the stream may still carry: the ghost's
// CREATE and ALTER when the binlog is read on a replica that had not replayed them yet, this run's
// creation of its changelog, and, for a --resume or --revert streaming from an earlier position,
// the earlier run's statements on the same names.
func (a *Applier) helpers() []helperTable {
	if !a.helpersSettled.Load() {
		return nil
	}
	return []helperTable{
		{name: a.cfg.Ghost.Name, role: "ghost", ghost: true},
		{name: a.cfg.Changelog, role: "changelog"},
		{name: a.cfg.Checkpoint, role: "checkpoint"},
	}
}

// settleHelpers starts the watch of the helper tables once a sentinel of this run is read.
func (a *Applier) settleHelpers(value string) {
	if a.helpersSettled.Load() {
		return
	}
	a.mu.Lock()
	_, ours := a.sentinels[value]
	a.mu.Unlock()
	if ours {
		a.helpersSettled.Store(true)
	}
}

// ownGhostDDL reports whether q is DDL the run itself makes on the ghost under the cut-over's lock:
// ALTER TABLE ghost AUTO_INCREMENT = n, or CREATE TRIGGER of one of Config.OwnTriggers on it.
func (a *Applier) ownGhostDDL(q, defSchema string) bool {
	if !a.cutOver.Load() {
		return false
	}
	toks, err := sqltok.Tokenize(q, sqltok.Options{})
	if err != nil {
		return false
	}
	p := &ddlParser{toks: toks, defSchema: defSchema, schema: a.cfg.Schema, name: a.cfg.Ghost.Name}
	switch p.next() {
	case "ALTER":
		if p.next() != "TABLE" || p.nameAt() != touched || p.next() != "AUTO_INCREMENT" {
			return false
		}
		if p.i < len(toks) && toks[p.i].IsPunct('=') {
			p.i++
		}
		return p.i == len(toks)-1 && toks[p.i].Kind == sqltok.Word
	case "CREATE":
		if obj, _ := p.createObject(); obj != "TRIGGER" {
			return false
		}
		trg, ok := p.qualified(p.defSchema)
		if !ok || !containsFold(a.cfg.OwnTriggers, trg.name) {
			return false
		}
		return p.afterON(trg.schema) == touched
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// writesTable reports whether statement q, run with default schema defSchema, writes rows of
// schema.name: INSERT/REPLACE [INTO] name, UPDATE naming it before SET, DELETE naming it before
// WHERE/ORDER/LIMIT/RETURNING, LOAD DATA/XML ... INTO TABLE name. Unreadable: by mention.
func writesTable(q, defSchema, schema, name string) bool {
	for _, o := range lexModes {
		v := unsure
		if toks, err := sqltok.Tokenize(q, o); err == nil {
			p := &ddlParser{toks: toks, defSchema: defSchema, schema: schema, name: name}
			v = p.dml()
		}
		if v == touched || (v == unsure && mentions(q, name)) {
			return true
		}
	}
	return false
}

func (p *ddlParser) dml() verdict {
	switch p.next() {
	case "INSERT", "REPLACE":
		p.skip("LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE", "INTO")
		return p.nameAt()
	case "UPDATE":
		return p.namesUntil("SET")
	case "DELETE":
		return p.namesUntil("WHERE", "ORDER", "LIMIT", "RETURNING")
	case "LOAD":
		for p.i < len(p.toks) {
			if p.next() == "INTO" && p.word(p.i) == "TABLE" {
				p.i++
				return p.nameAt()
			}
		}
		return unsure
	case "SET": // SET STATEMENT var = value [, ...] FOR <statement>
		for p.i < len(p.toks) {
			if p.next() == "FOR" {
				return p.dml()
			}
		}
		return untouched
	case "WITH":
		return unsure // a common table expression before the statement: judged by mention
	}
	return untouched
}

// namesUntil judges every name (qualified or not) before the first of stops outside parentheses:
// the table references of an UPDATE or a DELETE. A name read inside a subquery there counts too
// (a false stop is safe).
func (p *ddlParser) namesUntil(stops ...string) verdict {
	depth, seen := 0, false
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		switch {
		case t.IsPunct('('):
			depth++
		case t.IsPunct(')'):
			depth--
		case depth == 0 && t.Kind == sqltok.Word && containsWord(stops, p.word(p.i)):
			return verdictOf(seen, false)
		}
		if _, ok := t.Name(); ok {
			n, _ := p.qualified(p.defSchema)
			seen = true
			if p.isOurs(n) {
				return touched
			}
			continue
		}
		p.i++
	}
	return verdictOf(seen, false)
}

func containsWord(list []string, w string) bool {
	for _, x := range list {
		if x == w {
			return true
		}
	}
	return false
}
