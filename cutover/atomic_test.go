package cutover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

func TestRunDispatchesByName(t *testing.T) {
	err := Run(context.Background(), "four-step", Config{}, noopSentinel())
	if err == nil || !strings.Contains(err.Error(), "three-step") || !strings.Contains(err.Error(), "atomic") || !strings.Contains(err.Error(), "two-step") {
		t.Fatalf("unknown algorithm: got %v, want an error naming the three", err)
	}
	for _, algo := range config.CutOverAlgorithms() {
		t.Run(algo, func(t *testing.T) {
			if err := Run(context.Background(), algo, Config{}, noopSentinel()); err == nil || !strings.Contains(err.Error(), "no database pool") {
				t.Fatalf("%s: got %v, want the config refused (dispatched)", algo, err)
			}
		})
	}
}

// The happy path under a concurrent write load: one RENAME swaps both names, no write ever
// fails for a missing table, and every acknowledged write is in old or new.
func TestAtomicHappyPathUnderLoad(t *testing.T) {
	atomicIsSafeHere(t)
	f := newFixture(t, "a_happy")
	r := f.happyPath(atomicCut, []func(StepInfo) int64{lockSession, rename1Session}, nil)
	assertNoOutage(t, r.writes)
	want := []Step{StepSentry, StepLock, StepSentinel, StepAtomicRename, StepAtomicObserve, StepDropSentry, StepSentryDropped}
	if fmt.Sprint(r.steps) != fmt.Sprint(want) {
		t.Fatalf("hook saw steps %v, want %v", r.steps, want)
	}
	f.assertShortStall(r, "atomic")
}

// Each row kills one session of the first attempt at one step, under a write load. The
// original must never go missing, the cut-over must finish on a retry, nothing is lost.
func TestAtomicFailureMatrix(t *testing.T) {
	atomicIsSafeHere(t)
	// Give the queued rename every chance to run wrongly.
	pause := func(context.Context, *fixture) error { time.Sleep(50 * time.Millisecond); return nil }
	cases := []killCase{
		{"C1 killed after creating the sentry", StepLock, lockSession, 2, "our sentry dropped", pause},
		{"C1 killed before the rename is queued", StepAtomicRename, lockSession, 2, "our sentry dropped", pause},
		{"C1 killed after the rename is queued", StepDropSentry, lockSession, 2, "our sentry dropped", pause},
		{"rename session killed while queued", StepDropSentry, rename1Session, 2, "our sentry dropped", pause},
	}
	// Attempt 2 starts with the original intact (sentry dropped), and no write ever saw it missing.
	killEach(t, "a_chaos", atomicCut, StepSentry, cases, assertNoOutage)
	// The moment that lost writes on MySQL (FACTS.md): C1 dies after dropping the sentry, with
	// writers queued behind it. The rename must run before them, as it does after an UNLOCK.
	late := []killCase{{"C1 killed after dropping the sentry", StepSentryDropped, lockSession, 1, "the swap is complete, rolling forward", nil}}
	killEach(t, "a_late", atomicCut, 0, late, assertNoOutage)
}

// atomicIsSafeHere limits a test of the atomic algorithm's mechanics to the flavors where it runs.
func atomicIsSafeHere(t *testing.T) {
	t.Helper()
	testenv.FlavorLimit(t, func(f dbconn.Flavor) bool { return RefuseOn(config.CutOverAtomic, f) == nil },
		"--cut-over=atomic is refused there (TestAtomicRefusedOnMySQL)")
}

// The atomic algorithm is refused on MySQL, where a dead lock holder may let queued writes run
// before the rename: in one line naming the safe choice, before anything is touched.
func TestAtomicRefusedOnMySQL(t *testing.T) {
	for _, f := range []dbconn.Flavor{{MariaDB: true, Major: 10, Minor: 11}, {MariaDB: true, Major: 11, Minor: 8}} {
		if err := RefuseOn(config.CutOverAtomic, f); err != nil {
			t.Errorf("%s: %v, want atomic allowed", f, err)
		}
	}
	for _, f := range []dbconn.Flavor{{Major: 8, Minor: 0, Patch: 36}, {Major: 9, Minor: 7, Patch: 4}} {
		err := RefuseOn(config.CutOverAtomic, f)
		if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "--cut-over=three-step") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one ErrUnsafe line naming three-step", f, err)
		}
		for _, other := range []string{config.CutOverThreeStep, config.CutOverTwoStep} {
			if err := RefuseOn(other, f); err != nil {
				t.Errorf("%s on %s: %v, want allowed", other, f, err)
			}
		}
	}
	if testenv.Flavor(t).MariaDB {
		return // the sandbox's atomic runs are TestAtomic*'s
	}
	f := newFixture(t, "a_mysql")
	err := Atomic(context.Background(), f.config(2, nil), f.noop())
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "three-step") {
		t.Fatalf("got %v, want ErrUnsafe naming three-step", err)
	}
	f.assertIntact()
}

// Every attempt fails: the original is intact under its name, no sentry is left behind, and
// the pauses between attempts follow the exponential schedule.
func TestAtomicRetriesExhausted(t *testing.T) {
	atomicIsSafeHere(t)
	f := newFixture(t, "a_exhausted")
	var starts []time.Time
	cfg := f.config(3, func(_ context.Context, step Step, _ StepInfo) error {
		if step == StepSentry {
			starts = append(starts, time.Now())
		}
		return nil
	})
	cfg.RetryBackoff, cfg.MaxBackoff, cfg.ExponentialBackoff = 100*time.Millisecond, 200*time.Millisecond, true
	writes, _ := f.neverInSync(atomicCut, cfg, 3, nil)
	assertNoOutage(t, writes)
	if len(starts) != 3 {
		t.Fatalf("%d attempts started, want 3", len(starts))
	}
	if g1, g2 := starts[1].Sub(starts[0]), starts[2].Sub(starts[1]); g1 < 100*time.Millisecond || g2 < 200*time.Millisecond {
		t.Fatalf("gaps between attempts %s, %s; want at least 100ms then 200ms", g1, g2)
	}
}

// A table under the old name that is not our sentry is never dropped.
func TestAtomicForeignOldTableRefused(t *testing.T) {
	f := newFixture(t, "a_foreign")
	testenv.Exec(t, f.admin, "CREATE TABLE "+f.q(f.tables.Old)+" (id INT PRIMARY KEY) COMMENT='"+sentryPrefix+"someone else'")
	err := Atomic(context.Background(), f.config(2, nil), f.noop())
	if !errors.Is(err, ErrUnsafe) {
		t.Fatalf("got %v, want ErrUnsafe", err)
	}
	if orig, old, ghost := f.exists(); !orig || !old || !ghost {
		t.Fatal("tables touched after refusal")
	}
}

// Without performance_schema metadata locks the atomic algorithm cannot prove the rename waits
// on the original before the unlock: it refuses before touching anything.
func TestAtomicRefusedWithoutMetadataLocks(t *testing.T) {
	f := newFixture(t, "a_nops")
	a := &attempt{cfg: f.config(1, nil).withDefaults(), n: 1, algo: algorithmNamed(t, config.CutOverAtomic),
		caps: capabilities{mdl: false, mdlWhy: "performance_schema is off"}}
	if err := a.checkStart(context.Background()); err != nil {
		t.Fatal(err)
	}
	err := a.runAtomic(context.Background())
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "three-step") {
		t.Fatalf("got %v, want ErrUnsafe suggesting three-step", err)
	}
	f.assertIntact()
}
