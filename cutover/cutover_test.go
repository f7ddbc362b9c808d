package cutover

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

func TestConfigValidate(t *testing.T) {
	db := testenv.Open(t, testenv.PrimaryConfig(), "")
	good := Config{DB: db, LockTimeout: time.Second, Tables: Tables{Schema: "s", Original: "t", Ghost: "_t_gho", Old: "_t_del"}}
	if err := good.validate(); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
	bad := good
	bad.Tables.Old = "t"
	if err := ThreeStep(context.Background(), bad, noopSentinel()); err == nil || !strings.Contains(err.Error(), "must differ") {
		t.Fatalf("same names: got %v", err)
	}
	bad = good
	bad.LockTimeout = 0
	if err := ThreeStep(context.Background(), bad, noopSentinel()); err == nil {
		t.Fatal("zero lock timeout accepted")
	}
}

// The happy path under a concurrent write load: the ghost takes the name, every acknowledged
// write is in old or new, and the write stall stays short.
func TestThreeStepHappyPathUnderLoad(t *testing.T) {
	f := newFixture(t, "happy")
	r := f.happyPath(threeStep, []func(StepInfo) int64{lockSession, rename1Session, rename2Session}, nil)
	if len(r.steps) != 7 || r.steps[0] != StepLock || r.steps[6] != StepUnlock {
		t.Fatalf("hook saw steps %v, want 1..7", r.steps)
	}
	f.assertShortStall(r, "three-step")
}

// Every retry fails: an error wrapping the last failure, and the original in place.
func TestRetriesExhausted(t *testing.T) {
	f := newFixture(t, "exhausted")
	var calls atomic.Int32
	_, err := f.neverInSync(threeStep, f.config(2, nil), 2, &calls)
	if errors.Is(err, ErrUnsafe) || errors.Is(err, ErrUnknownState) {
		t.Fatalf("a sentinel failure is neither unsafe nor unknown: %v", err)
	}
	if calls.Load() != 2 {
		t.Fatalf("sentinel called %d times, want 2", calls.Load())
	}
}

// A sentinel that never returns is bounded by LockTimeout.
func TestSentinelTimeoutBounded(t *testing.T) {
	f := newFixture(t, "sentinel_slow")
	s := sentinelFunc(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	start := time.Now()
	err := ThreeStep(context.Background(), f.config(1, nil), s)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("a stuck sentinel held the cut-over for %s with a 1s lock timeout", d)
	}
	f.assertIntact()
}

// Another session holding a lock on the ghost: refused before anything is locked.
func TestGhostLockedRefused(t *testing.T) {
	f := newFixture(t, "ghost_locked")
	ctx := context.Background()
	unlock := f.lockTableRead(f.tables.Ghost)
	var locked bool
	err := ThreeStep(ctx, f.config(3, func(_ context.Context, s Step, _ StepInfo) error {
		locked = locked || s == StepLock
		return nil
	}), f.noop())
	unlock()
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), f.tables.Ghost) {
		t.Fatalf("got %v, want ErrUnsafe naming the ghost", err)
	}
	if locked {
		t.Fatal("the original was locked although the ghost was locked by another session")
	}
	f.assertIntact()
	// Once the lock is gone, the cut-over goes through.
	if err := ThreeStep(ctx, f.config(1, nil), f.noop()); err != nil {
		t.Fatalf("after unlocking the ghost: %v", err)
	}
	f.assertSwapped()
}

// A table already named like old: refused, nothing touched.
func TestOldNameTakenRefused(t *testing.T) {
	f := newFixture(t, "old_taken")
	testenv.Exec(t, f.admin, "CREATE TABLE "+f.q(f.tables.Old)+" (id INT PRIMARY KEY)")
	err := ThreeStep(context.Background(), f.config(3, nil), noopSentinel())
	if !errors.Is(err, ErrUnsafe) {
		t.Fatalf("got %v, want ErrUnsafe", err)
	}
	if orig, _, ghost := f.exists(); !orig || !ghost {
		t.Fatal("tables touched after refusal")
	}
}

// A sentinel that fails once, for every algorithm: nothing was renamed (atomic's sentry dropped),
// the original is in place when attempt 2 starts, and attempt 2 succeeds without a lost write
// (atomic without a moment of outage either).
func TestSentinelFailsOnceThenRetried(t *testing.T) {
	for _, c := range []struct {
		name      string
		algo      algoRunner
		firstStep Step // the first step of attempt 2
	}{
		{"three-step", threeStep, StepLock},
		{"atomic", atomicCut, StepSentry},
		{"two-step", twoStep, StepLock},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "atomic" {
				atomicIsSafeHere(t)
			}
			f := newFixture(t, "sentinel_once")
			var calls atomic.Int32
			s := sentinelFunc(func(context.Context) error {
				if calls.Add(1) == 1 {
					return errors.New("applier behind")
				}
				return nil
			})
			var intactBetween bool
			cfg := f.config(3, func(_ context.Context, step Step, info StepInfo) error {
				if info.Attempt == 2 && step == c.firstStep {
					orig, old, ghost := f.exists()
					intactBetween = orig && !old && ghost
				}
				return nil
			})
			l := f.startLoad(2)
			err := c.algo.run(context.Background(), cfg, f.track(s))
			done := time.Now()
			writes := finish(l)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if calls.Load() != 2 || !intactBetween {
				t.Fatalf("sentinel called %d times (want 2), intact between attempts: %v", calls.Load(), intactBetween)
			}
			f.assertSwapped()
			f.assertNoLoss(writes, done, true)
			if c.name == "atomic" {
				assertNoOutage(t, writes)
			}
		})
	}
}
