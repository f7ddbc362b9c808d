package cutover

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// The cut-over algorithms, by their --cut-over names.
const (
	AlgorithmThreeStep = "three-step"
	AlgorithmAtomic    = "atomic"
	AlgorithmTwoStep   = "two-step"
	// AlgorithmLockRename renames under the locking session's own lock (MySQL 8.0.13+).
	AlgorithmLockRename = "lock-rename"
)

// algorithm is everything in which one cut-over algorithm differs from the others. Everything
// else (sessions, the lock and the sentinel, the safety checks, the retries, the recovery) is
// shared. An algorithm added to algorithms is validated, run and recovered like the others.
type algorithm struct {
	name string
	// run performs one attempt. Any error leaves the cleanup to the recovery (recover.go).
	run func(a *attempt, ctx context.Context) error
	// renamedAway decides the recovery when the original was renamed to old and the ghost still
	// has its own name (the original name is missing). nil: the algorithm never leaves that
	// state, so it is an unknown one.
	renamedAway func(a *attempt, st state, cause error) remedy
	// oldTaken decides the recovery when the original and the ghost are in place and a table
	// holds the old name (the atomic sentry). nil: an unknown state.
	oldTaken func(a *attempt, st state, cause error) remedy
	// swap names the statements that ran when the swap completed, for the log.
	swap string
	// unsafeOn, when set, says why the algorithm cannot be used on a server flavor, as the rest of
	// a sentence after its flag ("is not safe on MySQL 9.7.4: ..."), or "" when it can: the run
	// is refused before anything is created, and every cut-over checks again.
	unsafeOn func(f dbconn.Flavor) string
}

// algorithms is the registry, in the order they are offered; the first is the default.
var algorithms = []algorithm{
	{name: AlgorithmThreeStep, run: (*attempt).runThreeStep, renamedAway: (*attempt).rollBackRenamedAway, swap: "both renames"},
	{name: AlgorithmAtomic, run: (*attempt).runAtomic, oldTaken: (*attempt).dropOurSentry, swap: "the rename", unsafeOn: atomicUnsafeOn},
	{name: AlgorithmTwoStep, run: (*attempt).runTwoStep, renamedAway: (*attempt).forwardIfSynced, swap: "both renames"},
	{name: AlgorithmLockRename, run: (*attempt).runLockRename, swap: "the rename", unsafeOn: lockRenameUnsafeOn},
}

// Algorithms lists the --cut-over names, the default first.
func Algorithms() []string {
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = a.name
	}
	return names
}

// Choices lists the --cut-over names for a message: "three-step, atomic, two-step or lock-rename".
func Choices() string {
	names := Algorithms()
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Validate returns nil when name is a cut-over algorithm, and otherwise an error naming them.
// (Run also takes "" for the default; Validate does not: a configuration names its algorithm.)
func Validate(name string) error {
	_, err := lookup(name)
	return err
}

func lookup(name string) (algorithm, error) {
	for _, a := range algorithms {
		if a.name == name {
			return a, nil
		}
	}
	return algorithm{}, fmt.Errorf("cut-over algorithm %q is not supported; use %s", name, Choices())
}

// Run runs the cut-over algorithm named by --cut-over ("" is the default, three-step), retrying
// a failed attempt after restoring the original. On success the original is named Tables.Old
// and the ghost Tables.Original.
func Run(ctx context.Context, name string, cfg Config, s Sentinel) error {
	if name == "" {
		name = algorithms[0].name
	}
	algo, err := lookup(name)
	if err != nil {
		return err
	}
	return runAttempts(ctx, algo, cfg, s)
}

// ThreeStep is Run with the LOCK / RENAME / RENAME cut-over (threestep.go).
func ThreeStep(ctx context.Context, cfg Config, s Sentinel) error {
	return Run(ctx, AlgorithmThreeStep, cfg, s)
}

// Atomic is Run with the sentry-table cut-over (atomic.go).
func Atomic(ctx context.Context, cfg Config, s Sentinel) error {
	return Run(ctx, AlgorithmAtomic, cfg, s)
}

// TwoStep is Run with the lock / rename away / rename in cut-over (twostep.go).
func TwoStep(ctx context.Context, cfg Config, s Sentinel) error {
	return Run(ctx, AlgorithmTwoStep, cfg, s)
}

// RefuseOn returns nil when the algorithm named name can be trusted on a server of flavor f, and
// otherwise an ErrUnsafe error in one line naming why and the safe choice. The pre-flight checks
// call it before anything is created; every cut-over checks it again before its first attempt.
func RefuseOn(name string, f dbconn.Flavor) error {
	algo, err := lookup(name)
	if err != nil || algo.unsafeOn == nil {
		return err
	}
	if why := algo.unsafeOn(f); why != "" {
		return fmt.Errorf("%w: --cut-over=%s %s; use --cut-over=%s (the default)", ErrUnsafe, name, why, AlgorithmThreeStep)
	}
	return nil
}
