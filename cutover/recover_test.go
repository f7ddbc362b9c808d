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
)

// recover's decision for every combination of the three names, reached by hand with DDL after
// the attempt recorded which table is which. Nothing may be touched in a state the algorithm
// cannot produce.
func TestRecoverDecidesFromRealState(t *testing.T) {
	cases := []struct {
		name string
		ddl  func(f *fixture) []string // from the initial state (tbl, ghost) to the state under test
		want string                    // "cause", "rolled-back", "forward", "unknown"
		// final names present after recover: orig, old, ghost
		orig, old, ghost bool
	}{
		{"nothing renamed", func(f *fixture) []string { return nil }, "cause", true, false, true},
		{"rename 1 alone", func(f *fixture) []string {
			return []string{f.rename(f.tables.Original, f.tables.Old)}
		}, "rolled-back", true, false, true},
		{"swap complete", func(f *fixture) []string {
			return []string{f.rename(f.tables.Original, f.tables.Old), f.rename(f.tables.Ghost, f.tables.Original)}
		}, "forward", true, true, false},
		{"tbl and ghost missing", func(f *fixture) []string {
			return []string{f.rename(f.tables.Original, f.tables.Old), f.rename(f.tables.Ghost, "elsewhere")}
		}, "unknown", false, true, false},
		{"tbl and old missing", func(f *fixture) []string {
			return []string{f.rename(f.tables.Original, "elsewhere")}
		}, "unknown", false, false, true},
		{"all three present", func(f *fixture) []string {
			return []string{"CREATE TABLE " + f.q(f.tables.Old) + " (id INT PRIMARY KEY)"}
		}, "unknown", true, true, true},
		{"ghost went to old", func(f *fixture) []string {
			return []string{f.rename(f.tables.Ghost, f.tables.Old)}
		}, "unknown", true, true, false},
		{"swap of other tables", func(f *fixture) []string {
			return []string{
				f.rename(f.tables.Original, "elsewhere"), f.rename(f.tables.Ghost, "elsewhere2"),
				"CREATE TABLE " + f.q(f.tables.Original) + " (id INT PRIMARY KEY)",
				"CREATE TABLE " + f.q(f.tables.Old) + " (id INT PRIMARY KEY)",
			}
		}, "unknown", true, true, false},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, fmt.Sprintf("state%d", i))
			ctx := context.Background()
			cfg := f.config(1, nil).withDefaults()
			caps, err := probe(ctx, f.db, cfg.Logger)
			if err != nil {
				t.Fatal(err)
			}
			a := &attempt{cfg: cfg, algo: algorithmNamed(t, config.CutOverThreeStep), n: 1, caps: caps, log: cfg.Logger}
			if err := a.checkStart(ctx); err != nil {
				t.Fatal(err)
			}
			for _, q := range c.ddl(f) {
				if _, err := f.admin.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			cause := errors.New("injected failure")
			err = a.recover(ctx, cause)
			switch c.want {
			case "cause":
				if err != cause {
					t.Fatalf("got %v, want the cause unchanged", err)
				}
			case "rolled-back":
				if !errors.Is(err, cause) || !strings.Contains(err.Error(), "rolled back") {
					t.Fatalf("got %v, want a rollback wrapping the cause", err)
				}
			case "forward":
				if err != nil {
					t.Fatalf("got %v, want nil (roll forward)", err)
				}
			case "unknown":
				if !errors.Is(err, ErrUnknownState) {
					t.Fatalf("got %v, want ErrUnknownState", err)
				}
			}
			orig, old, ghost := f.exists()
			if orig != c.orig || old != c.old || ghost != c.ghost {
				t.Fatalf("after recover: orig=%v old=%v ghost=%v; want %v %v %v", orig, old, ghost, c.orig, c.old, c.ghost)
			}
		})
	}
}

func (f *fixture) rename(from, to string) string {
	return fmt.Sprintf("RENAME TABLE %s TO %s", f.q(from), f.q(to))
}

// Without performance_schema the ghost check falls back to SHOW OPEN TABLES, which still sees
// LOCK TABLES on the ghost.
func TestGhostCheckFallbackWithoutPerformanceSchema(t *testing.T) {
	f := newFixture(t, "fallback")
	ctx := context.Background()
	cfg := f.config(1, nil).withDefaults()
	cfg.LockTimeout = 200 * time.Millisecond
	a := &attempt{cfg: cfg, caps: capabilities{mdl: false}, log: cfg.Logger}
	if err := a.checkGhostUnlocked(ctx, f.admin); err != nil {
		t.Fatalf("free ghost refused: %v", err)
	}
	unlock := f.lockTableRead(f.tables.Ghost)
	err := a.checkGhostUnlocked(ctx, f.admin)
	unlock()
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "SHOW OPEN TABLES") {
		t.Fatalf("got %v, want ErrUnsafe from SHOW OPEN TABLES", err)
	}
}

// Cancelling the caller's context mid cut-over (both renames queued) restores the original
// and kills our renames: nothing of ours is left in the processlist.
func TestCancelledContextRestoresOriginal(t *testing.T) {
	f := newFixture(t, "cancelled")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ids StepInfo
	hook := func(_ context.Context, step Step, info StepInfo) error {
		if step == StepObserve2 {
			ids = info
			cancel()
		}
		return nil
	}
	l := f.startLoad(2)
	err := ThreeStep(ctx, f.config(3, hook), f.noop())
	writes := finish(l)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	f.assertIntact()
	f.assertNoLoss(writes, time.Time{}, false)
	// Discarded sessions leave the processlist as soon as the server reads their COM_QUIT.
	gone := f.waitFor(context.Background(), "our sessions gone", func() (bool, error) {
		var n int
		err := f.admin.QueryRow("SELECT COUNT(*) FROM "+dbconn.ProcesslistTable(context.Background(), f.admin)+" WHERE ID IN (?, ?, ?)",
			ids.Lock, ids.Rename1, ids.Rename2).Scan(&n)
		return n == 0, err
	})
	if gone != nil {
		t.Fatalf("our cut-over sessions are still in the processlist: %v", gone)
	}
}
