package preflight

import (
	"context"
	"errors"
	"fmt"
)

// Scope says when a check runs.
type Scope int

const (
	// Connected checks run once the servers are connected, before the migration lock is taken:
	// what the replica modes need of the --host replica.
	Connected Scope = iota
	// BeforeCreate checks run once the servers are connected and the migration lock is held,
	// before any table is created: the servers, the table, the ALTER, the helper tables' names.
	BeforeCreate
	// Resume checks run on a --resume instead of creating the ghost: the stopped run's tables,
	// checkpoint and binary log, and its ghost proven equal to one made now (State.Resumed).
	Resume
	// Revert checks run on a --revert instead of creating the ghost: the old table, the cut-over
	// checkpoint and its binary log, the renames mapped back (State.Reverted).
	Revert
	// AfterGhost checks run once the ghost exists with the ALTER applied: they map the columns,
	// choose the shared key and estimate the rows, filling the Plan.
	AfterGhost
	// StreamStarted checks run once the binlog stream's start is fixed: what the stream does not
	// show (the original's definition since preparation, prepared XA transactions).
	StreamStarted
	// BeforeCutOver checks run under the cut-over's lock, once every change is applied to the
	// ghost: what preparation proved must still hold. Their refusals are final.
	BeforeCutOver
)

// String names the scope, for messages.
func (s Scope) String() string {
	switch s {
	case Connected:
		return "once connected"
	case Resume:
		return "to resume"
	case Revert:
		return "to revert"
	case StreamStarted:
		return "once the stream started"
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
	// NoServer marks a check that reads the State only (the statement, the flags, what earlier
	// checks found), never a server: it runs with no pool at all (noserver_test.go).
	NoServer bool
}

// registry is every check, in the order each scope runs them: the order is the order of the
// refusals a user meets.
var registry = []Check{
	{Name: "replica mode", Scope: Connected, Run: checkReplicaMode},

	{Name: "binary log", Scope: BeforeCreate, Run: checkServerBinlog},
	{Name: "prepared XA transactions", Scope: BeforeCreate, Run: checkPreparedXA},
	{Name: "lock-bypassing plugins", Scope: BeforeCreate, Run: checkPlugins},
	{Name: "cut-over algorithm", Scope: BeforeCreate, Run: checkCutOverAlgorithm, NoServer: true},
	{Name: "metadata locks", Scope: BeforeCreate, Run: checkMetadataLocks},
	{Name: "crashed cut-over", Scope: BeforeCreate, Run: checkCrashed},
	{Name: "table", Scope: BeforeCreate, Run: checkTable},
	{Name: "alter", Scope: BeforeCreate, Run: checkAlter, NoServer: true},
	{Name: "check constraint names", Scope: BeforeCreate, Run: checkConstraintNames, NoServer: true},
	{Name: "helper tables", Scope: BeforeCreate, Run: checkHelperTablesOfRun},

	{Name: "resume", Scope: Resume, Run: checkResume},
	{Name: "revert", Scope: Revert, Run: checkRevert},

	{Name: "columns", Scope: AfterGhost, Run: planColumns, NoServer: true},
	{Name: "new auto-increment column", Scope: AfterGhost, Run: checkNewAutoIncrementColumn},
	{Name: "shared key", Scope: AfterGhost, Run: chooseKey},
	{Name: "row estimate", Scope: AfterGhost, Run: estimate},
	{Name: "indirect writers", Scope: AfterGhost, Run: findIndirectWriters},

	{Name: "original unchanged", Scope: StreamStarted, Run: checkOriginalUnchanged},
	{Name: "prepared XA transactions", Scope: StreamStarted, Run: checkPreparedXA},

	{Name: "ghost is this run's", Scope: BeforeCutOver, Run: checkGhostIsThisRuns},
	{Name: "nullable shared key", Scope: BeforeCutOver, Run: recheckNullableKey},
	{Name: "triggers unchanged", Scope: BeforeCutOver, Run: checkTriggersUnchanged},
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

// Run runs every check of scope in order and stops at the first refusal; each check run is
// recorded in st.Ran (the dry run lists them).
func Run(ctx context.Context, st *State, scope Scope) error {
	for _, c := range Checks(scope) {
		st.Ran = append(st.Ran, c.Name)
		if err := c.Run(ctx, st); err != nil {
			return err
		}
	}
	return nil
}
