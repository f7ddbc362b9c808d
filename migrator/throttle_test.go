package migrator

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/status"
	"github.com/go-ghostlite/go-ghostlite/throttle"
)

const throttleDB = "glr_throttle"

// TestThrottleKnobs: the throttle's settings are among the levers, read from the configuration
// (throttle.TestMonitorKnobs checks how they parse).
func TestThrottleKnobs(t *testing.T) {
	cfg := config.Default()
	cfg.Database, cfg.Table, cfg.Alter = "d", "t", "ADD COLUMN c INT"
	cfg.MaxLoad, cfg.ThrottleControlReplicas = "Threads_running=25", "r1"
	m := mustNew(t, cfg)
	for name, want := range map[string]string{
		"max-lag-millis": "1500", "max-load": "Threads_running=25", "critical-load": "", "nice-ratio": "0",
		"throttle-query": "", "throttle-http": "", "throttle-control-replicas": "r1:3306",
	} {
		if got, err := m.Get(name); err != nil || got != want {
			t.Errorf("Get(%s) = %q, %v; want %q (from the configuration)", name, got, err, want)
		}
	}
}

// throttledRun starts a migration of throttleDB.tbl (rows rows, chunks of chunk rows) whose
// chunks are counted; configure adjusts the configuration and the seams.
func throttledRun(t *testing.T, tbl string, rows, chunk int, configure func(*config.Config, *seams)) (*Migrator, <-chan error, *atomic.Int64, *sql.DB) {
	t.Helper()
	db := testenv.Database(t, throttleDB)
	testenv.Exec(t, db, "DROP TABLE IF EXISTS "+tbl, "CREATE TABLE "+tbl+" (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO "+tbl+" SELECT seq, seq FROM seq_1_to_"+strconv.Itoa(rows))
	cfg := configtest.Config(t, throttleDB, tbl, "ADD COLUMN c INT NULL", nil)
	cfg.ChunkSize = chunk
	cfg.ThrottleAdditionalFlagFile = filepath.Join(t.TempDir(), "gh-ost.throttle") // not the machine's shared one
	var chunks atomic.Int64
	s := seams{beforeChunk: func(context.Context, int64) error { chunks.Add(1); return nil }}
	configure(&cfg, &s)
	if cfg.Conn.Port == testenv.ReplicaConfig().Port {
		testenv.WaitReplica(t) // the table must be there before the run inspects the replica
	}
	m := newWithSeams(t, cfg, s)
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	return m, done, &chunks, db
}

// waitThrottled waits until the copy is throttled for a reason that reason accepts, and returns
// the status then.
func waitThrottled(t *testing.T, m *Migrator, done <-chan error, what string, reason func(string) bool) status.Status {
	t.Helper()
	var st status.Status
	testenv.WaitFor(t, 60*time.Second, 10*time.Millisecond, what, func() (bool, error) {
		select {
		case err := <-done:
			return false, errors.New("the run ended: " + errString(err))
		default:
		}
		st = m.Status()
		return st.Phase == status.PhaseCopy && st.Throttled && reason(st.ThrottleReason), nil
	})
	return st
}

func errString(err error) string {
	if err == nil {
		return "success"
	}
	return err.Error()
}

// assertCopyHeld checks that no chunk is copied for a while.
func assertCopyHeld(t *testing.T, chunks *atomic.Int64, why string) {
	t.Helper()
	before := chunks.Load()
	time.Sleep(300 * time.Millisecond)
	if n := chunks.Load(); n != before {
		t.Fatalf("%d chunks copied while throttled (%s)", n-before, why)
	}
}

// TestThrottleSignalsOnARun: on a real migration the copy waits while the throttle flag file
// exists, then while --max-load is reached, then while --throttle-query says so; the status gives
// each reason as gh-ost words it; the binlog applier keeps applying meanwhile; the knobs release
// the copy and every row arrives.
func TestThrottleSignalsOnARun(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "throttle")
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m, done, chunks, db := throttledRun(t, "s", 3000, 100, func(c *config.Config, _ *seams) {
		c.ThrottleFlagFile = flag
		c.MaxLoad = "Threads_connected=1" // always reached: this run's own connections count
	})
	waitThrottled(t, m, done, "throttled by the flag file", func(r string) bool { return r == "flag-file "+flag })
	assertCopyHeld(t, chunks, "flag file")
	if n := chunks.Load(); n != 0 {
		t.Fatalf("%d chunks copied before the first throttle check", n)
	}
	applied := m.Status().EventsApplied
	testenv.Exec(t, db, "INSERT INTO s SELECT seq, seq FROM seq_3001_to_3010", "UPDATE s SET v = v + 1 WHERE id <= 5")
	testenv.WaitFor(t, 30*time.Second, 10*time.Millisecond, "the applier applying while the copy is throttled", func() (bool, error) {
		return m.Status().EventsApplied >= applied+15, nil
	})

	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	st := waitThrottled(t, m, done, "throttled by max-load", func(r string) bool {
		return strings.HasPrefix(r, "max-load Threads_connected=") && strings.HasSuffix(r, " >= 1")
	})
	if !strings.Contains(st.Line(), "State: throttled, "+st.ThrottleReason+";") {
		t.Errorf("status line %q lacks the throttle reason", st.Line())
	}
	assertCopyHeld(t, chunks, "max-load")

	// The query is read every second: max-load lets go only once it has been read, or the copy
	// could run to its end in between.
	if err := m.Set("throttle-query", "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, 10*time.Millisecond, "the throttle query read", func() (bool, error) {
		v, _ := m.levers.monitor.QueryVerdict()
		return v.Throttled, nil
	})
	if err := m.Set("max-load", ""); err != nil {
		t.Fatal(err)
	}
	waitThrottled(t, m, done, "throttled by the throttle query", func(r string) bool { return r == "throttle-query" })
	assertCopyHeld(t, chunks, "throttle-query")

	if err := m.Set("throttle-query", "SELECT 0"); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 2*time.Minute); err != nil {
		t.Fatalf("migration: %v", err)
	}
	if n := testenv.CountRows(t, db, throttleDB, "s"); n != 3010 {
		t.Errorf("%d rows after the migration, want 3010", n)
	}
	if !testenv.HasColumn(t, db, throttleDB, "s", "c") {
		t.Error("the migrated table lacks the new column")
	}
}

// TestThrottleOnReplicaLag: lag read from the migration's heartbeat on a replica, for real: with
// the replica's SQL thread stopped the heartbeat there ages, the copy is throttled with a lag
// reason, and it resumes when the SQL thread starts again. Once as a control replica, once as the
// inspected server (gh-ost's default when no control replica is given).
func TestThrottleOnReplicaLag(t *testing.T) {
	testenv.Serial(t) // it stops the replica's SQL thread
	replicaAddr := testenv.ReplicaConfig().Addr()
	for _, c := range []struct {
		name      string
		configure func(*config.Config)
		reason    func(string) bool
	}{
		{"control replica", func(c *config.Config) { c.ThrottleControlReplicas = replicaAddr }, func(r string) bool {
			return strings.HasPrefix(r, replicaAddr+" replica-lag=")
		}},
		{"inspected replica", func(c *config.Config) { c.Conn, c.AllowOnMaster = testenv.ReplicaConfig(), false }, func(r string) bool {
			return strings.HasPrefix(r, "lag=")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			replica := testenv.Open(t, testenv.ReplicaConfig(), "")
			f := testenv.Flavor(t)
			t.Cleanup(func() { _, _ = replica.Exec(f.StartReplicaSQL() + " SQL_THREAD") })
			var stopped atomic.Bool
			m, done, chunks, db := throttledRun(t, "l", 20000, 10, func(cfg *config.Config, s *seams) {
				cfg.MaxLag = 500 * time.Millisecond
				c.configure(cfg)
				count := s.beforeChunk
				s.beforeChunk = func(ctx context.Context, n int64) error {
					if n == 3 && !stopped.Swap(true) {
						// The replica must hold the changelog's heartbeat before its SQL thread stops:
						// without it the lag cannot be read at all (a "lag unknown" reason, seen when
						// the replica was behind the migration's start).
						if err := heartbeatReplicated(ctx, replica, "_l_ghc"); err != nil {
							return err
						}
						if _, err := replica.ExecContext(ctx, f.StopReplicaSQL()+" SQL_THREAD"); err != nil {
							return err
						}
					}
					if stopped.Load() {
						// Pace the copy once the lag starts to grow: unpaced, a fast machine copies
						// the rest before the heartbeat there is 500 ms old, and nothing is held.
						time.Sleep(5 * time.Millisecond)
					}
					return count(ctx, n)
				}
			})
			st := waitThrottled(t, m, done, "throttled by the replica's lag", c.reason)
			if st.CopyDone || st.RowsCopied >= 20000 {
				t.Fatalf("status while throttled: %+v", st)
			}
			lag, err := time.ParseDuration(st.ThrottleReason[strings.Index(st.ThrottleReason, "lag=")+4:])
			if err != nil || lag < 500*time.Millisecond { // printed to the millisecond: 500.4ms reads 500ms
				t.Errorf("reason %q: lag %v (%v), want at the 500ms limit or above", st.ThrottleReason, lag, err)
			}
			assertCopyHeld(t, chunks, "replica lag")
			held := chunks.Load()
			// The rest of the copy in larger chunks, as an operator would (chunk-size=): the paced
			// 10-row chunks of ~18,000 rows took most of the test's time.
			if err := m.Set("chunk-size", "2000"); err != nil {
				t.Fatal(err)
			}
			testenv.Exec(t, replica, f.StartReplicaSQL()+" SQL_THREAD")
			if err := testenv.WaitResult(t, done, 2*time.Minute); err != nil {
				t.Fatalf("migration: %v", err)
			}
			if chunks.Load() <= held {
				t.Error("no chunk copied after the SQL thread started again")
			}
			if n := testenv.CountRows(t, db, throttleDB, "l"); n != 20000 {
				t.Errorf("%d rows after the migration, want 20000", n)
			}
		})
	}
}

// TestCriticalLoadAbortsARun: a --critical-load that is always met, re-checked once after
// --critical-load-interval-millis, aborts the migration; the original keeps its rows and its
// definition and the helper tables are gone.
func TestCriticalLoadAbortsARun(t *testing.T) {
	held := filepath.Join(t.TempDir(), "throttle")
	if err := os.WriteFile(held, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m, done, _, db := throttledRun(t, "k", 500, 100, func(c *config.Config, _ *seams) {
		c.CriticalLoad = "Threads_connected=1"
		c.CriticalLoadInterval = 50 * time.Millisecond
		c.ThrottleFlagFile = held // the copy waits, so it cannot end before the load is judged
	})
	err := waitFailed(t, done, "under a critical load")
	if !errors.Is(err, throttle.ErrCriticalLoad) || !strings.Contains(err.Error(), "critical-load met again after 50ms: Threads_connected=") {
		t.Fatalf("run ended with %v, want the critical load met again after 50ms", err)
	}
	if got := testenv.Columns(t, db, throttleDB, "k"); !slices.Equal(got, []string{"id", "v"}) {
		t.Errorf("original's columns after the abort: %q", got)
	}
	if n := testenv.CountRows(t, db, throttleDB, "k"); n != 500 {
		t.Errorf("%d rows in the original after the abort, want 500", n)
	}
	if left := testenv.Existing(t, db, throttleDB, table.GhostName("k"), table.ChangelogName("k")); left[table.GhostName("k")] || left[table.ChangelogName("k")] {
		t.Errorf("helper tables left after the abort: %v", left)
	}
	if st := m.Status(); st.Phase != status.PhaseFailed {
		t.Errorf("phase after the abort: %s", st.Phase)
	}
}

// TestCopyDoesNotWaitForTheFirstHeartbeat: a heartbeat is written before the lag is first read,
// so a migration's copy never starts throttled by "no heartbeat yet" (it cost every run a second).
func TestCopyDoesNotWaitForTheFirstHeartbeat(t *testing.T) {
	t.Parallel() // a database of its own
	db, schema := testenv.OwnDatabase(t, throttleDB)
	testenv.Exec(t, db, "DROP TABLE IF EXISTS hb", "CREATE TABLE hb (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO hb SELECT seq, seq FROM seq_1_to_100")
	var logs testenv.LogBuffer
	cfg := configtest.Config(t, schema, "hb", "ADD COLUMN c INT NULL", &logs)
	cfg.ThrottleAdditionalFlagFile = filepath.Join(t.TempDir(), "none")
	if err := mustNew(t, cfg).Run(context.Background()); err != nil {
		t.Fatalf("migration: %v", err)
	}
	if logs.Contains("no heartbeat yet") || logs.Contains("copy throttled") {
		t.Errorf("the copy waited for the first heartbeat:\n%s", logs.String())
	}
}

// heartbeatReplicated waits until the replica holds the migration's heartbeat in changelog.
func heartbeatReplicated(ctx context.Context, replica *sql.DB, changelog string) error {
	q := "SELECT COUNT(*) FROM " + throttleDB + "." + changelog + " WHERE hint = 'heartbeat'"
	return testenv.Poll(ctx, 30*time.Second, 10*time.Millisecond, "the heartbeat on the replica", func() (bool, error) {
		var n int
		err := replica.QueryRowContext(ctx, q).Scan(&n)
		return err == nil && n > 0, nil
	})
}

// New refuses the throttle's settings throttle.Config refuses, as usage errors naming the flag,
// before anything is asked of a server.
func TestNewRefusesBadThrottleSettings(t *testing.T) {
	for _, c := range []struct {
		set  func(*config.Config)
		want string
	}{
		{func(c *config.Config) { c.MaxLoad = "Threads_running" }, `--max-load: load condition "Threads_running" is not Var=N`},
		{func(c *config.Config) { c.CriticalLoad = "=5" }, `--critical-load: load condition "=5" has no status variable`},
		{func(c *config.Config) { c.ThrottleControlReplicas = "r1:0" }, "--throttle-control-replicas"},
		{func(c *config.Config) { c.ThrottleHTTP = "freno/check" }, "throttle-http needs a URL with its scheme"},
		{func(c *config.Config) { c.ThrottleHTTPTimeout = 0 }, "must be positive"},
		{func(c *config.Config) { c.CriticalLoadHibernate = -time.Second }, "must not be negative"},
	} {
		cfg := config.Default()
		cfg.Database, cfg.Table, cfg.Alter = "d", "t", "ADD COLUMN c INT"
		c.set(&cfg)
		_, err := New(cfg)
		if !errors.Is(err, config.ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New = %v, want a usage error containing %q", err, c.want)
		}
	}
}
