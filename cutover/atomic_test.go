package cutover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// outageErrors counts writes that failed because the table was missing (error 1146).
func outageErrors(writes []ack) (n int, first, last time.Time) {
	for _, a := range writes {
		if a.err == "error 1146" {
			if n == 0 || a.end.Before(first) {
				first = a.end
			}
			if a.end.After(last) {
				last = a.end
			}
			n++
		}
	}
	return n, first, last
}

func assertNoOutage(t *testing.T, writes []ack) {
	t.Helper()
	if n, first, last := outageErrors(writes); n > 0 {
		t.Fatalf("atomic cut-over showed an outage: %d writes failed with error 1146 over %s", n, last.Sub(first))
	}
}

func TestRunDispatchesByName(t *testing.T) {
	err := Run(context.Background(), "four-step", Config{}, noopSentinel())
	if err == nil || !strings.Contains(err.Error(), "three-step") || !strings.Contains(err.Error(), "atomic") || !strings.Contains(err.Error(), "two-step") {
		t.Fatalf("unknown algorithm: got %v, want an error naming the three", err)
	}
	for _, algo := range []string{AlgorithmThreeStep, AlgorithmAtomic, AlgorithmTwoStep} {
		if err := Run(context.Background(), algo, Config{}, noopSentinel()); err == nil || !strings.Contains(err.Error(), "no database pool") {
			t.Fatalf("%s: got %v, want the config refused (dispatched)", algo, err)
		}
	}
}

// The happy path under a concurrent write load: one RENAME swaps both names, no write ever
// fails for a missing table, and every acknowledged write is in old or new.
func TestAtomicHappyPathUnderLoad(t *testing.T) {
	f := newFixture(t, "a_happy")
	var steps []Step
	cfg := f.config(1, func(_ context.Context, s Step, info HookInfo) error {
		if info.Lock == 0 || info.Rename1 == 0 {
			return fmt.Errorf("hook at %s without connection ids: %+v", s, info)
		}
		steps = append(steps, s)
		return nil
	})
	l := f.startLoad(4)
	start := time.Now()
	err := Atomic(context.Background(), cfg, f.noop())
	done := time.Now()
	time.Sleep(200 * time.Millisecond)
	writes := l.finish()
	if err != nil {
		t.Fatalf("Atomic: %v", err)
	}
	f.assertSwapped()
	inOld, inNew := f.assertNoLoss(writes, done, true)
	if inOld == 0 || inNew == 0 {
		t.Fatalf("the load did not span the cut-over: %d writes in old, %d in new", inOld, inNew)
	}
	assertNoOutage(t, writes)
	want := []Step{StepSentry, StepLock, StepSentinel, StepAtomicRename, StepAtomicObserve, StepDropSentry}
	if fmt.Sprint(steps) != fmt.Sprint(want) {
		t.Fatalf("hook saw steps %v, want %v", steps, want)
	}
	stall := maxStall(writes, start, done)
	t.Logf("atomic cut-over took %s; longest INSERT during it: %s; no outage", done.Sub(start), stall)
	if stall > time.Second {
		t.Fatalf("write stall %s at cut-over; want well under a second with a no-op sentinel", stall)
	}
	if !f.logs.contains(`"metadata_locks_check":true`) {
		t.Fatalf("checks not logged:\n%s", f.logs.String())
	}
}

// Each row kills one session of the first attempt at one step, under a write load. The
// original must never go missing, the cut-over must finish on a retry, nothing is lost.
func TestAtomicFailureMatrix(t *testing.T) {
	cases := []struct {
		name     string
		step     Step
		rename   bool // kill the rename session C2 instead of C1
		attempts int
		wantLog  string
	}{
		{"C1 killed after creating the sentry", StepLock, false, 2, "our sentry dropped"},
		{"C1 killed before the rename is queued", StepAtomicRename, false, 2, "our sentry dropped"},
		{"C1 killed after the rename is queued", StepDropSentry, false, 2, "our sentry dropped"},
		{"rename session killed while queued", StepDropSentry, true, 2, "our sentry dropped"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, fmt.Sprintf("a_chaos%d", i))
			attempts, killed := 0, false
			var intactBetween bool
			hook := func(ctx context.Context, step Step, info HookInfo) error {
				attempts = max(attempts, info.Attempt)
				if info.Attempt == 2 && step == StepSentry {
					orig, old, ghost := f.exists()
					intactBetween = orig && !old && ghost
				}
				if info.Attempt != 1 || step != c.step {
					return nil
				}
				id := info.Lock
				if c.rename {
					id = info.Rename1
				}
				if err := f.killAndWait(ctx, id); err != nil {
					return fmt.Errorf("test could not kill connection %d: %w", id, err)
				}
				killed = true
				// Give the queued rename every chance to run wrongly.
				time.Sleep(50 * time.Millisecond)
				return nil
			}
			l := f.startLoad(3)
			err := Atomic(context.Background(), f.config(3, hook), f.noop())
			done := time.Now()
			time.Sleep(100 * time.Millisecond)
			writes := l.finish()
			if err != nil {
				t.Fatalf("Atomic: %v", err)
			}
			if !killed {
				t.Fatal("the hook never killed its victim")
			}
			if attempts != c.attempts {
				t.Errorf("took %d attempts, want %d", attempts, c.attempts)
			}
			if !intactBetween {
				t.Error("the original was not intact (sentry dropped) before attempt 2")
			}
			if !f.logs.contains(c.wantLog) {
				t.Errorf("log lacks %q", c.wantLog)
			}
			f.assertSwapped()
			f.assertNoLoss(writes, done, true)
			assertNoOutage(t, writes)
		})
	}
}

// Every attempt fails: the original is intact under its name, no sentry is left behind, and
// the pauses between attempts follow the exponential schedule.
func TestAtomicRetriesExhausted(t *testing.T) {
	f := newFixture(t, "a_exhausted")
	s := sentinelFunc(func(context.Context) error { return errors.New("never in sync") })
	var starts []time.Time
	cfg := f.config(3, func(_ context.Context, step Step, _ HookInfo) error {
		if step == StepSentry {
			starts = append(starts, time.Now())
		}
		return nil
	})
	cfg.RetryBackoff, cfg.MaxBackoff, cfg.ExponentialBackoff = 100*time.Millisecond, 200*time.Millisecond, true
	l := f.startLoad(2)
	err := Atomic(context.Background(), cfg, s)
	writes := l.finish()
	if err == nil || !strings.Contains(err.Error(), "never in sync") || !strings.Contains(err.Error(), "3 attempt") {
		t.Fatalf("got %v, want an error after 3 attempts wrapping the sentinel's", err)
	}
	f.assertIntact()
	f.assertNoLoss(writes, time.Time{}, false)
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
	testenvExec(t, f, "CREATE TABLE "+f.q(f.tables.Old)+" (id INT PRIMARY KEY) COMMENT='"+sentryPrefix+"someone else'")
	err := Atomic(context.Background(), f.config(2, nil), f.noop())
	if !errors.Is(err, ErrUnsafe) {
		t.Fatalf("got %v, want ErrUnsafe", err)
	}
	if orig, old, ghost := f.exists(); !orig || !old || !ghost {
		t.Fatal("tables touched after refusal")
	}
}

func testenvExec(t *testing.T, f *fixture, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := f.admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// Without performance_schema metadata locks the atomic algorithm cannot prove the rename waits
// on the original before the unlock: it refuses before touching anything.
func TestAtomicRefusedWithoutMetadataLocks(t *testing.T) {
	f := newFixture(t, "a_nops")
	a := &attempt{cfg: f.config(1, nil).withDefaults(), n: 1, algo: AlgorithmAtomic,
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
