package binlogapply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The renames of each cut-over algorithm, in binlog order: {T} the original, {G} the ghost, {O} old.
var cutOverRenames = map[string][]string{
	"three-step": {"RENAME TABLE {T} TO {O}", "RENAME TABLE {G} TO {T}"},
	"atomic":     {"RENAME TABLE {T} TO {O}, {G} TO {T}"},
	"two-step":   {"ALTER TABLE {T} RENAME TO {O}", "RENAME TABLE {G} TO {T}"},
}

// A write to the original after the cut-over's sentinel (its lock holder died and a queued write
// was served before the renames) is in the old table only when the ghost was renamed before the
// applier reached it. For every algorithm's renames and every kind of change: the applier stops
// with ErrLateRows naming the change's key and binlog position, never with a missing ghost, and
// never reports the swap as applied.
func TestLateChangesBeforeTheSwapAreReported(t *testing.T) {
	changes := []struct{ kind, stmt, key string }{
		{"insert", "INSERT INTO {T} (id, v) VALUES (1000, 'late')", "insert (1000)"},
		{"update", "UPDATE {T} SET v = 'late' WHERE id = 5", "update (5)"},
		{"delete", "DELETE FROM {T} WHERE id = 6", "delete (6)"},
	}
	i := 0
	for algo, renames := range cutOverRenames {
		for _, c := range changes {
			i++
			t.Run(algo+"/"+c.kind, func(t *testing.T) {
				f := newLateFixture(t, fmt.Sprintf("late%d", i))
				// Everything is in the binary log before the applier starts: the ghost is renamed
				// before the late change can be applied, deterministically.
				f.writeSentinel()
				f.execNames(c.stmt)
				f.execNames(renames...)
				f.start()
				err := f.runError(20 * time.Second)
				if !errors.Is(err, ErrLateRows) {
					t.Fatalf("got %v, want ErrLateRows", err)
				}
				for _, want := range []string{c.key, "1 change(s)", "read from the binary log between ", "old table only"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("report %q lacks %q", err, want)
					}
				}
				if err := f.app.AwaitSwapped(context.Background()); !errors.Is(err, ErrStopped) || f.app.Swapped() {
					t.Errorf("AwaitSwapped: %v, Swapped %v; want ErrStopped: a change of the original was not applied", err, f.app.Swapped())
				}
			})
		}
	}
}

// Late changes that do reach the ghost are not a loss: applied before the renames (the swap is
// then reported as applied), or followed by a rollback's RENAME old TO tbl (the original is back,
// the ghost still under its name).
func TestLateChangesThatReachTheGhostAreNotReported(t *testing.T) {
	t.Run("applied before the swap", func(t *testing.T) {
		f := newLateFixture(t, "late_applied")
		f.start()
		f.sentinel(10 * time.Second)
		before := f.app.Stats().EventsApplied
		f.execNames("INSERT INTO {T} (id, v) VALUES (1000, 'late')")
		f.waitApplied(before + 1)
		f.execNames(cutOverRenames["atomic"]...)
		f.waitSwapped()
	})
	t.Run("rolled back", func(t *testing.T) {
		f := newLateFixture(t, "late_rollback")
		f.writeSentinel()
		f.execNames("INSERT INTO {T} (id, v) VALUES (1000, 'late')", "RENAME TABLE {T} TO {O}", "RENAME TABLE {O} TO {T}")
		f.start()
		f.sentinel(10 * time.Second) // the next attempt's sentinel: everything before it applied
		f.compare([]string{"id", "v"}, []string{"id", "v"}, "id", "id")
		if f.app.Swapped() {
			t.Error("Swapped() is true without a swap")
		}
	})
}

func newLateFixture(t *testing.T, name string) *fixture {
	f := newFixture(t, name, "CREATE TABLE %s (id INT NOT NULL PRIMARY KEY, v VARCHAR(20) NOT NULL)", fixtureOpts{noStart: true, cutOver: true})
	f.exec("INSERT INTO {T} (id, v) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e'), (6, 'f')")
	f.execNames("INSERT INTO {G} SELECT * FROM {T}")
	// The applier starts after the rows both tables hold (as a copy would leave them): it reads only
	// what the test writes next. From the fixture's position it would apply these inserts too, and
	// on a ghost renamed before the start that fails before any late row is read (a race on how the
	// applier batches, not what the test is about).
	start, err := CurrentPosition(context.Background(), f.db, f.flavor)
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Start = start
	return f
}

// execNames runs statements with {T}, {G} and {O} replaced (names).
func (f *fixture) execNames(stmts ...string) {
	f.t.Helper()
	for _, s := range stmts {
		if _, err := f.db.Exec(f.names(s)); err != nil {
			f.t.Fatalf("%s: %v", s, err)
		}
	}
}

// names replaces {T}, {G} and {O} in s by the original, ghost and old names.
func (f *fixture) names(s string) string {
	return strings.NewReplacer("{T}", table.Qualify(testSchema, f.orig), "{G}", table.Qualify(testSchema, f.ghost),
		"{O}", table.Qualify(testSchema, table.OldName(f.orig, ""))).Replace(s)
}

// writeSentinel writes a sentinel without waiting for it (the applier may not run yet).
func (f *fixture) writeSentinel() {
	f.t.Helper()
	if err := changelog.Of(testSchema, f.orig).WriteSentinel(context.Background(), f.db, fmt.Sprint("late-", time.Now().UnixNano())); err != nil {
		f.t.Fatal(err)
	}
}

// waitApplied waits until at least n row changes were applied.
func (f *fixture) waitApplied(n int64) {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); f.app.Stats().EventsApplied < n; {
		if time.Now().After(deadline) {
			f.t.Fatalf("%d changes not applied within 10s: %+v", n, f.app.Stats())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitSwapped waits until the applier reports the swap applied, failing if Run stops.
func (f *fixture) waitSwapped() {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.app.AwaitSwapped(ctx); err != nil {
		f.t.Fatalf("the swap was not applied: %v", err)
	}
}
