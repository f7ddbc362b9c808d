package migrator

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The ETA follows gh-ost: unknown below 0.1%, from the recent rate, from the whole copy's rate
// while the recent one is zero, due once the copy is done or postponed.
func TestETA(t *testing.T) {
	for _, c := range []struct {
		name string
		st   Status
		want string
	}{
		{"nothing copied", Status{Phase: PhaseCopy, RowsEstimate: 1000}, "N/A"},
		{"below 0.1%", Status{Phase: PhaseCopy, RowsCopied: 9, RowsEstimate: 10000, CopyRate: 100, CopyElapsed: time.Second}, "N/A"},
		{"recent rate", Status{Phase: PhaseCopy, RowsCopied: 1000, RowsEstimate: 11000, CopyRate: 100, CopyElapsed: time.Second}, "1m40s"},
		{"paused: whole copy", Status{Phase: PhaseCopy, RowsCopied: 1000, RowsEstimate: 3000, CopyElapsed: 10 * time.Second}, "20s"},
		{"no estimate", Status{Phase: PhaseCopy, RowsCopied: 1000}, "N/A"},
		{"done", Status{Phase: PhaseCopy, CopyDone: true}, "due"},
		{"postponed", Status{Phase: PhasePostponed, RowsCopied: 10, RowsEstimate: 10}, "due"},
	} {
		if got := c.st.ETAText(); got != c.want {
			t.Errorf("%s: ETA %q, want %q", c.name, got, c.want)
		}
	}
}

// The recent rate is measured over the last rateWindow only.
func TestCopyRate(t *testing.T) {
	var r copyRate
	t0 := time.Unix(1000, 0)
	if got := r.observe(t0, 0); got != 0 {
		t.Errorf("one sample: rate %v", got)
	}
	// The copy's start is the first sample: the first status line, a second in, has the rate.
	var first copyRate
	first.observe(t0, 0)
	if got := first.observe(t0.Add(990*time.Millisecond), 990); got < 999 || got > 1001 {
		t.Errorf("rate %v a little under a second after the start, want 1000 rows/s", got)
	}
	for i := 1; i <= 20; i++ { // 100 rows/s for 20 s
		r.observe(t0.Add(time.Duration(i)*time.Second), int64(i*100))
	}
	for i := 21; i <= 25; i++ { // then nothing for 5 s
		r.observe(t0.Add(time.Duration(i)*time.Second), 2000)
	}
	if got := r.observe(t0.Add(25*time.Second), 2000); got < 49 || got > 51 {
		t.Errorf("rate %v after 5 idle seconds of a 10 s window, want 50 rows/s", got)
	}
	if n := len(r.samples); n > 12 {
		t.Errorf("%d samples kept for a 10 s window of 1 s samples", n)
	}
}

// gh-ost's cadence: every second in the first minute or when due within a minute, then every 5 s
// to three minutes, then every 30 s.
func TestStatusEvery(t *testing.T) {
	for _, c := range []struct {
		st   Status
		want time.Duration
	}{
		{Status{Phase: PhaseCopy, Elapsed: 30 * time.Second}, time.Second},
		{Status{Phase: PhaseCopy, Elapsed: 2 * time.Minute}, 5 * time.Second},
		{Status{Phase: PhaseCopy, Elapsed: time.Hour, RowsCopied: 900, RowsEstimate: 1000, CopyRate: 1}, 5 * time.Second},
		{Status{Phase: PhaseCopy, Elapsed: time.Hour, RowsCopied: 990, RowsEstimate: 1000, CopyRate: 10}, time.Second},
		{Status{Phase: PhaseCopy, Elapsed: time.Hour, RowsCopied: 100, RowsEstimate: 1000, CopyRate: 1}, 30 * time.Second},
		{Status{Phase: PhasePostponed, Elapsed: time.Hour, CopyDone: true}, 30 * time.Second},
	} {
		if got := statusEvery(c.st); got != c.want {
			t.Errorf("%+v: every %s, want %s", c.st, got, c.want)
		}
	}
}

func TestStatusLine(t *testing.T) {
	st := Status{Phase: PhaseCopy, RowsCopied: 1200, RowsEstimate: 20000, EventsApplied: 34, Backlog: 3, Displaced: 2,
		Elapsed: 12400 * time.Millisecond, CopyElapsed: 10 * time.Second, CopyRate: 200, AppliedPos: "log.000003:1234",
		Lag: 100 * time.Millisecond, HeartbeatLag: 120 * time.Millisecond, Throttled: true, ThrottleReason: "commanded by user"}
	// gh-ost's field order, which parsers written for it read: Lag before HeartbeatLag.
	want := "Copy: 1200/20000 6.0%; Applied: 34; Backlog: 3/200; Displaced: 2; Time: 12s(total), 10s(copy); streamer: log.000003:1234; Lag: 0.10s, HeartbeatLag: 0.12s, State: throttled, commanded by user; ETA: 1m34s"
	if got := st.Line(); got != want {
		t.Errorf("status line\n got %q\nwant %q", got, want)
	}
	if got := (Status{Phase: phaseNone, HeartbeatLag: -1, Lag: -1}).Line(); !strings.Contains(got, "streamer: n/a; Lag: n/a, HeartbeatLag: n/a, State: not started; ETA: N/A") {
		t.Errorf("before the run: %q", got)
	}
}

// --exact-rowcount with --concurrent-rowcount: the count runs beside the copy and becomes the
// estimate; the summary line's durations carry their units.
func TestConcurrentRowcount(t *testing.T) {
	db := testenv.Database(t, controlsDB)
	testenv.Exec(t, db, "CREATE TABLE r (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO r SELECT seq, seq FROM seq_1_to_7777")
	var logs testenv.LogBuffer
	cfg := liveConfig(t, controlsDB, "r", "ADD COLUMN c INT NULL", &logs)
	cfg.ExactRowcount = true
	m := mustNew(t, cfg)
	m.Throttle(true) // the copy waits: the count has the time to finish
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	testenv.WaitFor(t, 60*time.Second, 10*time.Millisecond, "the exact count as the estimate", func() (bool, error) {
		st := m.Status()
		return st.Phase == PhaseCopy && st.RowsCopied == 0 && logs.Contains(`"rows":7777,`) && st.RowsEstimate == 7777, nil
	})
	m.Throttle(false)
	if err := testenv.WaitResult(t, done, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	var summary struct{ Copy, CutOver, Total string }
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"message":"Done migrating gl_controls.r"`) {
			var raw map[string]any
			if err := json.Unmarshal([]byte(line), &raw); err != nil {
				t.Fatal(err)
			}
			summary.Copy, _ = raw["copy"].(string)
			summary.CutOver, _ = raw["cut_over"].(string)
			summary.Total, _ = raw["total"].(string)
		}
	}
	unit := regexp.MustCompile(`^[0-9.]+(ms|s)$|^[0-9hm.]+s$`)
	for name, v := range map[string]string{"copy": summary.Copy, "cut_over": summary.CutOver, "total": summary.Total} {
		if !unit.MatchString(v) {
			t.Errorf("summary %s=%q: not a duration with its unit", name, v)
		}
	}
}
