// Package cutover swaps the ghost table in place of the original without losing a committed write.
// It knows nothing about copying: the migrator hands it a Sentinel that proves the ghost is in sync.
//
// CONTRACT (used by migrator; keep these signatures):
//
//	ThreeStep(ctx, Config, Sentinel) error
//	Atomic(ctx, Config, Sentinel) error
//	TwoStep(ctx, Config, Sentinel) error
//	Run(ctx, algorithm, Config, Sentinel) error
//
// The three-step algorithm (seed 003): C1 takes LOCK TABLES tbl WRITE and a liveness GET_LOCK token;
// the sentinel proves every write before the lock reached the ghost; C18 queues RENAME tbl TO old
// behind the lock; C19 queues RENAME ghost TO tbl behind C18; C1 unlocks and the renames run first,
// ahead of the application's queued writes (pending exclusive metadata locks win over shared ones).
//
// Invariants:
//   - No acknowledged write is lost. A rename is only queued while C1 is proven alive (its token is
//     held by its connection id), and rename 2 only once rename 1 is seen waiting behind C1, so a
//     write can never land in the original after the sentinel and then be renamed away unseen.
//   - Every wait is bounded by Config.LockTimeout; C1 runs with a wait_timeout so the server drops
//     the lock if this process freezes, and the renames' own lock_wait_timeout outlasts it.
//   - After any failure the package kills its own rename sessions by id, confirms they are gone,
//     releases C1, and then reads which of the three names exist before acting: it rolls back
//     (RENAME old TO tbl) when the original name is missing, rolls forward when the swap completed,
//     and stops with ErrUnknownState on any other combination. It never guesses.
//   - On failure the original table is left in place under its name, with its data.
//   - Only connections opened by this package are ever killed.
package cutover

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"
)

// Tables names the tables of one cut-over, all in Schema.
type Tables struct {
	Schema   string
	Original string // tbl
	Ghost    string // _tbl_gho
	Old      string // _tbl_del: the name the original takes
}

// Sentinel proves the ghost is in sync: Await writes a unique sentinel row to the changelog and
// returns once every binlog event before it has been applied to the ghost (or ctx ends).
type Sentinel interface {
	Await(ctx context.Context) error
}

// Config is what a cut-over needs.
type Config struct {
	DB          *sql.DB // pool on the primary where the tables live
	Tables      Tables
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
	// Hooks are test seams; nil hooks cost nothing.
	Hooks Hooks
}

// Step numbers the steps of the three-step cut-over, as in DESIGN.md.
type Step int

// The steps a hook can act before.
const (
	StepLock     Step = 1 // C1: LOCK TABLES tbl WRITE (sessions are open, nothing locked yet)
	StepSentinel Step = 2 // wait for the sentinel (tbl is locked)
	StepRename1  Step = 3 // C18: RENAME tbl TO old
	StepObserve1 Step = 4 // observer: C18 waiting (rename 1 was issued)
	StepRename2  Step = 5 // C19: RENAME ghost TO tbl (rename 1 seen waiting)
	StepObserve2 Step = 6 // observer: C19 and C18 waiting (rename 2 was issued)
	StepUnlock   Step = 7 // C1: UNLOCK TABLES (every check passed)

	// Atomic (also uses StepLock and StepSentinel).
	StepSentry        Step = 8  // C1: CREATE the sentry table named like old (before StepLock)
	StepAtomicRename  Step = 9  // C2: RENAME tbl TO old, ghost TO tbl (tbl and sentry locked)
	StepAtomicObserve Step = 10 // observer: C2 waiting (the rename was issued)
	StepDropSentry    Step = 11 // C1: DROP the sentry, UNLOCK TABLES (every check passed)

	// Two-step (also uses StepLock and StepSentinel).
	StepRenameAway Step = 12 // C1: ALTER TABLE tbl RENAME TO old (releases the lock)
	StepRenameIn   Step = 13 // C2: RENAME ghost TO tbl (tbl is missing until it runs)
)

func (s Step) String() string {
	names := [...]string{"", "lock", "sentinel", "rename1", "observe1", "rename2", "observe2", "unlock",
		"sentry", "atomic-rename", "atomic-observe", "drop-sentry", "rename-away", "rename-in"}
	if s < 1 || int(s) >= len(names) {
		return fmt.Sprintf("step(%d)", int(s))
	}
	return names[s]
}

// HookInfo tells a hook where the cut-over is: the attempt (from 1) and the connection ids of
// C1, C18 and C19 (zero when that session is not open). For atomic and two-step, Rename1 is the
// rename session C2 and Rename2 is zero.
type HookInfo struct {
	Attempt                int
	Lock, Rename1, Rename2 int64
}

// Hooks lets tests act at a chosen step. BeforeStep runs just before step begins; an error it
// returns fails the attempt like any other error.
type Hooks struct {
	BeforeStep func(ctx context.Context, step Step, info HookInfo) error
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

func (c Config) validate() error {
	t := c.Tables
	switch {
	case c.DB == nil:
		return errors.New("cut-over: no database pool")
	case c.LockTimeout <= 0:
		return errors.New("cut-over: lock timeout must be positive")
	case t.Schema == "" || t.Original == "" || t.Ghost == "" || t.Old == "":
		return fmt.Errorf("cut-over: every table name is required (got %+v)", t)
	case t.Original == t.Ghost || t.Original == t.Old || t.Ghost == t.Old:
		return fmt.Errorf("cut-over: table names must differ (got %+v)", t)
	}
	return nil
}

// The cut-over algorithms, by their --cut-over names.
const (
	AlgorithmThreeStep = "three-step"
	AlgorithmAtomic    = "atomic"
	AlgorithmTwoStep   = "two-step"
)

// Run runs the cut-over algorithm named by --cut-over.
func Run(ctx context.Context, algorithm string, cfg Config, s Sentinel) error {
	switch algorithm {
	case AlgorithmThreeStep, "":
		return ThreeStep(ctx, cfg, s)
	case AlgorithmAtomic:
		return Atomic(ctx, cfg, s)
	case AlgorithmTwoStep:
		return TwoStep(ctx, cfg, s)
	}
	return fmt.Errorf("cut-over algorithm %q is not available (use %s, %s or %s)", algorithm,
		AlgorithmThreeStep, AlgorithmAtomic, AlgorithmTwoStep)
}

// ThreeStep runs the LOCK / RENAME / RENAME cut-over, retrying a failed attempt after restoring
// the original. On success the original is named Tables.Old and the ghost Tables.Original.
func ThreeStep(ctx context.Context, cfg Config, s Sentinel) error {
	return runAttempts(ctx, AlgorithmThreeStep, cfg, s)
}

// runAttempts runs attempts of algo until one succeeds, a failure is final (unsafe, unknown
// state, ctx ended), or cfg.Retries attempts failed; it waits backoff(n) between attempts.
func runAttempts(ctx context.Context, algo string, cfg Config, s Sentinel) error {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return err
	}
	t := cfg.Tables
	log := cfg.Logger.With().Str("component", "cutover").Str("algorithm", algo).Str("schema", t.Schema).Str("table", t.Original).Logger()
	caps, err := probe(ctx, cfg.DB, log)
	if err != nil {
		return err
	}
	var last error
	for n := 1; n <= cfg.Retries; n++ {
		if n > 1 {
			wait := backoff(cfg.RetryBackoff, cfg.MaxBackoff, cfg.ExponentialBackoff, n-1)
			log.Info().Int("attempt", n).Dur("backoff", wait).Msg("waiting before the next cut-over attempt")
			select {
			case <-ctx.Done():
				return fmt.Errorf("cut-over of %s.%s aborted before attempt %d (last failure: %v): %w", t.Schema, t.Original, n, last, ctx.Err())
			case <-time.After(wait):
			}
		}
		a := &attempt{cfg: cfg, n: n, sentinel: s, caps: caps, algo: algo,
			log: log.With().Int("attempt", n).Logger()}
		err := a.runAndRecover(ctx)
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrUnsafe) || errors.Is(err, ErrUnknownState) {
			return err
		}
		last = err
		a.log.Warn().Err(err).Msg("cut-over attempt failed; original restored")
		if ctx.Err() != nil {
			return fmt.Errorf("cut-over of %s.%s aborted in attempt %d; %s is in place under its name: %w", t.Schema, t.Original, n, t.Original, err)
		}
	}
	return fmt.Errorf("cut-over of %s.%s failed after %d attempt(s); %s is in place under its name: %w",
		t.Schema, t.Original, cfg.Retries, t.Original, last)
}
