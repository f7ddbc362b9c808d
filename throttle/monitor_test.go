package throttle

import (
	"github.com/go-ghostlite/go-ghostlite/changelog"

	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// monitorConfig is a valid configuration with gh-ost's defaults where a test does not care.
func monitorConfig() Config {
	return Config{ThrottleSettings: config.ThrottleSettings{MaxLag: 1500 * time.Millisecond,
		ThrottleHTTPInterval: 100 * time.Millisecond, ThrottleHTTPTimeout: time.Second}, HeartbeatInterval: 100 * time.Millisecond}
}

func knob(t *testing.T, m *Monitor, name string) Knob {
	t.Helper()
	for _, k := range m.Knobs() {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no knob %s", name)
	return Knob{}
}

// TestMonitorKnobs: the throttle's settings are knobs by gh-ost's names, parsed and bounded as
// gh-ost parses them; a refused value leaves the setting as it was.
func TestMonitorKnobs(t *testing.T) {
	cfg := monitorConfig()
	cfg.MaxLoad, cfg.ThrottleControlReplicas = "Threads_running=25", "r1"
	m := NewMonitor(cfg)
	for name, want := range map[string]string{
		"max-lag-millis": "1500", "max-load": "Threads_running=25", "critical-load": "", "nice-ratio": "0",
		"throttle-query": "", "throttle-http": "", "throttle-control-replicas": "r1:3306",
	} {
		if got := knob(t, m, name).Get(); got != want {
			t.Errorf("Get(%s) = %q; want %q (from the configuration)", name, got, want)
		}
	}
	for _, c := range []struct {
		name, set, want string
		ok              bool
	}{
		{"max-lag-millis", "2500", "2500", true},
		{"max-lag-millis", "50", "100", true}, // gh-ost's floor
		{"max-lag-millis", "1.5s", "100", false},
		{"max-load", "Threads_running=30,Threads_connected=800", "Threads_running=30,Threads_connected=800", true},
		{"max-load", "Threads_running", "Threads_running=30,Threads_connected=800", false},
		{"max-load", "", "", true},
		{"critical-load", "Threads_running=1000", "Threads_running=1000", true},
		{"critical-load", "Threads_running=x", "Threads_running=1000", false},
		{"nice-ratio", "0.5", "0.5", true},
		{"nice-ratio", "250", "100", true}, // gh-ost's ceiling
		{"nice-ratio", "-1", "0", true},
		{"nice-ratio", "lots", "0", false},
		{"throttle-query", "SELECT COUNT(*) > 10 FROM information_schema.processlist", "SELECT COUNT(*) > 10 FROM information_schema.processlist", true},
		{"throttle-http", "http://freno:9777/check/gh-ost/mysql/main", "http://freno:9777/check/gh-ost/mysql/main", true},
		{"throttle-http", "freno:9777/check", "http://freno:9777/check/gh-ost/mysql/main", false},
		{"throttle-http", "", "", true},
		{"throttle-control-replicas", "r1, r2:3307,[::1]:3308", "r1:3306,r2:3307,[::1]:3308", true},
		{"throttle-control-replicas", "r1:x", "r1:3306,r2:3307,[::1]:3308", false},
		{"throttle-control-replicas", "", "", true},
	} {
		t.Run(c.name+"="+c.set, func(t *testing.T) {
			k := knob(t, m, c.name)
			if err := k.Set(c.set); (err == nil) != c.ok {
				t.Fatalf("Set(%s, %s) = %v, want ok=%v", c.name, c.set, err, c.ok)
			}
			if got := k.Get(); got != c.want {
				t.Fatalf("Get(%s) = %s, want %s", c.name, got, c.want)
			}
		})
	}
}

// TestCopyGateRestsByTheNiceRatio: the copy's gate rests nice-ratio × the asking session's last
// chunk time (the knob's current value) before it asks the throttler; with several copy sessions
// each rests in proportion to its own chunk.
func TestCopyGateRestsByTheNiceRatio(t *testing.T) {
	m := NewMonitor(monitorConfig())
	gate := m.CopyGate()
	timed := func(lastChunk time.Duration) time.Duration {
		began := time.Now()
		if err := gate.Wait(context.Background(), lastChunk); err != nil {
			t.Error(err)
		}
		return time.Since(began)
	}
	if d := timed(100 * time.Millisecond); d >= 50*time.Millisecond {
		t.Errorf("nice-ratio 0: the gate took %s", d)
	}
	if err := knob(t, m, "nice-ratio").Set("1.5"); err != nil {
		t.Fatal(err)
	}
	if d := timed(100 * time.Millisecond); d < 150*time.Millisecond {
		t.Errorf("nice-ratio 1.5 after a 100ms chunk: the gate took %s, want 150ms at least", d)
	}
	// Three sessions at once, after chunks of 40, 80 and 160ms.
	var wg sync.WaitGroup
	took := make([]time.Duration, 3)
	for i := range took {
		wg.Go(func() { took[i] = timed(time.Duration(40<<i) * time.Millisecond) })
	}
	wg.Wait()
	for i, d := range took {
		want := time.Duration(60<<i) * time.Millisecond
		if d < want || d > want+200*time.Millisecond {
			t.Errorf("session %d, nice-ratio 1.5 after a %dms chunk: the gate took %s, want about %s", i, 40<<i, d, want)
		}
	}
}

// TestCopyGateLogsOnceForAllSessions: sessions held by one throttle reason log it once, and the
// release once.
func TestCopyGateLogsOnceForAllSessions(t *testing.T) {
	cfg := monitorConfig()
	var logs testenv.LogBuffer
	cfg.Logger = testenv.Logger(t, &logs)
	m := NewMonitor(cfg)
	gate := m.CopyGate()
	m.Command(true)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := gate.Wait(context.Background(), 0); err != nil {
				t.Error(err)
			}
		})
	}
	testenv.WaitFor(t, 5*time.Second, time.Millisecond, "four sessions held", func() (bool, error) { return gate.held.Load() == 4, nil })
	m.Command(false)
	wg.Wait()
	if n := strings.Count(logs.String(), "copy throttled"); n != 1 {
		t.Errorf("%d 'copy throttled' lines for four sessions held at once, want 1:\n%s", n, logs.String())
	}
	if n := strings.Count(logs.String(), "copy no longer throttled"); n != 1 {
		t.Errorf("%d 'copy no longer throttled' lines, want 1:\n%s", n, logs.String())
	}
}

// runMonitor runs m's loops against the sandbox (the heartbeat as heartbeat gives it for each
// server) until the test ends; the returned channel gives Run's result.
func runMonitor(t *testing.T, m *Monitor, heartbeat func(db *sql.DB) (string, error)) (<-chan error, *sql.DB) {
	t.Helper()
	primary := testenv.Open(t, testenv.PrimaryConfig(), "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	r := Readers{Primary: primary, Inspected: primary, InspectedAddr: testenv.PrimaryConfig().Addr(), Login: testenv.PrimaryConfig(),
		Heartbeat: func(_ context.Context, db *sql.DB) (time.Time, error) {
			v, err := heartbeat(db)
			if err != nil {
				return time.Time{}, err
			}
			return changelog.ParseHeartbeat(v)
		}}
	go func() { done <- m.Run(ctx, r) }()
	t.Cleanup(func() {
		cancel()
		if err := testenv.WaitResult(t, done, 10*time.Second); err != nil {
			t.Errorf("Run after its context ended: %v", err)
		}
	})
	return done, primary
}

// waitReason waits until the rules throttle for a reason accept takes.
func waitReason(t *testing.T, m *Monitor, what string, accept func(string) bool) {
	t.Helper()
	testenv.WaitFor(t, 10*time.Second, 5*time.Millisecond, what, func() (bool, error) {
		m.Refresh(context.Background())
		st := m.State()
		return st.Throttled && accept(st.Reason), nil
	})
}

// TestMonitorRunReadsItsSignals: Run's loops read the primary's global status, the throttle
// query, and the heartbeat on the inspected server and on a control replica (on a pool of its
// own), at the intervals given; each reading throttles with its reason, in gh-ost's order.
func TestMonitorRunReadsItsSignals(t *testing.T) {
	replica := testenv.ReplicaConfig()
	testenv.Open(t, replica, "") // skips without a sandbox
	cfg := monitorConfig()
	cfg.MaxLag, cfg.HeartbeatInterval, cfg.CheckInterval = 500*time.Millisecond, 20*time.Millisecond, 20*time.Millisecond
	cfg.MaxLoad, cfg.ThrottleQuery, cfg.ThrottleControlReplicas = "Threads_connected=1", "SELECT 1", replica.Addr()
	m := NewMonitor(cfg)
	var mu sync.Mutex
	inspectedPool := map[*sql.DB]bool{}
	_, primary := runMonitor(t, m, func(db *sql.DB) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if inspectedPool[db] {
			return time.Now().UTC().Format(time.RFC3339Nano), nil
		}
		return time.Now().Add(-3 * time.Second).UTC().Format(time.RFC3339Nano), nil // the control replica's
	})
	mu.Lock()
	inspectedPool[primary] = true
	mu.Unlock()

	waitReason(t, m, "throttled by max-load", func(r string) bool { return strings.HasPrefix(r, "max-load Threads_connected=") })
	if err := knob(t, m, "max-load").Set(""); err != nil {
		t.Fatal(err)
	}
	waitReason(t, m, "throttled by the throttle query", func(r string) bool { return r == "throttle-query" })
	if v, ok := m.QueryVerdict(); !ok || !v.Throttled {
		t.Errorf("QueryVerdict = %+v, %v", v, ok)
	}
	if err := knob(t, m, "throttle-query").Set(""); err != nil {
		t.Fatal(err)
	}
	waitReason(t, m, "throttled by the control replica's lag", func(r string) bool { return strings.HasPrefix(r, replica.Addr()+" replica-lag=3") })
	if lag, ok := m.InspectedLag(); !ok || lag > time.Second {
		t.Errorf("InspectedLag = %v, %v; want a fresh heartbeat's", lag, ok)
	}
	if err := knob(t, m, "throttle-control-replicas").Set(""); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, 5*time.Millisecond, "no longer throttled", func() (bool, error) {
		m.Refresh(context.Background())
		return !m.State().Throttled, nil
	})
}

// TestMonitorRunInspectedLag: in the replica modes the inspected server's lag is what InspectedLag
// reads, not its heartbeat; a read that fails throttles with its error.
func TestMonitorRunInspectedLag(t *testing.T) {
	cfg := monitorConfig()
	cfg.MaxLag, cfg.HeartbeatInterval = 500*time.Millisecond, 20*time.Millisecond
	m := NewMonitor(cfg)
	primary := testenv.Open(t, testenv.PrimaryConfig(), "")
	var mu sync.Mutex
	lagErr := errors.New("not a replica")
	var readErr error
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- m.Run(ctx, Readers{Primary: primary, Inspected: primary, InspectedAddr: "127.0.0.1:1",
			InspectedLag: func(context.Context) (time.Duration, error) {
				mu.Lock()
				defer mu.Unlock()
				return 2 * time.Second, readErr
			},
			Heartbeat: func(context.Context, *sql.DB) (time.Time, error) {
				return time.Time{}, errors.New("the heartbeat must not be read")
			}})
	}()
	waitReason(t, m, "throttled by the inspected lag", func(r string) bool { return r == "lag=2s" })
	mu.Lock()
	readErr = lagErr
	mu.Unlock()
	waitReason(t, m, "throttled by a failed lag read", func(r string) bool { return r == "lag unknown: not a replica" })
	cancel()
	if err := testenv.WaitResult(t, done, 10*time.Second); err != nil {
		t.Errorf("Run after its context ended: %v", err)
	}
}

// TestMonitorRunEndsOnACriticalLoad: a critical load met, and met again at the re-check, ends Run
// with ErrCriticalLoad; with a hibernation instead, Run goes on and the rules throttle.
func TestMonitorRunEndsOnACriticalLoad(t *testing.T) {
	cfg := monitorConfig()
	cfg.CriticalLoad, cfg.CriticalLoadInterval, cfg.CheckInterval = "Threads_connected=1", 10*time.Millisecond, 10*time.Millisecond
	primary := testenv.Open(t, testenv.PrimaryConfig(), "")
	err := NewMonitor(cfg).Run(context.Background(), Readers{Primary: primary, Inspected: primary,
		Heartbeat: func(context.Context, *sql.DB) (time.Time, error) { return time.Now(), nil }})
	if !errors.Is(err, ErrCriticalLoad) || !strings.Contains(err.Error(), "critical-load met again after 10ms: Threads_connected=") {
		t.Fatalf("Run = %v, want the critical load met again after 10ms", err)
	}

	cfg.CriticalLoadInterval, cfg.CriticalLoadHibernate = 0, time.Hour
	m := NewMonitor(cfg)
	runMonitor(t, m, func(*sql.DB) (string, error) { return time.Now().UTC().Format(time.RFC3339Nano), nil })
	waitReason(t, m, "hibernating", func(r string) bool { return strings.HasPrefix(r, "critical-load-hibernate until ") })
	if !m.Hibernating() {
		t.Error("throttled by a hibernation, but not Hibernating")
	}
}
