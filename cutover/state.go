package cutover

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// The one model of the tables of a cut-over: which of the three names (original, old, ghost)
// exist, and what that layout means. Every recovery, in an attempt (recover.go) and after a
// crashed process (crash.go), reads a state and decides from its layout; nothing else does.

// tableState says whether a name exists and, when the server shows it, its InnoDB table id.
type tableState struct {
	exists bool
	id     int64 // 0 when unknown
}

func (s tableState) String() string {
	if !s.exists {
		return "missing"
	}
	if s.id == 0 {
		return "present"
	}
	return fmt.Sprintf("present(id %d)", s.id)
}

// state is what exists under the three names of a cut-over.
type state struct{ original, old, ghost tableState }

func (s state) describe(t Tables) string {
	return fmt.Sprintf("%s %s, %s %s, %s %s", t.Original, s.original, t.Old, s.old, t.Ghost, s.ghost)
}

// identities are the InnoDB ids of the original and the ghost before an attempt (0: unknown).
type identities struct{ original, ghost int64 }

// sameTable is false only when both ids are known and differ.
func sameTable(got, want int64) bool { return got == 0 || want == 0 || got == want }

// layout is what a state means for a cut-over of tables whose ids were before.
type layout int

const (
	layoutUnknown        layout = iota // no step of a cut-over leaves this
	layoutNothingRenamed               // original and ghost under their names, the old name free
	layoutOldTaken                     // original and ghost under their names, a table under the old name
	layoutRenamedAway                  // the original under old, the ghost under its name: the original name is missing
	layoutSwapped                      // the former ghost under the original's name, the original under old, no ghost
	layoutOriginalAlone                // only the original: no table of a cut-over is left
)

// layout classifies st, given the ids the original and the ghost had before the cut-over.
func (s state) layout(before identities) layout {
	o, old, g := s.original, s.old, s.ghost
	originalIsOriginal := sameTable(o.id, before.original)
	switch {
	case o.exists && g.exists && originalIsOriginal && !old.exists:
		return layoutNothingRenamed
	case o.exists && g.exists && originalIsOriginal:
		return layoutOldTaken
	case !o.exists && old.exists && g.exists && sameTable(old.id, before.original) && sameTable(g.id, before.ghost):
		return layoutRenamedAway
	case o.exists && old.exists && !g.exists && sameTable(o.id, before.ghost) && sameTable(old.id, before.original):
		return layoutSwapped
	case o.exists && !old.exists && !g.exists && originalIsOriginal:
		return layoutOriginalAlone
	}
	return layoutUnknown
}

// states is the state of each table of a set, in the set's order (Config.set); befores are their
// ids before the attempt, in the same order.
type states []state

// describe is each table's state, "; "-separated.
func (ss states) describe(set []Tables) string {
	parts := make([]string, len(ss))
	for i, st := range ss {
		parts[i] = st.describe(set[i])
	}
	return strings.Join(parts, "; ")
}

// layout is the one layout every table of the set is in. The set's renames are single
// statements, all or nothing, so its tables never differ: when they do, the layout is unknown.
func (ss states) layout(befores []identities) layout {
	l := layoutUnknown
	for i, st := range ss {
		this := st.layout(befores[i])
		if i > 0 && this != l {
			return layoutUnknown
		}
		l = this
	}
	return l
}

// readStates reads the state of every table of set (readState).
func readStates(ctx context.Context, q dbconn.Querier, set []Tables, idSource string) (states, error) {
	ss := make(states, len(set))
	for i, t := range set {
		var err error
		if ss[i], err = readState(ctx, q, t, idSource); err != nil {
			return nil, err
		}
	}
	return ss, nil
}

// readState reads which of the three names exist, with their table ids when idSource is set.
func readState(ctx context.Context, q dbconn.Querier, t Tables, idSource string) (state, error) {
	var st state
	found, err := existingTables(ctx, q, t.Schema, t.Original, []string{t.Original, t.Old, t.Ghost}, "")
	if err != nil {
		return st, err
	}
	for _, name := range found {
		switch name {
		case t.Original:
			st.original.exists = true
		case t.Old:
			st.old.exists = true
		case t.Ghost:
			st.ghost.exists = true
		}
	}
	if idSource == "" {
		return st, nil
	}
	for _, x := range []struct {
		name string
		ts   *tableState
	}{{t.Original, &st.original}, {t.Old, &st.old}, {t.Ghost, &st.ghost}} {
		if !x.ts.exists {
			continue
		}
		// A table not found there stays unknown (0); names compare exactly (dbconn.TableID).
		var err error
		if x.ts.id, err = dbconn.TableID(ctx, q, idSource, t.Schema, x.name); err != nil {
			return st, err
		}
	}
	return st, nil
}

// existingTables returns, in one query, those of names that exist in schema and, when like is
// set, the names that match that LIKE pattern (a prefilter: the caller matches them exactly).
// information_schema may compare case-insensitively: a name is returned as the server has it.
// tbl names the migrated table in errors.
func existingTables(ctx context.Context, q dbconn.Querier, schema, tbl string, names []string, like string) ([]string, error) {
	cond := "TABLE_NAME IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ") + ")"
	args := []any{schema}
	for _, n := range names {
		args = append(args, n)
	}
	if like != "" {
		cond = "(" + cond + " OR TABLE_NAME LIKE ?)"
		args = append(args, like)
	}
	rows, err := q.QueryContext(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND "+cond, args...)
	if err != nil {
		return nil, fmt.Errorf("read which tables of %s.%s exist: %w", schema, tbl, err)
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("read which tables of %s.%s exist: %w", schema, tbl, err)
		}
		found = append(found, name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read which tables of %s.%s exist: %w", schema, tbl, err)
	}
	return found, nil
}
