package cutover

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Each case kills one of the cut-over's sessions at one step of the first attempt, under a write
// load. Afterwards the cut-over must have finished (rolling back and retrying, or rolling
// forward), and every acknowledged write must be in old or in the new table.
func TestKillEachSessionAtEachStep(t *testing.T) {
	killEach(t, "chaos", threeStep, 0, threeStepKillCases(false), nil)
}

// threeStepKillCases kill each session of the three-step cut-over at each step of its first
// attempt, for one table or a set. In a set, C18 renames the first table only: killed before the
// unlock, the others' renames away still run, rename 2 fails, and those tables are rolled back.
func threeStepKillCases(set bool) []killCase {
	// After the kill, wait until the server has run the queued rename the kill released.
	origMissing := func(ctx context.Context, f *fixture) error {
		return f.waitFor(ctx, "original missing", func() (bool, error) { orig, _, _ := f.exists(); return !orig, nil })
	}
	ghostMissing := func(ctx context.Context, f *fixture) error {
		return f.waitFor(ctx, "ghost missing", func() (bool, error) { _, _, ghost := f.exists(); return !ghost, nil })
	}
	c18Unlock, c1Unlock, c1UnlockAfter := "nothing was renamed", "rolling forward", ghostMissing
	if set {
		// Killed at the unlock, C1 frees the first table only: rename 2 then waits on the next
		// one, held by a session of its own, and the attempt goes on releasing the tables in turn.
		c18Unlock, c1Unlock, c1UnlockAfter = "rolling back", "its table is released | rolling forward", nil
	}
	cases := []killCase{
		// The kill frees the lock; rename 1, issued right after, may run before the attempt sees C1
		// is gone (then it is rolled back).
		{"C1 killed before rename 1", StepRename1, lockSession, 2, "nothing was renamed | rolling back", nil},
		{"C1 killed after rename 1 queued", StepRename2, lockSession, 2, "rolling back", origMissing},
		{"C18 killed before rename 2", StepRename2, rename1Session, 2, "nothing was renamed", nil},
		{"C19 killed while queued", StepObserve2, rename2Session, 2, "nothing was renamed", nil},
		{"C18 killed after rename 2 queued", StepUnlock, rename1Session, 2, c18Unlock, nil},
		{"C19 killed before unlock", StepUnlock, rename2Session, 2, "rolling back", nil},
		{"C1 killed after rename 2 queued", StepUnlock, lockSession, 1, c1Unlock, c1UnlockAfter},
	}
	return cases
}

// The table disappears for a moment when C1 dies after rename 1 is queued: the rollback must
// bring it back fast. Measured from the kill to the original name being back.
func TestRollbackOutageIsShort(t *testing.T) {
	f := newFixture(t, "outage")
	var missingAt, backAt time.Time
	hook := func(ctx context.Context, step Step, info StepInfo) error {
		switch {
		case info.Attempt == 1 && step == StepRename2:
			if err := f.killAndWait(ctx, info.Lock); err != nil {
				return err
			}
			err := f.waitFor(ctx, "original missing", func() (bool, error) { orig, _, _ := f.exists(); return !orig, nil })
			missingAt = time.Now()
			return err
		case info.Attempt == 2 && step == StepLock:
			backAt = time.Now()
			if orig, old, ghost := f.exists(); !orig || old || !ghost {
				return fmt.Errorf("not rolled back before attempt 2: orig=%v old=%v ghost=%v", orig, old, ghost)
			}
		}
		return nil
	}
	cfg := f.config(2, hook)
	cfg.RetryBackoff = time.Millisecond
	if err := ThreeStep(context.Background(), cfg, f.noop()); err != nil {
		t.Fatalf("ThreeStep: %v", err)
	}
	if missingAt.IsZero() || backAt.IsZero() {
		t.Fatal("the outage was not provoked")
	}
	outage := backAt.Sub(missingAt)
	t.Logf("original name missing for at most %s (kill to rollback, including the next attempt's checks)", outage)
	if outage > 2*time.Second {
		t.Fatalf("outage %s; the rollback should take well under the lock timeout", outage)
	}
	f.assertSwapped()
}
