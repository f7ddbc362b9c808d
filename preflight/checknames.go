package preflight

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
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
// refused unless the ALTER drops it (checkConstraintNames). MariaDB's names are per table: LIKE
// and RENAME keep them, and nothing is done there.

// checkConstraint is one CHECK constraint as SHOW CREATE TABLE prints it: its name, and the rest
// of its line ("CHECK (...)" and MySQL's " /*!80016 NOT ENFORCED */").
type checkConstraint struct {
	name, def string
}

// checkConstraints reads the CHECK constraints of a SHOW CREATE TABLE text: one line each,
// `  CONSTRAINT `name` CHECK (...)`.
func checkConstraints(create string) []checkConstraint {
	var out []checkConstraint
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
		out = append(out, checkConstraint{name: name, def: def})
	}
	return out
}

// generatedSuffix is S when name is tbl_chk_S, the form RENAME TABLE renames with the table.
func generatedSuffix(tbl, name string) (string, bool) {
	if s, ok := strings.CutPrefix(name, tbl+"_chk_"); ok && s != "" {
		return s, true
	}
	return "", false
}

// constraintRefs are the tokens of body (the ALTER's clauses) that name a constraint the ALTER
// drops or alters: DROP CHECK|CONSTRAINT [IF EXISTS] name, ALTER CHECK|CONSTRAINT name.
func constraintRefs(body string) (refs []token, dropped map[string]bool, err error) {
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

// checkConstraintNames refuses, on MySQL, an original CHECK constraint of a name of the user's
// own that the ALTER keeps: the new table cannot get that name (see above).
func checkConstraintNames(_ context.Context, st *State) error {
	if st.Options.Revert || st.Spec == nil || st.Plan.Flavor.MariaDB {
		return nil
	}
	tbl := st.Options.Table
	_, dropped, err := constraintRefs(st.Spec.Body)
	if err != nil {
		return err
	}
	var kept []string
	for _, c := range checkConstraints(st.Original.Create) {
		if _, generated := generatedSuffix(tbl, c.name); !generated && !dropped[strings.ToLower(c.name)] {
			kept = append(kept, c.name)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return fmt.Errorf("on MySQL the CHECK constraint name %s of %s cannot be kept: constraint names are unique per schema, so the new table could take it only from the old table once that is gone, and MySQL adds a CHECK constraint only by checking every row again (ALGORITHM=COPY); name it %s_chk_<suffix> first (names of that form follow a RENAME), drop it in this ALTER, or run this ALTER with the server's own ALTER TABLE",
		strings.Join(kept, ", "), tbl, tbl)
}

// renameGhostChecks gives the ghost's CHECK constraints, on MySQL, the names that the cut-over's
// RENAME turns into the original's (see above), while the ghost is still empty (the ADDs check
// no row), and returns body with its references to the original's names made to the ghost's.
// A name of the user's own gets a name the RENAME keeps; checkConstraintNames refused it unless
// the ALTER drops it.
func renameGhostChecks(ctx context.Context, conn *sql.Conn, schema, orig, ghost, body string) (string, error) {
	flavor, err := dbconn.DetectFlavor(ctx, conn)
	if err != nil || flavor.MariaDB {
		return body, err
	}
	var n, create string
	if err := conn.QueryRowContext(ctx, "SHOW CREATE TABLE "+table.Qualify(schema, orig)).Scan(&n, &create); err != nil {
		return body, fmt.Errorf("read the definition of %s.%s: %w", schema, orig, err)
	}
	checks := checkConstraints(create)
	if len(checks) == 0 {
		return body, nil
	}
	if err := conn.QueryRowContext(ctx, "SHOW CREATE TABLE "+table.Qualify(schema, ghost)).Scan(&n, &create); err != nil {
		return body, fmt.Errorf("read the definition of %s.%s: %w", schema, ghost, err)
	}
	var drops, adds []string
	for _, c := range checkConstraints(create) {
		drops = append(drops, "DROP CHECK "+table.QuoteIdent(c.name))
	}
	names := map[string]string{} // lower-case original name -> ghost name
	for i, c := range checks {
		to := fmt.Sprintf("%s_k%d", ghost, i+1)
		if s, ok := generatedSuffix(orig, c.name); ok {
			to = ghost + "_chk_" + s
		}
		names[strings.ToLower(c.name)] = to
		adds = append(adds, "ADD CONSTRAINT "+table.QuoteIdent(to)+" "+c.def)
	}
	for _, stmt := range []string{strings.Join(drops, ", "), strings.Join(adds, ", ")} {
		if stmt == "" {
			continue
		}
		if _, err := conn.ExecContext(ctx, "ALTER TABLE "+table.Qualify(schema, ghost)+" "+stmt); err != nil {
			return body, fmt.Errorf("name the CHECK constraints of the ghost table: %w", err)
		}
	}
	return renameConstraintRefs(body, names)
}

// renameConstraintRefs replaces, in body, the names constraintRefs finds that names maps.
func renameConstraintRefs(body string, names map[string]string) (string, error) {
	refs, _, err := constraintRefs(body)
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
