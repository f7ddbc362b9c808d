package cutover

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
)

// A failing BeforeAttempt fails its attempt before anything is locked; the next attempt runs and
// swaps. AfterAttempt hears each attempt's outcome, in order.
func TestBeforeAttemptGateFailsThatAttempt(t *testing.T) {
	f := newFixture(t, "gated")
	refused := errors.New("hook says no")
	var mu sync.Mutex
	var gates, outcomes []int
	var locked []int
	cfg := f.config(3, func(_ context.Context, s Step, info StepInfo) error {
		if s == StepLock {
			mu.Lock()
			locked = append(locked, info.Attempt)
			mu.Unlock()
		}
		return nil
	})
	cfg.BeforeAttempt = func(_ context.Context, attempt int) error {
		mu.Lock()
		defer mu.Unlock()
		gates = append(gates, attempt)
		if attempt == 1 {
			return refused
		}
		return nil
	}
	var firstErr error
	cfg.AfterAttempt = func(o AttemptOutcome) {
		mu.Lock()
		defer mu.Unlock()
		if o.Err != nil {
			outcomes = append(outcomes, -o.Attempt)
			firstErr = o.Err
		} else {
			outcomes = append(outcomes, o.Attempt)
		}
		if o.Took <= 0 {
			t.Errorf("attempt %d took %s", o.Attempt, o.Took)
		}
		// A refused attempt locks nothing; the one that swaps held the lock for part of its time.
		if locked := o.Err == nil; (o.Locked > 0) != locked || o.Locked > o.Took {
			t.Errorf("attempt %d (err %v) held the lock %s of %s", o.Attempt, o.Err, o.Locked, o.Took)
		}
	}
	if err := ThreeStep(context.Background(), cfg, f.noop()); err != nil {
		t.Fatalf("cut-over failed: %v", err)
	}
	f.assertSwapped()
	if want := []int{1, 2}; !slices.Equal(gates, want) {
		t.Errorf("gate ran for attempts %v, want %v", gates, want)
	}
	if want := []int{2}; !slices.Equal(locked, want) {
		t.Errorf("locked in attempts %v, want %v (a refused attempt locks nothing)", locked, want)
	}
	if want := []int{-1, 2}; !slices.Equal(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	if !errors.Is(firstErr, refused) {
		t.Errorf("attempt 1 failed with %v, want the gate's error", firstErr)
	}
}

// A gate that always refuses: every attempt fails, the original stays in place.
func TestBeforeAttemptGateAlwaysRefusing(t *testing.T) {
	f := newFixture(t, "gated_no")
	refused := errors.New("hook says no")
	cfg := f.config(2, func(_ context.Context, s Step, _ StepInfo) error {
		t.Errorf("step %s ran although the gate refused", s)
		return nil
	})
	cfg.BeforeAttempt = func(context.Context, int) error { return refused }
	err := ThreeStep(context.Background(), cfg, f.noop())
	if !errors.Is(err, refused) {
		t.Fatalf("got %v, want the gate's error", err)
	}
	f.assertIntact()
}
