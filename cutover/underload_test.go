package cutover

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The scenarios every algorithm's tests share, each under a write load: the happy path, a
// session killed at one step of the first attempt, and a sentinel that never confirms.

// algoRunner is one cut-over algorithm as the tests call it.
type algoRunner struct {
	name string
	run  func(context.Context, Config, Sentinel) error
}

var (
	threeStep = algoRunner{"ThreeStep", ThreeStep}
	atomicCut = algoRunner{"Atomic", Atomic}
	twoStep   = algoRunner{"TwoStep", TwoStep}
	lockRen   = algoRunner{"LockRename", func(ctx context.Context, c Config, s Sentinel) error {
		return Run(ctx, config.CutOverLockRename, c, s)
	}}
)

// The sessions a hook may kill, by the ids it is handed.
func lockSession(i StepInfo) int64    { return i.Lock }
func rename1Session(i StepInfo) int64 { return i.Rename1 }
func rename2Session(i StepInfo) int64 { return i.Rename2 }

// happyRun is what a cut-over under load saw: the steps its hook was called before, every write,
// and when the cut-over started and returned.
type happyRun struct {
	steps       []Step
	writes      []loadgen.Write   // to the first table
	each        [][]loadgen.Write // to each table of the set, the first's first
	start, done time.Time
}

// happyPath runs algo (one attempt) under a load of four writers, its hook recording the steps and
// refusing a call without the connection ids sessions lists; observe, if set, sees every call. It
// checks the ghost took the name and every acknowledged write is in old or new, writes landing
// on both sides of the cut-over.
func (f *fixture) happyPath(algo algoRunner, sessions []func(StepInfo) int64, observe func(Step)) happyRun {
	t := f.t
	t.Helper()
	var r happyRun
	cfg := f.config(1, func(_ context.Context, s Step, info StepInfo) error {
		for _, session := range sessions {
			if session(info) == 0 {
				return fmt.Errorf("hook at %s without connection ids: %+v", s, info)
			}
		}
		r.steps = append(r.steps, s)
		if observe != nil {
			observe(s)
		}
		return nil
	})
	ls := f.startLoads(4)
	r.start = time.Now()
	err := algo.run(context.Background(), cfg, f.noop())
	r.done = time.Now()
	time.Sleep(200 * time.Millisecond) // writes after the cut-over, into the new table
	ws := finishAll(ls)
	r.writes, r.each = ws[0], ws
	if err != nil {
		t.Fatalf("%s: %v", algo.name, err)
	}
	for i, g := range f.each() {
		g.assertSwapped()
		inOld, inNew := g.assertNoLoss(ws[i], r.done, true)
		if inOld == 0 || inNew == 0 {
			t.Fatalf("the load on %s did not span the cut-over: %d writes in old, %d in new", g.tables.Original, inOld, inNew)
		}
	}
	return r
}

// assertShortStall checks the longest INSERT during the cut-over of r took under a second (with a
// no-op sentinel) and the cut-over logged its checks, metadata locks included.
func (f *fixture) assertShortStall(r happyRun, algo string) {
	t := f.t
	t.Helper()
	stall := maxStall(r.writes, r.start, r.done)
	t.Logf("%s cut-over took %s; longest INSERT during it: %s (target < 200ms)", algo, r.done.Sub(r.start), stall)
	if stall > time.Second {
		t.Fatalf("write stall %s at cut-over; want well under a second with a no-op sentinel", stall)
	}
	if !f.logs.Contains(`"metadata_locks_check":true`) {
		t.Fatalf("checks not logged:\n%s", f.logs.String())
	}
}

// lockHeldAt are the steps before which C1 holds the original locked, in every algorithm: the
// application's writes queue behind the lock there.
var lockHeldAt = map[Step]bool{
	StepSentinel: true, StepRename1: true, StepObserve1: true, StepRename2: true, StepObserve2: true, StepUnlock: true,
	StepAtomicRename: true, StepAtomicObserve: true, StepDropSentry: true, StepSentryDropped: true,
	StepRenameAway: true, StepLockRename: true, StepLockRenameUnlock: true,
}

// killCase kills one session of the first attempt before one step.
type killCase struct {
	name     string
	step     Step
	victim   func(StepInfo) int64
	attempts int // attempts the cut-over takes
	// wantLog is what recover must have decided; " | " separates decisions that are all right when
	// the kill races the next statement (it lands before or after the server ran it).
	wantLog string
	// after, if set, runs in the hook once the victim is gone (a wait for the state it leads to).
	after func(ctx context.Context, f *fixture) error
}

// killEach runs each case as a subtest on tables of its own (prefix0, prefix1, ...):
// killFirstAttempt, then check (if set) on the writes.
func killEach(t *testing.T, prefix string, algo algoRunner, intactAt Step, cases []killCase, check func(*testing.T, []loadgen.Write)) {
	killEachSet(t, prefix, algo, 1, intactAt, cases, check)
}

// killEachSet is killEach with n tables cut over together in each case (newSetFixture).
func killEachSet(t *testing.T, prefix string, algo algoRunner, n int, intactAt Step, cases []killCase, check func(*testing.T, []loadgen.Write)) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newSetFixture(t, fmt.Sprintf("%s%d", prefix, i), n)
			writes := f.killFirstAttempt(algo, c, intactAt)
			if check != nil {
				check(t, writes)
			}
		})
	}
}

// killFirstAttempt runs algo (up to three attempts) under a load of three writers, killing the
// victim of c before c.step of attempt 1 and waiting until the server has let it go. It checks
// what every such case must give: the cut-over succeeded after c.attempts attempts, recover
// logged c.wantLog, the ghost took the name, and every acknowledged write is in old or new; with
// intactAt (not 0), the original was intact (nothing renamed, ghost in place) when attempt 2
// reached that step. It returns the writes.
func (f *fixture) killFirstAttempt(algo algoRunner, c killCase, intactAt Step) []loadgen.Write {
	t := f.t
	t.Helper()
	attempts, killed, intactBetween := 0, false, false
	hook := func(ctx context.Context, step Step, info StepInfo) error {
		attempts = max(attempts, info.Attempt)
		if info.Attempt == 2 && step == intactAt {
			orig, old, ghost := f.exists()
			intactBetween = orig && !old && ghost
		}
		if info.Attempt != 1 || step != c.step {
			return nil
		}
		// While C1 holds the lock, kill only once writers are queued behind it: then a kill
		// that lets them run before the renames would show as a lost write, every time.
		if lockHeldAt[c.step] {
			if err := testenv.WaitQueuedWriters(ctx, f.admin, testDB, f.tables.Original, 2); err != nil {
				return fmt.Errorf("test: %w", err)
			}
		}
		id := c.victim(info)
		if err := f.killAndWait(ctx, id); err != nil {
			return fmt.Errorf("test could not kill connection %d: %w", id, err)
		}
		killed = true
		if c.after != nil {
			return c.after(ctx, f)
		}
		return nil
	}
	ls := f.startLoads(3)
	err := algo.run(context.Background(), f.config(3, hook), f.noop())
	done := time.Now()
	time.Sleep(100 * time.Millisecond)
	ws := finishAll(ls)
	writes := ws[0]
	if err != nil {
		t.Fatalf("%s: %v", algo.name, err)
	}
	if !killed {
		t.Fatal("the hook never killed its victim")
	}
	if attempts != c.attempts {
		t.Errorf("took %d attempts, want %d", attempts, c.attempts)
	}
	if intactAt != 0 && !intactBetween {
		t.Errorf("the original was not intact before attempt 2 (at %s)", intactAt)
	}
	if !slices.ContainsFunc(strings.Split(c.wantLog, " | "), f.logs.Contains) {
		t.Errorf("log lacks %q", c.wantLog)
	}
	for i, g := range f.each() {
		g.assertSwapped()
		g.assertNoLoss(ws[i], done, true)
	}
	return writes
}

// neverInSync runs algo with cfg under a load of two writers and a sentinel that always fails
// (counting its calls in calls, if set). It checks the cut-over gave up after attempts attempts
// with an error wrapping the sentinel's, the original intact and no acknowledged write lost. It
// returns the writes and the cut-over's error.
func (f *fixture) neverInSync(algo algoRunner, cfg Config, attempts int, calls *atomic.Int32) ([]loadgen.Write, error) {
	t := f.t
	t.Helper()
	s := sentinelFunc(func(context.Context) error {
		if calls != nil {
			calls.Add(1)
		}
		return errors.New("never in sync")
	})
	l := f.startLoad(2)
	err := algo.run(context.Background(), cfg, s)
	writes := finish(l)
	if err == nil || !strings.Contains(err.Error(), "never in sync") || !strings.Contains(err.Error(), fmt.Sprintf("%d attempt", attempts)) {
		t.Fatalf("got %v, want an error after %d attempts wrapping the sentinel's", err, attempts)
	}
	f.assertIntact()
	f.assertNoLoss(writes, time.Time{}, false)
	return writes, err
}

// outageErrors counts writes that failed because the table was missing (error 1146).
func outageErrors(writes []loadgen.Write) (n int, first, last time.Time) {
	return loadgen.Failures(writes, 1146)
}

func assertNoOutage(t *testing.T, writes []loadgen.Write) {
	t.Helper()
	if n, first, last := outageErrors(writes); n > 0 {
		t.Fatalf("the cut-over showed an outage: %d writes failed with error 1146 over %s", n, last.Sub(first))
	}
}

// logOutage reports the outage seen by the writers (error 1146) and returns its span.
func logOutage(t *testing.T, writes []loadgen.Write) time.Duration {
	t.Helper()
	n, first, last := outageErrors(writes)
	span := last.Sub(first)
	t.Logf("two-step outage seen by writers: %d writes failed with error 1146, first to last %s", n, span)
	return span
}
