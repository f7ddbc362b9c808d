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
	type victim int
	const (
		c1 victim = iota
		c18
		c19
	)
	cases := []struct {
		name     string
		step     Step
		victim   victim
		after    string // wait after the kill until: "orig-missing", "ghost-missing" or ""
		attempts int    // attempts the cut-over takes
		wantLog  string // what recover must have decided
	}{
		{"C1 killed before rename 1", StepRename1, c1, "", 2, "nothing was renamed"},
		{"C1 killed after rename 1 queued", StepRename2, c1, "orig-missing", 2, "rolling back"},
		{"C18 killed before rename 2", StepRename2, c18, "", 2, "nothing was renamed"},
		{"C19 killed while queued", StepObserve2, c19, "", 2, "nothing was renamed"},
		{"C18 killed after rename 2 queued", StepUnlock, c18, "", 2, "nothing was renamed"},
		{"C19 killed before unlock", StepUnlock, c19, "", 2, "rolling back"},
		{"C1 killed after rename 2 queued", StepUnlock, c1, "ghost-missing", 1, "rolling forward"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, fmt.Sprintf("chaos%d", i))
			attempts := 0
			killed := false
			hook := func(ctx context.Context, step Step, info HookInfo) error {
				attempts = max(attempts, info.Attempt)
				if info.Attempt != 1 || step != c.step {
					return nil
				}
				id := [...]int64{info.Lock, info.Rename1, info.Rename2}[c.victim]
				if err := f.killAndWait(ctx, id); err != nil {
					return fmt.Errorf("test could not kill connection %d: %w", id, err)
				}
				killed = true
				switch c.after {
				case "orig-missing":
					return f.waitFor(ctx, func() (bool, error) { orig, _, _ := f.exists(); return !orig, nil })
				case "ghost-missing":
					return f.waitFor(ctx, func() (bool, error) { _, _, ghost := f.exists(); return !ghost, nil })
				}
				return nil
			}
			l := f.startLoad(3)
			err := ThreeStep(context.Background(), f.config(3, hook), f.noop())
			done := time.Now()
			time.Sleep(100 * time.Millisecond)
			writes := l.finish()
			if err != nil {
				t.Fatalf("ThreeStep: %v", err)
			}
			if !killed {
				t.Fatal("the hook never killed its victim")
			}
			if attempts != c.attempts {
				t.Errorf("took %d attempts, want %d", attempts, c.attempts)
			}
			if !f.logs.contains(c.wantLog) {
				t.Errorf("log lacks %q", c.wantLog)
			}
			f.assertSwapped()
			f.assertNoLoss(writes, done, true)
		})
	}
}

// The table disappears for a moment when C1 dies after rename 1 is queued: the rollback must
// bring it back fast. Measured from the kill to the original name being back.
func TestRollbackOutageIsShort(t *testing.T) {
	f := newFixture(t, "outage")
	var missingAt, backAt time.Time
	hook := func(ctx context.Context, step Step, info HookInfo) error {
		switch {
		case info.Attempt == 1 && step == StepRename2:
			if err := f.killAndWait(ctx, info.Lock); err != nil {
				return err
			}
			err := f.waitFor(ctx, func() (bool, error) { orig, _, _ := f.exists(); return !orig, nil })
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
