package cutover

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
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
	renamedAway func(a *attempt, st states, cause error) remedy
	// oldTaken decides the recovery when the original and the ghost are in place and a table
	// holds the old name (the atomic sentry). nil: an unknown state.
	oldTaken func(a *attempt, st states, cause error) remedy
	// swap names the statements that ran when the swap completed, for the log.
	swap string
	// unsafeOn, when set, says why the algorithm cannot be used on a server flavor, as the rest of
	// a sentence after its flag ("is not safe on MySQL 9.7.4: ..."), or "" when it can: the run
	// is refused before anything is created, and every cut-over checks again.
	unsafeOn func(f dbconn.Flavor) string
	// sets: the algorithm cuts several tables over at once (Config.Also), all or nothing.
	sets bool
}

// algorithms is the registry, in the order they are offered; the first is the default.
var algorithms = []algorithm{
	{name: config.CutOverThreeStep, run: (*attempt).runThreeStep, renamedAway: (*attempt).rollBackRenamedAway, swap: "both renames", sets: true},
	{name: config.CutOverAtomic, run: (*attempt).runAtomic, oldTaken: (*attempt).dropOurSentry, swap: "the rename", unsafeOn: atomicUnsafeOn},
	{name: config.CutOverTwoStep, run: (*attempt).runTwoStep, renamedAway: (*attempt).forwardIfSynced, swap: "both renames"},
	{name: config.CutOverLockRename, run: (*attempt).runLockRename, swap: "the rename", unsafeOn: lockRenameUnsafeOn, sets: true},
}

func lookup(name string) (algorithm, error) {
	for _, a := range algorithms {
		if a.name == name {
			return a, nil
		}
	}
	return algorithm{}, config.ValidateCutOver(name)
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
	return Run(ctx, config.CutOverThreeStep, cfg, s)
}

// Atomic is Run with the sentry-table cut-over (atomic.go).
func Atomic(ctx context.Context, cfg Config, s Sentinel) error {
	return Run(ctx, config.CutOverAtomic, cfg, s)
}

// TwoStep is Run with the lock / rename away / rename in cut-over (twostep.go).
func TwoStep(ctx context.Context, cfg Config, s Sentinel) error {
	return Run(ctx, config.CutOverTwoStep, cfg, s)
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
		return fmt.Errorf("%w: --cut-over=%s %s; use --cut-over=%s (the default)", ErrUnsafe, name, why, config.CutOverThreeStep)
	}
	return nil
}

// RefuseSet returns nil when the algorithm named name ("" is the default) can cut over n tables
// at once, and otherwise an error in one line naming the algorithms that can. The migrator asks
// before anything is created; every cut-over of a set checks again.
func RefuseSet(name string, n int) error {
	if name == "" {
		name = algorithms[0].name
	}
	algo, err := lookup(name)
	if err != nil {
		return err
	}
	return refuseSet(algo, n)
}

func refuseSet(algo algorithm, n int) error {
	if n <= 1 || algo.sets {
		return nil
	}
	var can []string
	for _, a := range algorithms {
		if a.sets {
			can = append(can, a.name)
		}
	}
	return fmt.Errorf("--cut-over=%s cannot cut %d tables over at once; use --cut-over=%s", algo.name, n, strings.Join(can, " or --cut-over="))
}
