package preflight

import (
	"context"
	"errors"
	"fmt"
)

// Scope says when a check runs.
type Scope int

const (
	// BeforeCreate checks run once the servers are connected and the migration lock is held,
	// before any table is created: the servers, the table, the ALTER, the helper tables' names.
	BeforeCreate Scope = iota
	// AfterGhost checks run once the ghost exists with the ALTER applied: they map the columns,
	// choose the shared key and estimate the rows, filling the Plan.
	AfterGhost
	// BeforeCutOver checks run under the cut-over's lock, once every change is applied to the
	// ghost: what preparation proved must still hold. Their refusals are final.
	BeforeCutOver
)

// String names the scope, for messages.
func (s Scope) String() string {
	switch s {
	case BeforeCreate:
		return "before anything is created"
	case AfterGhost:
		return "after the ghost exists"
	case BeforeCutOver:
		return "before the cut-over"
	}
	return fmt.Sprintf("scope %d", int(s))
}

// Check is one named check. Run decides for itself whether the run's options make it apply
// (returning nil when not) and where the server's flavor changes what it reads.
type Check struct {
	Name  string
	Scope Scope
	Run   func(ctx context.Context, st *State) error
}

// registry is every check, in the order each scope runs them: the order is the order of the
// refusals a user meets.
var registry = []Check{
	{"binary log", BeforeCreate, checkServerBinlog},
	{"prepared XA transactions", BeforeCreate, CheckNoPreparedXA},
	{"lock-bypassing plugins", BeforeCreate, checkPlugins},
	{"cut-over algorithm", BeforeCreate, checkCutOverAlgorithm},
	{"metadata locks", BeforeCreate, checkMetadataLocks},
	{"crashed cut-over", BeforeCreate, checkCrashed},
	{"table", BeforeCreate, checkTable},
	{"partial JSON", BeforeCreate, checkServerPartialJSON},
	{"alter", BeforeCreate, checkAlter},
	{"check constraint names", BeforeCreate, checkConstraintNames},
	{"helper tables", BeforeCreate, checkHelperTablesOfRun},

	{"columns", AfterGhost, planColumns},
	{"new auto-increment column", AfterGhost, checkNewAutoIncrementColumn},
	{"shared key", AfterGhost, chooseKey},
	{"row estimate", AfterGhost, estimate},
	{"indirect writers", AfterGhost, findIndirectWriters},

	{"ghost is this run's", BeforeCutOver, checkGhostIsThisRuns},
	{"nullable shared key", BeforeCutOver, recheckNullableKey},
	{"triggers unchanged", BeforeCutOver, checkTriggersUnchanged},
}

// final is a refusal no retry can change (the table changed since preparation): its text is the
// refusal's own, and the caller says what it means for the run (IsFinal).
type final struct{ error }

func (f final) Unwrap() error { return f.error }

// IsFinal says whether err is a check's refusal that no retry can change, as opposed to a failure
// to read what the check needs: the conductor then stops the run (for the cut-over's checks, as
// its ErrUnsafe).
func IsFinal(err error) bool {
	var f final
	return errors.As(err, &f)
}

// Checks lists the registry's checks of scope, in the order they run.
func Checks(scope Scope) []Check {
	var out []Check
	for _, c := range registry {
		if c.Scope == scope {
			out = append(out, c)
		}
	}
	return out
}

// Run runs every check of scope in order and stops at the first refusal.
func Run(ctx context.Context, st *State, scope Scope) error {
	for _, c := range Checks(scope) {
		if err := c.Run(ctx, st); err != nil {
			return err
		}
	}
	return nil
}
