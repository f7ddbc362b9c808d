package preflight

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/plan"
)

// checkConstraintNames refuses, on MySQL, an original CHECK constraint of a name of the user's
// own that the ALTER keeps: the new table cannot get that name (see above).
func checkConstraintNames(_ context.Context, st *State) error {
	if st.Config.Revert || st.Spec == nil || st.Plan.Flavor.MariaDB {
		return nil
	}
	tbl := st.Config.Table
	_, dropped, err := plan.ConstraintRefs(st.Spec.Body)
	if err != nil {
		return err
	}
	var kept []string
	for _, c := range plan.CheckConstraints(st.Original.Create) {
		if _, generated := plan.GeneratedCheckSuffix(tbl, c.Name); !generated && !dropped[strings.ToLower(c.Name)] {
			kept = append(kept, c.Name)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return fmt.Errorf("on MySQL the CHECK constraint name %s of %s cannot be kept: constraint names are unique per schema, so the new table could take it only from the old table once that is gone, and MySQL adds a CHECK constraint only by checking every row again (ALGORITHM=COPY); name it %s_chk_<suffix> first (names of that form follow a RENAME), drop it in this ALTER, or run this ALTER with the server's own ALTER TABLE",
		strings.Join(kept, ", "), tbl, tbl)
}
