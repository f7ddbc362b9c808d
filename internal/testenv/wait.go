package testenv

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Poll calls cond every interval until it reports true or an error, and returns that error. It
// gives up with an error naming what when within has passed or ctx ends. Tests wait with it
// instead of sleeping for a guessed time; it may run on any goroutine (it never fails the test).
func Poll(ctx context.Context, within, interval time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(within)
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not reached within %s", what, within)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-time.After(interval):
		}
	}
}

// WaitFor is Poll on the test's goroutine: it fails the test when the condition is not reached
// within the time, or cond returns an error.
func WaitFor(t testing.TB, within, interval time.Duration, what string, cond func() (bool, error)) {
	t.Helper()
	if err := Poll(context.Background(), within, interval, what, cond); err != nil {
		t.Fatal(err)
	}
}

// WaitResult waits at most within for a run's result on done (a migration started on another
// goroutine) and returns it; the test fails when none comes in time.
func WaitResult(t testing.TB, done <-chan error, within time.Duration) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		t.Fatalf("the run did not end within %s", within)
		return nil
	}
}
