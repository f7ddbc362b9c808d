package plan

import (
	"sort"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// CHECK constraint names on MySQL (measured on 9.7). They are unique per schema, so:
//   - CREATE TABLE g LIKE t names every CHECK constraint of g anew, g_chk_1, g_chk_2, ... in the
//     order of t's names (t_chk_9 and v_pos become g_chk_1 and g_chk_2);
//   - RENAME TABLE a TO b renames a constraint whose name starts with "a_chk_" to "b_chk_" and the
//     same suffix (a "generated" name, whatever the suffix), and keeps any other name;
//   - an unnamed CHECK the ALTER adds is named <table>_chk_<the largest numeric suffix + 1>;
//   - ADD CONSTRAINT ... CHECK checks every row (ALGORITHM=COPY); only a NOT ENFORCED one is
//     INSTANT, and ALTER CHECK ... ENFORCED copies again. No statement renames a constraint.
//
// So the ghost gets, for each of the original's t_chk_S, the name <ghost>_chk_S, which the
// cut-over's RENAME turns back into t_chk_S (while the original, renamed to the old name, gets
// <old>_chk_S); the ALTER's references to such a name (DROP CHECK t_chk_S, ALTER CHECK ...) are
// made to the ghost's name, and the constraints the ALTER adds are numbered as the server's ALTER
// numbers them. A name of the user's own (v_pos) stays with the original, and the new table could
// only get it by checking every row again once the old table is gone: such a constraint is
// refused unless the ALTER drops it (preflight's checkConstraintNames). MariaDB's names are per table: LIKE
// and RENAME keep them, and nothing is done there.

// CheckConstraint is one CHECK constraint as SHOW CREATE TABLE prints it: its name, and the rest
// of its line ("CHECK (...)" and MySQL's " /*!80016 NOT ENFORCED */").
type CheckConstraint struct {
	Name, Def string
}

// CheckConstraints reads the CHECK constraints of a SHOW CREATE TABLE text: one line each,
// `  CONSTRAINT `name` CHECK (...)`.
func CheckConstraints(create string) []CheckConstraint {
	var out []CheckConstraint
	for _, line := range strings.Split(create, "\n") {
		if !strings.HasPrefix(line, "  CONSTRAINT ") {
			continue
		}
		toks, err := sqltok.Tokenize(line, sqltok.Options{})
		if err != nil || len(toks) < 3 || !toks[0].IsWord("CONSTRAINT") || !toks[2].IsWord("CHECK") {
			continue
		}
		name, ok := toks[1].Name()
		if !ok {
			continue
		}
		def := strings.TrimSuffix(strings.TrimSpace(line[toks[1].End:]), ",")
		out = append(out, CheckConstraint{Name: name, Def: def})
	}
	return out
}

// GeneratedCheckSuffix is S when name is tbl_chk_S, the form RENAME TABLE renames with the table.
func GeneratedCheckSuffix(tbl, name string) (string, bool) {
	if s, ok := strings.CutPrefix(name, tbl+"_chk_"); ok && s != "" {
		return s, true
	}
	return "", false
}

// ConstraintRefs are the tokens of body (the ALTER's clauses) that name a constraint the ALTER
// drops or alters: DROP CHECK|CONSTRAINT [IF EXISTS] name, ALTER CHECK|CONSTRAINT name.
func ConstraintRefs(body string) (refs []token, dropped map[string]bool, err error) {
	toks, err := tokenize(body)
	if err != nil {
		return nil, nil, err
	}
	dropped = map[string]bool{}
	for i := 0; i+2 < len(toks); i++ {
		t := toks[i]
		if t.depth != 0 || !(t.isWord("DROP") || t.isWord("ALTER")) || !(toks[i+1].isWord("CHECK") || toks[i+1].isWord("CONSTRAINT")) {
			continue
		}
		j := i + 2
		if j+1 < len(toks) && toks[j].isWord("IF") && toks[j+1].isWord("EXISTS") {
			j += 2
		}
		name, ok := tokenName(toks, j)
		if !ok {
			continue
		}
		refs = append(refs, toks[j])
		if t.isWord("DROP") {
			dropped[strings.ToLower(name)] = true
		}
	}
	return refs, dropped, nil
}

// RenameConstraintRefs replaces, in body, the names ConstraintRefs finds that names maps.
func RenameConstraintRefs(body string, names map[string]string) (string, error) {
	refs, _, err := ConstraintRefs(body)
	if err != nil {
		return body, err
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Start > refs[j].Start })
	for _, r := range refs {
		name, _ := r.name()
		if to, ok := names[strings.ToLower(name)]; ok {
			body = body[:r.Start] + table.QuoteIdent(to) + body[r.End:]
		}
	}
	return body, nil
}
