// Package cutover swaps the ghost table in place of the original without losing a committed
// write, and repairs the tables after any failure: of an attempt, or of the whole process. It knows
// nothing about copying: the migrator hands it a Sentinel that proves the ghost is in sync.
// README.md draws the algorithms, the table-state model and the recoveries.
//
// CONTRACT (used by migrator and the command line):
//
//	Run(ctx, name, Config, Sentinel) error       // the algorithm named by --cut-over ("" = three-step)
//	RefuseOn(name, dbconn.Flavor) error           // may that algorithm run on that flavor? (atomic: MariaDB, lock-rename: MySQL 8.0.13+)
//	LockedSentinel                                // what lock-rename needs of the Sentinel: hold the applier, apply on C1
//	ThreeStep, Atomic, TwoStep(ctx, Config, Sentinel) error
//	(the names: config.CutOverAlgorithms, declared with the --cut-over setting; the registry runs one per name)
//	CheckCrashed(ctx, Querier, schema, tbl, *changelog.RevertNames) error // did a run die during its cut-over? (refusal)
//	RecoverCrashed(ctx, CrashConfig) error         // --recover-cut-over; the caller holds the mutex
//	Config.Seams (TestSeams{BeforeStep}, StepInfo)  // test seams, never set by the command line
//	Config.BeforeAttempt, Config.AfterAttempt      // a gate before each attempt; each attempt's outcome
//	Config.UnderLock, Config.UndoUnderLock         // work under the lock once in sync (triggers), and its undo
//	Config.Also, RefuseSet(name, n)                // a set: more tables cut over together (three-step, lock-rename)
//
// Every algorithm is one entry of the registry (registry.go): its name, its run, and its decision
// for the one or two table layouts only it can leave. Validation, dispatch and recovery all go
// through it. The three-step algorithm (seed 003, the default): C1 takes LOCK TABLES tbl WRITE and
// a liveness GET_LOCK token; the sentinel proves every write before the lock reached the ghost; C18
// queues RENAME tbl TO old behind the lock; C19 queues RENAME ghost TO tbl behind C18; C1 unlocks
// and the renames run first, ahead of the application's queued writes (pending exclusive metadata
// locks win over shared ones).
//
// Invariants:
//   - No acknowledged write is lost. A rename is only queued while C1 is proven alive (its token is
//     held by its connection id), and rename 2 only once rename 1 is seen waiting behind C1, so a
//     write can never land in the original after the sentinel and then be renamed away unseen.
//   - Every wait is bounded by Config.LockTimeout; C1 runs with a wait_timeout so the server drops
//     the lock if this process freezes, and the renames' own lock_wait_timeout outlasts it.
//   - After any failure the package kills its own rename sessions by id, confirms they are gone,
//     releases C1, and then reads which of the three names exist (state.go, the one model of them)
//     before acting: it rolls back (RENAME old TO tbl) when the original name is missing (two-step
//     rolls forward instead once its sentinel was applied), rolls forward when the swap completed,
//     and stops with ErrUnknownState on any layout no step of the algorithm leaves. It never guesses.
//   - On failure the original table is left in place under its name, with its data.
//   - A set (Config.Also) swaps every table or none: the ghosts take their names in one RENAME.
//     Three-step renames each original away by a session of its own (a pending exclusive lock
//     protects only the table it waits on) and releases the originals in the order that rename
//     waits on them (setlock.go); a failure between the renames away rolls those back.
//   - Only connections opened by this package are ever killed; the recovery after a crashed run
//     kills nothing at all (it waits for queued renames, and refuses while one remains).
package cutover

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/rs/zerolog"
)

// Tables names the tables of one cut-over, all in Schema.
type Tables struct {
	Schema   string
	Original string // tbl
	Ghost    string // _tbl_gho
	Old      string // _tbl_del: the name the original takes
}

// qualified returns the three names as schema-qualified, quoted identifiers.
func (t Tables) qualified() (original, old, ghost string) {
	return table.Qualify(t.Schema, t.Original), table.Qualify(t.Schema, t.Old), table.Qualify(t.Schema, t.Ghost)
}

// Sentinel proves the ghost is in sync: Await writes a unique sentinel row to the changelog and
// returns once every binlog event before it has been applied to the ghost (or ctx ends).
type Sentinel interface {
	Await(ctx context.Context) error
}

// Config is what a cut-over needs.
type Config struct {
	DB     *sql.DB // pool on the primary where the tables live
	Tables Tables
	// Also are more tables cut over together with Tables (a set: --statement with several
	// ALTERs), in the same schema: one lock, one rename of each kind, one proof; all of them
	// swap or none does. Only the algorithms whose registry entry says so take a set (RefuseSet).
	Also        []Tables
	LockTimeout time.Duration // bounds every wait (--cut-over-lock-timeout-seconds)
	Retries     int           // attempts before giving up (--default-retries)
	Logger      zerolog.Logger

	// RetryBackoff is the pause between attempts; zero means one second.
	RetryBackoff time.Duration
	// ExponentialBackoff doubles the pause after each failed attempt, up to MaxBackoff
	// (--cut-over-exponential-backoff, --exponential-backoff-max-interval).
	ExponentialBackoff bool
	MaxBackoff         time.Duration
	// PollInterval is how often the observer polls the processlist; zero means 5 ms.
	PollInterval time.Duration
	// Seams are test seams; nil seams cost nothing.
	Seams TestSeams

	// BeforeAttempt, when set, runs at the start of every attempt, before any session is opened
	// or anything locked. An error fails that attempt (nothing to undo), which is retried like any
	// other failed attempt: gh-ost's on-before-cut-over hook.
	BeforeAttempt func(ctx context.Context, attempt int) error
	// UnderLock, when set, runs in every attempt once the sentinel is applied, while C1 holds the
	// original locked and before any rename is queued: nothing writes to the original or the ghost
	// then (--include-triggers creates the triggers on the ghost). An error fails the attempt.
	// UndoUnderLock undoes it after a failed attempt in which UnderLock ran, when the original ends
	// in place: after our renames are ended and before C1 releases the lock when nothing was
	// renamed, else once the recovery rolled back (a swap completed or rolled forward keeps it). If
	// it fails the run stops (ErrUnsafe), the original left in place.
	UnderLock     func(ctx context.Context) error
	UndoUnderLock func(ctx context.Context) error
	// AfterAttempt, when set, hears how each attempt ended: for metrics, logs and receipts.
	AfterAttempt func(AttemptOutcome)
}

// AttemptOutcome is how one cut-over attempt ended.
type AttemptOutcome struct {
	Attempt int           // from 1
	Took    time.Duration // the attempt, the backoff before it excluded
	Locked  time.Duration // how long it held the original locked (0: it never locked it)
	Err     error         // nil: the swap is done
}

// ErrUnsafe is returned (wrapped) when a safety check refuses to cut over: retrying would not help.
var ErrUnsafe = errors.New("cut-over refused as unsafe")

// ErrUnknownState is returned (wrapped) when the tables are in a state the algorithm cannot
// produce; nothing is touched and a person must look.
var ErrUnknownState = errors.New("tables in an unexpected state")

func (c Config) withDefaults() Config {
	if c.RetryBackoff <= 0 {
		c.RetryBackoff = time.Second
	}
	if c.PollInterval <= 0 {
		c.PollInterval = 5 * time.Millisecond
	}
	if c.Retries <= 0 {
		c.Retries = 1
	}
	return c
}

// set is every table of the cut-over: Tables first, then Also.
func (c Config) set() []Tables { return append([]Tables{c.Tables}, c.Also...) }

func (c Config) validate() error {
	switch {
	case c.DB == nil:
		return errors.New("cut-over: no database pool")
	case c.LockTimeout <= 0:
		return errors.New("cut-over: lock timeout must be positive")
	}
	seen := map[string]bool{}
	for _, t := range c.set() {
		switch {
		case t.Schema == "" || t.Original == "" || t.Ghost == "" || t.Old == "":
			return fmt.Errorf("cut-over: every table name is required (got %+v)", t)
		case t.Schema != c.Tables.Schema:
			return fmt.Errorf("cut-over: every table of a set must be in schema %s (got %+v)", c.Tables.Schema, t)
		}
		for _, name := range []string{t.Original, t.Ghost, t.Old} {
			if seen[name] {
				return fmt.Errorf("cut-over: table names must differ (%s appears twice in %+v)", name, c.set())
			}
			seen[name] = true
		}
	}
	return nil
}

// setName names the cut-over's tables in messages: "s.t" or "s.t1, t2".
func (c Config) setName() string {
	return c.Tables.Schema + "." + strings.Join(c.originals(), ", ")
}

// originals are the original tables' names, in the set's order.
func (c Config) originals() []string {
	var names []string
	for _, t := range c.set() {
		names = append(names, t.Original)
	}
	return names
}

// renameList is "a TO b, c TO d" for each table of the set: from(t) renamed to to(t), qualified.
func (c Config) renameList(from, to func(Tables) string) string {
	return renameList(c.set(), from, to)
}

// renameList is Config.renameList for the tables ts.
func renameList(ts []Tables, from, to func(Tables) string) string {
	var pairs []string
	for _, t := range ts {
		pairs = append(pairs, table.Qualify(t.Schema, from(t))+" TO "+table.Qualify(t.Schema, to(t)))
	}
	return strings.Join(pairs, ", ")
}

// lockList is "t1 WRITE, t2 WRITE" for the originals of the set, and their ghosts when withGhosts.
func (c Config) lockList(withGhosts bool) string {
	var locks []string
	for _, t := range c.set() {
		locks = append(locks, table.Qualify(t.Schema, t.Original)+" WRITE")
		if withGhosts {
			locks = append(locks, table.Qualify(t.Schema, t.Ghost)+" WRITE")
		}
	}
	return strings.Join(locks, ", ")
}

// Tables' names as they are before and after the swap, for renameList.
func originalName(t Tables) string { return t.Original }
func ghostName(t Tables) string    { return t.Ghost }
func oldName(t Tables) string      { return t.Old }
