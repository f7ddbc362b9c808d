package cutover

import "testing"

// The one table-state model: what every combination of the three names means, with table ids
// known (in an attempt) and unknown (after a crash).
func TestStateLayout(t *testing.T) {
	present, missing := tableState{exists: true}, tableState{}
	id := func(n int64) tableState { return tableState{exists: true, id: n} }
	before := identities{original: 1, ghost: 2}
	cases := []struct {
		name               string
		original, old, gho tableState
		before             identities
		want               layout
	}{
		{"nothing renamed", present, missing, present, identities{}, layoutNothingRenamed},
		{"nothing renamed, ids match", id(1), missing, id(2), before, layoutNothingRenamed},
		{"old name taken", present, present, present, identities{}, layoutOldTaken},
		{"renamed away", missing, present, present, identities{}, layoutRenamedAway},
		{"renamed away, ids match", missing, id(1), id(2), before, layoutRenamedAway},
		{"renamed away, ghost is another table", missing, id(1), id(3), before, layoutUnknown},
		{"swapped", present, present, missing, identities{}, layoutSwapped},
		{"swapped, ids match", id(2), id(1), missing, before, layoutSwapped},
		{"swapped, other tables", id(3), id(4), missing, before, layoutUnknown},
		{"original alone", present, missing, missing, identities{}, layoutOriginalAlone},
		{"original is another table", id(3), missing, id(2), before, layoutUnknown},
		{"original and ghost missing", missing, present, missing, identities{}, layoutUnknown},
		{"only the ghost", missing, missing, present, identities{}, layoutUnknown},
		{"nothing at all", missing, missing, missing, identities{}, layoutUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := state{original: c.original, old: c.old, ghost: c.gho}
			if got := st.layout(c.before); got != c.want {
				t.Fatalf("layout of %s = %d, want %d", st.describe(Tables{Original: "t", Old: "_t_del", Ghost: "_t_gho"}), got, c.want)
			}
		})
	}
}
