package preflight

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-ghostlite/go-ghostlite/tablelock"
)

// Before the swap the run proves that the table under the ghost's name is the one it prepared:
// the same table (its identity, tablelock.Identity: a table dropped and created again under the
// name has another) with the same definition and triggers as when preparation ended (SHOW CREATE
// TABLE without the AUTO_INCREMENT counter, which the cut-over itself sets). The binlog watch
// stops the run on such a change as soon as it is read (binlogapply/stmtwatch.go); this proof,
// under the cut-over's lock, also covers what the watch cannot see (a change on a server the
// binlog is not read from). Its refusals are final: the conductor makes them the cut-over's
// ErrUnsafe, which no retry can change.

// RecordGhost records the ghost's definition and triggers as preparation leaves them, and the
// identity the run recorded when it created (or adopted) it ("": none, not compared).
func RecordGhost(ctx context.Context, st *State, identity string) error {
	snap, err := ReadSnapshot(ctx, st.Primary, st.Plan.Original.Schema, st.Plan.GhostTable)
	if err != nil {
		return fmt.Errorf("record the ghost table: %w", err)
	}
	st.Ghost, st.GhostIdentity = snap, identity
	return nil
}

// checkGhostIsThisRuns checks, under the cut-over's lock, that the ghost is still what
// RecordGhost saw.
func checkGhostIsThisRuns(ctx context.Context, st *State) error {
	schema, ghost := st.Plan.Original.Schema, st.Plan.GhostTable
	refuse := func(what string) error {
		return final{fmt.Errorf("the ghost table %s.%s %s since preparation: it is not the table this run built; drop it and run the migration again",
			schema, ghost, what)}
	}
	if want := st.GhostIdentity; want != "" {
		got, err := tablelock.Identity(ctx, st.Primary, schema, ghost)
		switch {
		case err != nil:
			return fmt.Errorf("before the swap: %w", err)
		case got == "":
			return refuse("was dropped")
		case got != want:
			// A rebuild read from the binary log (OPTIMIZE TABLE) was recorded already
			// (migrator/tables.go): one the binary log did not carry cannot be told from a
			// replacement.
			return refuse(fmt.Sprintf("is not the table this run recorded (%s, this run's was %s): another table was put under its name, or it was rebuilt without the binary log (OPTIMIZE NO_WRITE_TO_BINLOG or LOCAL TABLE) and the run cannot prove its rows",
				got, want))
		}
	}
	now, err := ReadSnapshot(ctx, st.Primary, schema, ghost)
	if err != nil {
		return fmt.Errorf("before the swap: %w", err)
	}
	if now.Create != st.Ghost.Create {
		return refuse("changed its definition (SHOW CREATE TABLE)")
	}
	if !slices.Equal(now.Triggers, st.Ghost.Triggers) {
		return refuse(fmt.Sprintf("changed its triggers (now %v)", now.Triggers))
	}
	return nil
}
