package throttle

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a Clock tests move by hand; After moves it by the wait at once.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.waits = append(c.waits, d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func check(t *testing.T, r Rule, wantThrottled bool, wantReason string) {
	t.Helper()
	throttled, reason := r.Check(context.Background())
	if throttled != wantThrottled || reason != wantReason {
		t.Errorf("Check = (%v, %q), want (%v, %q)", throttled, reason, wantThrottled, wantReason)
	}
}

func TestParseLoad(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{"", "", ""},
		{"Threads_running=25", "Threads_running=25", ""},
		{"Threads_running=25,Threads_connected=500", "Threads_running=25,Threads_connected=500", ""},
		{" Threads_running = 25 ", "Threads_running=25", ""},
		{"Threads_running", "", `load condition "Threads_running" is not Var=N`},
		{"Threads_running=25,", "", `load condition "" is not Var=N`},
		{"=25", "", `load condition "=25" has no status variable`},
		{"Threads_running=lots", "", `load condition "Threads_running=lots": "lots" is not a whole number`},
		{"Threads_running=2.5", "", `"2.5" is not a whole number`},
		{"a=1=2", "", `load condition "a=1=2" is not Var=N`},
	} {
		l, err := ParseLoad(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseLoad(%q) error %v, want %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("ParseLoad(%q): %v", c.in, err)
		case c.err == "" && l.String() != c.want:
			t.Errorf("ParseLoad(%q) = %q, want %q", c.in, l.String(), c.want)
		}
	}
	l, _ := ParseLoad("Threads_running=25,Threads_connected=500")
	if got := strings.Join(l.Names(), " "); got != "Threads_running Threads_connected" {
		t.Errorf("Names = %q", got)
	}
}

func TestMaxLoadRule(t *testing.T) {
	var s Sample[StatusValues]
	l, _ := ParseLoad("Threads_running=25,Threads_connected=500")
	rule := MaxLoad(func() Load { return l }, &s)
	check(t, rule, false, "") // nothing read yet
	s.Store(StatusValues{Values: map[string]int64{"threads_running": 24, "threads_connected": 10}})
	check(t, rule, false, "")
	s.Store(StatusValues{Values: map[string]int64{"threads_running": 30, "threads_connected": 10}})
	check(t, rule, true, "max-load Threads_running=30 >= 25")
	s.Store(StatusValues{Values: map[string]int64{"threads_running": 1, "threads_connected": 500}})
	check(t, rule, true, "max-load Threads_connected=500 >= 500")
	s.Store(StatusValues{Values: map[string]int64{"threads_running": 1}})
	check(t, rule, true, "max-load Threads_connected: no such status variable")
	s.Store(StatusValues{Err: errors.New("connection refused")})
	check(t, rule, true, "max-load: connection refused")
	l = nil // the operator cleared --max-load
	check(t, rule, false, "")
}

func TestHeartbeatLag(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 1, 500_000_000, time.UTC)
	// (a value that is not a time is refused where it is read: changelog.TestParseHeartbeat)
	if lag := HeartbeatLag(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC), now); lag != 1500*time.Millisecond {
		t.Errorf("HeartbeatLag = %v; want 1.5s", lag)
	}
	if lag := HeartbeatLag(now.Add(time.Second), now); lag != 0 {
		t.Errorf("a heartbeat from the future lags %v, want 0", lag)
	}
	for d, want := range map[time.Duration]string{
		1500 * time.Millisecond: "1.5s", 2483 * time.Millisecond: "2.48s", 3 * time.Second: "3s", 120 * time.Millisecond: "120ms",
	} {
		if got := FormatLag(d); got != want {
			t.Errorf("FormatLag(%v) = %q, want %q", d, got, want)
		}
	}
	if LagCheckInterval(500*time.Millisecond, 100*time.Millisecond) != 100*time.Millisecond ||
		LagCheckInterval(1500*time.Millisecond, 100*time.Millisecond) != time.Second {
		t.Error("LagCheckInterval is not gh-ost's (the heartbeat interval under a 1s limit, 1s otherwise)")
	}
}

func TestMaxLagRule(t *testing.T) {
	var inspected Sample[Lag]
	var replicas Sample[[]Lag]
	limit := 1000 * time.Millisecond
	rule := MaxLag(func() time.Duration { return limit }, &inspected, &replicas)
	check(t, rule, false, "") // nothing read yet
	inspected.Store(Lag{Host: "db1:3306", Lag: 200 * time.Millisecond})
	check(t, rule, false, "")
	inspected.Store(Lag{Host: "db1:3306", Lag: 1500 * time.Millisecond})
	check(t, rule, true, "lag=1.5s")
	limit = 2 * time.Second // the operator raised --max-lag-millis
	check(t, rule, false, "")
	replicas.Store([]Lag{{Host: "db2:3306", Lag: 3 * time.Second}, {Host: "db3:3306", Lag: 2500 * time.Millisecond}})
	check(t, rule, true, "db2:3306 replica-lag=3s")
	replicas.Store([]Lag{{Host: "db2:3306", Lag: time.Second}, {Host: "db3:3306", Err: errors.New("no heartbeat yet")}})
	check(t, rule, true, "db3:3306 replica-lag unknown: no heartbeat yet")
	replicas.Store([]Lag{{Host: "db2:3306", Lag: time.Second}, {Host: "db3:3306", Lag: 2 * time.Second}})
	check(t, rule, false, "") // at the limit is not above it
	inspected.Store(Lag{Host: "db1:3306", Err: errors.New("timeout")})
	check(t, rule, true, "lag unknown: timeout")
}

func TestFlagFileRule(t *testing.T) {
	path := filepath.Join(t.TempDir(), "throttle")
	rule := FlagFile(func() string { return path })
	check(t, rule, false, "")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	check(t, rule, true, "flag-file "+path)
	check(t, FlagFile(func() string { return "" }), false, "")
}

func TestQueryAndHTTPVerdicts(t *testing.T) {
	for _, c := range []struct {
		got  Verdict
		want Verdict
	}{
		{QueryVerdict(0, nil), Verdict{}},
		{QueryVerdict(3, nil), Verdict{true, "throttle-query"}},
		{QueryVerdict(0, errors.New("syntax")), Verdict{true, "throttle-query failed: syntax"}},
		{HTTPVerdict("http://f/x", 200, nil, false), Verdict{}},
		{HTTPVerdict("http://f/x", 429, nil, false), Verdict{true, "throttle-http http://f/x returned 429"}},
		{HTTPVerdict("http://f/x", 429, nil, true), Verdict{true, "throttle-http http://f/x returned 429"}},
		{HTTPVerdict("http://f/x", 0, errors.New("refused"), false), Verdict{true, "throttle-http http://f/x: refused"}},
		{HTTPVerdict("http://f/x", 0, errors.New("refused"), true), Verdict{}},
	} {
		if c.got != c.want {
			t.Errorf("verdict %+v, want %+v", c.got, c.want)
		}
	}
	for s, ok := range map[string]bool{"": true, "http://freno:9777/check/gh-ost/mysql/main": true, "https://x/y": true,
		"freno:9777/check": false, "ftp://x/y": false, "http://": false} {
		if err := ParseHTTPURL(s); (err == nil) != ok {
			t.Errorf("ParseHTTPURL(%q) = %v, want ok=%v", s, err, ok)
		}
	}
}

func TestHTTPStatus(t *testing.T) {
	status := http.StatusTooManyRequests
	var method, agent string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method, agent = r.Method, r.UserAgent()
		w.WriteHeader(status)
	}))
	defer srv.Close()
	client := NewHTTPClient(time.Second)
	got, err := HTTPStatus(context.Background(), client, srv.URL)
	if err != nil || got != status {
		t.Fatalf("HTTPStatus = %d, %v; want %d", got, err, status)
	}
	if method != http.MethodHead || !strings.Contains(agent, "go-ghostlite") {
		t.Errorf("request %s with User-Agent %q, want HEAD naming go-ghostlite", method, agent)
	}
	srv.Close()
	if _, err := HTTPStatus(context.Background(), client, srv.URL); err == nil {
		t.Error("HTTPStatus of a closed server succeeded")
	}
}

func criticalLoad(t *testing.T, clock *fakeClock, load string, reads ...map[string]int64) *CriticalLoad {
	t.Helper()
	l, err := ParseLoad(load)
	if err != nil {
		t.Fatal(err)
	}
	return &CriticalLoad{
		Thresholds: func() Load { return l },
		Read: func(context.Context) (map[string]int64, error) {
			if len(reads) == 0 {
				t.Fatal("an unexpected re-read")
			}
			v := reads[0]
			reads = reads[1:]
			return v, nil
		},
		Clock: clock,
	}
}

func TestCriticalLoad(t *testing.T) {
	high := StatusValues{Values: map[string]int64{"threads_running": 80}}
	low := map[string]int64{"threads_running": 3}

	t.Run("aborts at once", func(t *testing.T) {
		c := criticalLoad(t, newFakeClock(), "Threads_running=50")
		if err := c.Evaluate(context.Background(), StatusValues{Values: low}); err != nil {
			t.Fatalf("below the threshold: %v", err)
		}
		err := c.Evaluate(context.Background(), high)
		if !errors.Is(err, ErrCriticalLoad) || err.Error() != "critical-load met: Threads_running=80 >= 50" {
			t.Fatalf("Evaluate = %v", err)
		}
	})
	t.Run("re-checks once before aborting", func(t *testing.T) {
		clock := newFakeClock()
		c := criticalLoad(t, clock, "Threads_running=50", low, map[string]int64{"threads_running": 60})
		c.Recheck = 2 * time.Second
		if err := c.Evaluate(context.Background(), high); err != nil {
			t.Fatalf("met once, gone at the re-check: %v", err)
		}
		err := c.Evaluate(context.Background(), high)
		if !errors.Is(err, ErrCriticalLoad) || err.Error() != "critical-load met again after 2s: Threads_running=60 >= 50 (first Threads_running=80 >= 50)" {
			t.Fatalf("Evaluate = %v", err)
		}
		if len(clock.waits) != 2 || clock.waits[0] != 2*time.Second {
			t.Errorf("waits %v, want 2s before each re-check", clock.waits)
		}
	})
	t.Run("hibernates instead of aborting", func(t *testing.T) {
		clock := newFakeClock()
		c := criticalLoad(t, clock, "Threads_running=50")
		c.Hibernate = 30 * time.Second
		check(t, c, false, "")
		if err := c.Evaluate(context.Background(), high); err != nil {
			t.Fatalf("Evaluate while hibernation is set: %v", err)
		}
		check(t, c, true, "critical-load-hibernate until 12:00:30")
		if !c.Hibernating() {
			t.Fatal("not hibernating")
		}
		clock.Advance(29 * time.Second)
		if err := c.Evaluate(context.Background(), high); err != nil || !c.Hibernating() {
			t.Fatalf("a reading during the hibernation: %v (hibernating %v)", err, c.Hibernating())
		}
		clock.Advance(time.Second)
		check(t, c, false, "")
		if err := c.Evaluate(context.Background(), high); err != nil || !c.Hibernating() {
			t.Fatalf("met again after the hibernation: %v, hibernating %v (want a new hibernation)", err, c.Hibernating())
		}
		check(t, c, true, "critical-load-hibernate until 12:01:00")
	})
	t.Run("a reading it cannot judge throttles", func(t *testing.T) {
		c := criticalLoad(t, newFakeClock(), "Threads_running=50,Nope=1")
		if err := c.Evaluate(context.Background(), StatusValues{Values: low}); err != nil {
			t.Fatal(err)
		}
		check(t, c, true, "critical-load Nope: no such status variable")
		if err := c.Evaluate(context.Background(), StatusValues{Err: errors.New("gone away")}); err != nil {
			t.Fatal(err)
		}
		check(t, c, true, "critical-load: gone away")
	})
	t.Run("none set", func(t *testing.T) {
		c := criticalLoad(t, newFakeClock(), "")
		if err := c.Evaluate(context.Background(), high); err != nil {
			t.Fatal(err)
		}
		check(t, c, false, "")
	})
}

func TestNiceRatio(t *testing.T) {
	clock := newFakeClock()
	ratio := 0.5
	n := Nice{Ratio: func() float64 { return ratio }, Clock: clock}
	if err := n.Rest(context.Background(), 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ratio = 0
	if err := n.Rest(context.Background(), 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if len(clock.waits) != 1 || clock.waits[0] != 50*time.Millisecond {
		t.Errorf("rests %v, want one of 50ms (0.5 × 100ms) and none at ratio 0", clock.waits)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (Nice{Ratio: func() float64 { return 1 }}).Rest(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Rest with an ended context = %v", err)
	}
	for in, want := range map[float64]float64{-1: 0, 0.5: 0.5, 100: 100, 250: 100} {
		if got := ClampNiceRatio(in); got != want {
			t.Errorf("ClampNiceRatio(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestPollAndSampled(t *testing.T) {
	var s Sample[Verdict]
	rule := Sampled(&s)
	check(t, rule, false, "")
	ctx, cancel := context.WithCancel(context.Background())
	reads := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		Poll(ctx, func() time.Duration { return time.Millisecond }, &s, func(context.Context) Verdict {
			reads++
			if reads == 3 {
				cancel()
			}
			return Verdict{Throttled: true, Reason: "throttle-query"}
		})
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Poll did not end with its context")
	}
	if reads != 3 {
		t.Errorf("%d reads, want 3 (until the context ended)", reads)
	}
	check(t, rule, true, "throttle-query") // the readings before the end were kept
}
