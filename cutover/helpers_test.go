package cutover

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/rs/zerolog"
)

const testDB = "gl_cutover_algos" // shared sandbox: this package works only here

// fixture is one test's tables: tbl with seed rows, and a ghost marked by an extra column.
type fixture struct {
	t      *testing.T
	db     *sql.DB // pool for the cut-over
	admin  *sql.DB // pool for the test's own checks and kills
	tables Tables
	logs   *testenv.LogBuffer
	// lockedAt is when the last successful sentinel was called (unix ns), right after C1's LOCK
	// TABLES returned: a write issued after it could only queue behind that lock, and if it lands
	// in old it was served on the original after the sentinel and would be lost by the real tool
	// (its ghost misses it).
	lockedAt atomic.Int64
	// also are the other tables of a set cut over together with this one (newSetFixture): the
	// cut-over's Config.Also, each with its own load and checks.
	also []*fixture
}

// track wraps s to record when the last call that succeeded began.
func (f *fixture) track(s Sentinel) sentinelFunc {
	return sentinelFunc(func(ctx context.Context) error {
		called := time.Now().UnixNano()
		err := s.Await(ctx)
		if err == nil {
			f.lockedAt.Store(called)
			for _, o := range f.also {
				o.lockedAt.Store(called)
			}
		}
		return err
	})
}

// noop is a tracked sentinel that proves nothing (the tests' ghost receives no copies).
func (f *fixture) noop() sentinelFunc { return f.track(noopSentinel()) }

func newFixture(t *testing.T, name string) *fixture {
	t.Helper()
	return newFixtureIn(t, testenv.Database(t, testDB), name)
}

// newFixtureIn is newFixture in the database db already holds (testDB, created once per test).
func newFixtureIn(t *testing.T, db *sql.DB, name string) *fixture {
	t.Helper()
	admin := testenv.Open(t, testenv.PrimaryConfig(), testDB)
	f := &fixture{t: t, db: db, admin: admin, logs: &testenv.LogBuffer{},
		tables: Tables{Schema: testDB, Original: name, Ghost: table.GhostName(name), Old: table.OldName(name, "")}}
	testenv.Exec(t, admin,
		fmt.Sprintf("CREATE TABLE %s (id BIGINT NOT NULL PRIMARY KEY, w INT NOT NULL) ENGINE=InnoDB", f.q(name)),
		fmt.Sprintf("CREATE TABLE %s (id BIGINT NOT NULL PRIMARY KEY, w INT NOT NULL, marker VARCHAR(8) NOT NULL DEFAULT 'ghost') ENGINE=InnoDB", f.q(f.tables.Ghost)),
		fmt.Sprintf("INSERT INTO %s (id, w) WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 100) SELECT n, 0 FROM s", f.q(name)),
	)
	t.Cleanup(func() {
		if t.Failed() || testing.Verbose() {
			t.Logf("cut-over log:\n%s", f.logs.String())
		}
	})
	return f
}

// newSetFixture is a fixture whose table is cut over together with n-1 more (name_b, name_c...),
// each with the same seed rows and a marked ghost.
func newSetFixture(t *testing.T, name string, n int) *fixture {
	t.Helper()
	f := newFixture(t, name)
	for i := 1; i < n; i++ {
		f.also = append(f.also, newFixtureIn(t, f.db, fmt.Sprintf("%s_%c", name, 'a'+i)))
	}
	return f
}

// each is this fixture and the others of its set.
func (f *fixture) each() []*fixture { return append([]*fixture{f}, f.also...) }

func (f *fixture) q(name string) string { return table.Qualify(testDB, name) }

// config is a fast configuration for tests.
func (f *fixture) config(retries int, hook func(context.Context, Step, StepInfo) error) Config {
	return Config{
		DB: f.db, Tables: f.tables, Also: f.alsoTables(), LockTimeout: time.Second, Retries: retries,
		Logger:       zerolog.New(f.logs).Level(zerolog.DebugLevel).With().Timestamp().Logger(),
		RetryBackoff: 100 * time.Millisecond,
		Seams:        TestSeams{BeforeStep: hook},
	}
}

// alsoTables are the Tables of the set's other fixtures (nil for one table).
func (f *fixture) alsoTables() []Tables {
	var ts []Tables
	for _, o := range f.also {
		ts = append(ts, o.tables)
	}
	return ts
}

// startLoads starts writers on every table of the set (startLoad); the first is f's.
func (f *fixture) startLoads(writers int) []*loadgen.Load {
	var ls []*loadgen.Load
	for _, g := range f.each() {
		ls = append(ls, g.startLoad(writers))
	}
	return ls
}

// finishAll stops the set's loads (startLoads) and returns the writes of each, in the same order.
func finishAll(ls []*loadgen.Load) [][]loadgen.Write {
	var ws [][]loadgen.Write
	for _, l := range ls {
		ws = append(ws, finish(l))
	}
	return ws
}

// algorithmNamed is the registered algorithm called name.
func algorithmNamed(t *testing.T, name string) algorithm {
	t.Helper()
	a, err := lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// exists lists which of the names exist now.
//
//nolint:contextcheck // a probe of the test's own, also called from hooks whatever their context
func (f *fixture) exists() (orig, old, ghost bool) {
	st, err := readState(context.Background(), f.admin, f.tables, "")
	if err != nil {
		f.t.Fatal(err)
	}
	return st.original.exists, st.old.exists, st.ghost.exists
}

func (f *fixture) hasMarker(name string) bool {
	f.t.Helper()
	return testenv.HasColumn(f.t, f.admin, testDB, name, "marker")
}

// assertSwapped checks the ghost took the original's name and the original is old.
func (f *fixture) assertSwapped() {
	f.t.Helper()
	orig, old, ghost := f.exists()
	if !orig || !old || ghost {
		f.t.Fatalf("after cut-over: %s=%v %s=%v %s=%v; want true true false", f.tables.Original, orig, f.tables.Old, old, f.tables.Ghost, ghost)
	}
	if !f.hasMarker(f.tables.Original) || f.hasMarker(f.tables.Old) {
		f.t.Fatalf("%s is not the former ghost (or %s is not the original)", f.tables.Original, f.tables.Old)
	}
}

// assertIntact checks the original is in place under its name, untouched, and the ghost too.
func (f *fixture) assertIntact() {
	f.t.Helper()
	orig, old, ghost := f.exists()
	if !orig || old || !ghost {
		f.t.Fatalf("after failed cut-over: %s=%v %s=%v %s=%v; want true false true", f.tables.Original, orig, f.tables.Old, old, f.tables.Ghost, ghost)
	}
	if f.hasMarker(f.tables.Original) || !f.hasMarker(f.tables.Ghost) {
		f.t.Fatalf("%s is not the original any more", f.tables.Original)
	}
	if ids := f.ids(f.tables.Original); !ids[1] || !ids[100] {
		f.t.Fatalf("seed rows missing from %s", f.tables.Original)
	}
}

// ids is the set of ids in the table name.
func (f *fixture) ids(name string) map[int64]bool {
	f.t.Helper()
	out := map[int64]bool{}
	for id := range testenv.Int64s(f.t, f.admin, testDB, name, "id", "id") {
		out[id] = true
	}
	return out
}

// lockTableRead holds LOCK TABLES name READ on a session of its own until unlock is called (at
// cleanup at the latest), as another application's session would.
func (f *fixture) lockTableRead(name string) (unlock func()) {
	f.t.Helper()
	ctx := context.Background()
	conn, err := f.admin.Conn(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(ctx, "LOCK TABLES "+f.q(name)+" READ"); err != nil {
		f.t.Fatal(err)
	}
	return func() {
		if _, err := conn.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
			f.t.Fatal(err)
		}
	}
}

// killAndWait kills one of the cut-over's own sessions (by the id the hook received) and waits
// until the processlist no longer shows it.
func (f *fixture) killAndWait(ctx context.Context, id int64) error {
	return testenv.KillAndWait(ctx, f.admin, id)
}

// waitFor polls cond (from a hook: it fails nothing itself) for at most 5 s.
func (f *fixture) waitFor(ctx context.Context, what string, cond func() (bool, error)) error {
	return testenv.Poll(ctx, 5*time.Second, 2*time.Millisecond, what, cond)
}

// startLoad starts writers INSERTing new ids (1,000,001 up: never a seed row's) into the
// original's name, each writer at most one INSERT a millisecond, and returns once 50 were
// acknowledged. The load is stopped at cleanup if the test does not finish it.
func (f *fixture) startLoad(writers int) *loadgen.Load {
	f.t.Helper()
	pool := testenv.Open(f.t, testenv.PrimaryConfig(), testDB)
	pool.SetMaxOpenConns(writers)
	var next atomic.Int64
	next.Store(1_000_000)
	stmt := fmt.Sprintf("INSERT INTO %s (id, w) VALUES (?, ?)", f.q(f.tables.Original))
	l := loadgen.Start(context.Background(), loadgen.Config{
		DB: pool, Workers: writers, Rate: float64(writers) * 1000, SkipMissed: true, WriteTimeout: 20 * time.Second,
		Ops: []loadgen.Op{func(r *rand.Rand) (string, []any) { return stmt, []any{next.Add(1), r.Intn(1000)} }},
	})
	f.t.Cleanup(func() { l.Stop() })
	// Let the load run before the cut-over starts.
	if !l.WaitAcked(50, 10*time.Second) {
		f.t.Fatalf("the write load did not start: %d writes acknowledged", l.Acked())
	}
	return l
}

// finish stops the writers and returns every attempted write.
func finish(l *loadgen.Load) []loadgen.Write {
	l.Stop()
	return l.Writes()
}

func errText(err error) string {
	if n := loadgen.Errno(err); n != 0 {
		return fmt.Sprintf("error %d", n)
	}
	return err.Error()
}

// maxStall is the longest INSERT (acknowledged or not) that overlapped [from, to].
func maxStall(writes []loadgen.Write, from, to time.Time) time.Duration {
	var m time.Duration
	for _, w := range writes {
		if w.End.After(from) && w.Start.Before(to) && w.Latency() > m {
			m = w.Latency()
		}
	}
	return m
}

// assertNoLoss checks every acknowledged write is in old ∪ tbl, that writes issued after the
// cut-over returned are in the new tbl, never in old, and that no write issued once the original
// was locked for the last successful sentinel is in old (the real tool's ghost would miss it). It returns how many acked writes
// are in each.
func (f *fixture) assertNoLoss(writes []loadgen.Write, swappedAt time.Time, swapped bool) (inOld, inNew int) {
	f.t.Helper()
	cur := f.ids(f.tables.Original)
	var old map[int64]bool
	if swapped {
		old = f.ids(f.tables.Old)
	}
	errs := map[string]int{}
	var lost []int64
	for _, w := range writes {
		if !w.Acked() {
			errs[errText(w.Err)]++
			continue
		}
		id := w.Args[0].(int64)
		switch {
		case old[id] && f.lockedAt.Load() != 0 && w.Start.UnixNano() > f.lockedAt.Load():
			f.t.Errorf("write %d issued once the original was locked for the sentinel landed in %s: the ghost would miss it", id, f.tables.Old)
		case old[id] && !swappedAt.IsZero() && w.Start.After(swappedAt):
			f.t.Errorf("write %d issued after the cut-over returned landed in %s", id, f.tables.Old)
		case old[id]:
			inOld++
		case cur[id]:
			inNew++
		default:
			lost = append(lost, id)
		}
	}
	sort.Slice(lost, func(i, j int) bool { return lost[i] < lost[j] })
	if len(lost) > 0 {
		f.t.Fatalf("%d acknowledged writes lost, first %v", len(lost), lost[:min(len(lost), 10)])
	}
	f.t.Logf("writes: %d acknowledged (%d in old, %d in %s), failures %v", inOld+inNew, inOld, inNew, f.tables.Original, errs)
	return inOld, inNew
}

// sentinelFunc adapts a function to Sentinel, and to LockedSentinel for lock-rename: there is no
// applier to hold, and the function proves the sync on the locking session as well.
type sentinelFunc func(ctx context.Context) error

func (s sentinelFunc) Await(ctx context.Context) error                { return s(ctx) }
func (s sentinelFunc) Hold(context.Context) (func(), error)           { return func() {}, nil }
func (s sentinelFunc) AwaitOn(ctx context.Context, _ *sql.Conn) error { return s(ctx) }

func noopSentinel() sentinelFunc { return sentinelFunc(func(context.Context) error { return nil }) }
