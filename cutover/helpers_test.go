package cutover

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-sql-driver/mysql"
	"github.com/rs/zerolog"
)

const testDB = "gl_cutover_algos" // shared sandbox: this package works only here

// fixture is one test's tables: tbl with seed rows, and a ghost marked by an extra column.
type fixture struct {
	t      *testing.T
	db     *sql.DB // pool for the cut-over
	admin  *sql.DB // pool for the test's own checks and kills
	tables Tables
	logs   *syncBuffer
	// sentinelAt is when the last successful sentinel returned (unix ns): a write that starts
	// after it and lands in old would be lost by the real tool (the applier has stopped).
	sentinelAt atomic.Int64
}

// track wraps s to record when it last succeeded.
func (f *fixture) track(s Sentinel) Sentinel {
	return sentinelFunc(func(ctx context.Context) error {
		err := s.Await(ctx)
		if err == nil {
			f.sentinelAt.Store(time.Now().UnixNano())
		}
		return err
	})
}

// noop is a tracked sentinel that proves nothing (the tests' ghost receives no copies).
func (f *fixture) noop() Sentinel { return f.track(noopSentinel()) }

func newFixture(t *testing.T, name string) *fixture {
	t.Helper()
	db := testenv.Database(t, testDB)
	admin := testenv.Open(t, testenv.PrimaryConfig(), testDB)
	f := &fixture{t: t, db: db, admin: admin, logs: &syncBuffer{},
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

func (f *fixture) q(name string) string { return table.Qualify(testDB, name) }

// config is a fast configuration for tests.
func (f *fixture) config(retries int, hook func(context.Context, Step, HookInfo) error) Config {
	return Config{
		DB: f.db, Tables: f.tables, LockTimeout: time.Second, Retries: retries,
		Logger:       zerolog.New(f.logs).Level(zerolog.DebugLevel).With().Timestamp().Logger(),
		RetryBackoff: 100 * time.Millisecond,
		Hooks:        Hooks{BeforeStep: hook},
	}
}

// exists lists which of the names exist now.
func (f *fixture) exists() (orig, old, ghost bool) {
	st, err := readState(context.Background(), f.admin, f.tables, "")
	if err != nil {
		f.t.Fatal(err)
	}
	return st.original.exists, st.old.exists, st.ghost.exists
}

func (f *fixture) hasMarker(name string) bool {
	var n int
	err := f.admin.QueryRow(`SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = 'marker'`,
		testDB, name).Scan(&n)
	if err != nil {
		f.t.Fatal(err)
	}
	return n == 1
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

func (f *fixture) ids(name string) map[int64]bool {
	rows, err := f.admin.Query("SELECT id FROM " + f.q(name))
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			f.t.Fatal(err)
		}
		out[id] = true
	}
	return out
}

// killAndWait kills one of the cut-over's own sessions (by the id the hook received) and waits
// until the processlist no longer shows it.
func (f *fixture) killAndWait(ctx context.Context, id int64) error {
	if id == 0 {
		return errors.New("no connection id")
	}
	if _, err := f.admin.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", id)); err != nil {
		return err
	}
	return f.waitFor(ctx, func() (bool, error) {
		var n int
		err := f.admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", id).Scan(&n)
		return n == 0, err
	})
}

func (f *fixture) waitFor(ctx context.Context, cond func() (bool, error)) error {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		time.Sleep(2 * time.Millisecond)
	}
	return errors.New("condition not reached within 5s")
}

// ack is one INSERT a writer attempted: ok means the server acknowledged it.
type ack struct {
	id         int64
	start, end time.Time
	ok         bool
	err        string
}

// load is a set of writers INSERTing unique ids into the original's name in a loop.
type load struct {
	stop   context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	writes []ack
}

func (f *fixture) startLoad(writers int) *load {
	f.t.Helper()
	pool := testenv.Open(f.t, testenv.PrimaryConfig(), testDB)
	pool.SetMaxOpenConns(writers)
	ctx, cancel := context.WithCancel(context.Background())
	l := &load{stop: cancel}
	stmt := fmt.Sprintf("INSERT INTO %s (id, w) VALUES (?, ?)", f.q(f.tables.Original))
	for w := 1; w <= writers; w++ {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for seq := int64(1); ctx.Err() == nil; seq++ {
				a := ack{id: int64(w)*1_000_000 + seq, start: time.Now()}
				wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
				_, err := pool.ExecContext(wctx, stmt, a.id, w)
				wcancel()
				a.end = time.Now()
				a.ok = err == nil
				if err != nil {
					if ctx.Err() != nil {
						return // stopped mid-statement: outcome unknown, not acknowledged
					}
					a.err = errText(err)
				}
				l.mu.Lock()
				l.writes = append(l.writes, a)
				l.mu.Unlock()
				time.Sleep(time.Millisecond)
			}
		}()
	}
	// Let the load run before the cut-over starts.
	for l.count() < 50 {
		time.Sleep(5 * time.Millisecond)
	}
	return l
}

func errText(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return fmt.Sprintf("error %d", me.Number)
	}
	return err.Error()
}

func (l *load) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.writes)
}

// finish stops the writers and returns every attempted write.
func (l *load) finish() []ack {
	l.stop()
	l.wg.Wait()
	return l.writes
}

// maxStall is the longest INSERT (acknowledged or not) that overlapped [from, to].
func maxStall(writes []ack, from, to time.Time) time.Duration {
	var m time.Duration
	for _, a := range writes {
		if a.end.After(from) && a.start.Before(to) && a.end.Sub(a.start) > m {
			m = a.end.Sub(a.start)
		}
	}
	return m
}

// assertNoLoss checks every acknowledged write is in old ∪ tbl, that writes issued after the
// cut-over returned are in the new tbl, never in old, and that no write issued after the last
// sentinel is in old (the real tool's ghost would miss it). It returns how many acked writes
// are in each.
func (f *fixture) assertNoLoss(writes []ack, swappedAt time.Time, swapped bool) (inOld, inNew int) {
	f.t.Helper()
	cur := f.ids(f.tables.Original)
	var old map[int64]bool
	if swapped {
		old = f.ids(f.tables.Old)
	}
	errs := map[string]int{}
	var lost []int64
	for _, a := range writes {
		if !a.ok {
			errs[a.err]++
			continue
		}
		switch {
		case old[a.id] && f.sentinelAt.Load() != 0 && a.start.UnixNano() > f.sentinelAt.Load():
			f.t.Errorf("write %d issued after the sentinel landed in %s: the ghost would miss it", a.id, f.tables.Old)
		case old[a.id] && !swappedAt.IsZero() && a.start.After(swappedAt):
			f.t.Errorf("write %d issued after the cut-over returned landed in %s", a.id, f.tables.Old)
		case old[a.id]:
			inOld++
		case cur[a.id]:
			inNew++
		default:
			lost = append(lost, a.id)
		}
	}
	sort.Slice(lost, func(i, j int) bool { return lost[i] < lost[j] })
	if len(lost) > 0 {
		f.t.Fatalf("%d acknowledged writes lost, first %v", len(lost), lost[:min(len(lost), 10)])
	}
	f.t.Logf("writes: %d acknowledged (%d in old, %d in %s), failures %v", inOld+inNew, inOld, inNew, f.tables.Original, errs)
	return inOld, inNew
}

// syncBuffer is a bytes.Buffer safe for concurrent use (the log sink).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) contains(sub string) bool { return strings.Contains(s.String(), sub) }

// sentinelFunc adapts a function to Sentinel.
type sentinelFunc func(ctx context.Context) error

func (s sentinelFunc) Await(ctx context.Context) error { return s(ctx) }

func noopSentinel() Sentinel { return sentinelFunc(func(context.Context) error { return nil }) }
