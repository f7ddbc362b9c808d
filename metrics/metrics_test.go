package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/migrator"
	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
	"github.com/go-ghostlite/go-ghostlite/throttle"
)

const metricsDB = "gl_metrics"

// scrape reads the endpoint and returns its sample lines by series ("name{labels}" -> value).
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d %v", resp.StatusCode, err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("sample %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// series is the name of a ghostlite series of metricsDB.t with extra labels ("" for none).
func series(name, extra string) string {
	labels := `database="` + metricsDB + `",` + extra
	if extra == "" {
		labels = `database="` + metricsDB + `",`
	}
	return "ghostlite_" + name + "{" + labels + `table="t"}`
}

// sample is the value of a series, failing the test when it is absent.
func sample(t *testing.T, s map[string]float64, key string) float64 {
	t.Helper()
	v, ok := s[key]
	if !ok {
		t.Fatalf("no series %s in the scrape", key)
	}
	return v
}

// TestScrapeDuringAMigration scrapes the endpoint while a migration is throttled, postponed, and
// done after a refused first cut-over attempt: the counters move, the phase and throttle follow.
func TestScrapeDuringAMigration(t *testing.T) {
	db := testenv.Database(t, metricsDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_2000")
	cfg := configtest.Config(t, metricsDB, "t", "ADD COLUMN c INT NULL", nil)
	cfg.ExactRowcount, cfg.FlagFileInterval = true, 10*time.Millisecond
	cfg.Logger = cfg.Logger.Level(zerolog.InfoLevel)
	m, err := migrator.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	met := New(m, cfg.Logger)
	m.Observe(met)
	m.GateCutOver(func(_ context.Context, attempt int) error {
		if attempt == 1 {
			return errors.New("not yet")
		}
		return nil
	})
	addr, err := met.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer met.Close()
	m.Throttle(true)
	if err := m.Postpone(true); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()

	testenv.WaitFor(t, time.Minute, 20*time.Millisecond, "the copy phase, throttled", func() (bool, error) {
		s := scrape(t, addr)
		return s[series("phase", `phase="copy",`)] == 1 && s[series("throttled", `reason="user",`)] == 1, nil
	})
	s := scrape(t, addr)
	// The flag of the postponement is set from the start, but the copy is not postponed.
	if got := sample(t, s, series("cut_over_postponed", "")); got != 0 {
		t.Errorf("cut_over_postponed %v during the copy, want 0", got)
	}
	for _, k := range throttle.ReasonKinds {
		if want := boolValue(k == "user"); sample(t, s, series("throttled", `reason="`+k+`",`)) != want {
			t.Errorf("throttled{reason=%q} != %v while throttled by the user", k, want)
		}
	}
	if got := sample(t, s, series("rows_copied_total", "")); got != 0 {
		t.Errorf("rows copied while throttled from the start: %v", got)
	}
	if got := sample(t, s, series("rows_estimated", "")); got != 2000 {
		t.Errorf("rows estimated %v, want the exact count 2000", got)
	}
	m.Throttle(false)
	testenv.WaitFor(t, time.Minute, 20*time.Millisecond, "the postponed phase, a heartbeat seen", func() (bool, error) {
		s := scrape(t, addr)
		_, lag := s[series("heartbeat_lag_seconds", "")]
		return s[series("phase", `phase="postponed",`)] == 1 && lag, nil
	})
	s = scrape(t, addr)
	for name, want := range map[string]float64{series("rows_copied_total", ""): 2000, series("copy_progress_ratio", ""): 1,
		series("throttled", `reason="user",`): 0, series("cut_over_postponed", ""): 1, series("phase", `phase="copy",`): 0} {
		if got := sample(t, s, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if lag := sample(t, s, series("heartbeat_lag_seconds", "")); lag < 0 || lag > 30 {
		t.Errorf("heartbeat lag %v s", lag)
	}
	applied := sample(t, s, series("events_applied_total", ""))
	testenv.Exec(t, db, "UPDATE t SET v = v + 1 WHERE id <= 10")
	testenv.WaitFor(t, time.Minute, 20*time.Millisecond, "the update applied", func() (bool, error) {
		return scrape(t, addr)[series("events_applied_total", "")] >= applied+10, nil
	})
	if err := m.Postpone(false); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 2*time.Minute); err != nil {
		t.Fatalf("migration failed: %v", err)
	}
	s = scrape(t, addr) // still served after the run, until Close
	for name, want := range map[string]float64{series("phase", `phase="done",`): 1,
		series("cut_over_attempts_total", `outcome="failure",`): 1, series("cut_over_attempts_total", `outcome="success",`): 1,
		series("cut_over_attempt_duration_seconds_count", `outcome="success",`): 1} {
		if got := sample(t, s, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if took := sample(t, s, series("cut_over_attempt_duration_seconds_sum", `outcome="success",`)); took <= 0 || took > 60 {
		t.Errorf("the successful attempt took %v s", took)
	}
	if _, ok := s["go_goroutines"]; !ok {
		t.Error("no Go runtime metrics")
	}
}

// A busy address is refused at once.
func TestListenOnBusyAddress(t *testing.T) {
	c := &fakeStatus{}
	a := New(c, zerolog.Nop())
	addr, err := a.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b := New(c, zerolog.Nop())
	if _, err := b.Listen(addr); err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Fatalf("second listener on %s: %v, want a refusal naming --metrics-addr", addr, err)
	}
	s := scrape(t, addr)
	for phase, want := range map[string]float64{"prepare": 1, "done": 0} { // the fake's Status: the zero Phase
		if v := sample(t, s, `ghostlite_phase{database="d",phase="`+phase+`",table="t"}`); v != want {
			t.Errorf("phase %s = %v, want %v", phase, v, want)
		}
	}
	if _, ok := s[`ghostlite_heartbeat_lag_seconds{database="d",table="t"}`]; ok {
		t.Error("a heartbeat lag before any heartbeat")
	}
}

// A set's tables share one endpoint, each series labelled by its table; each table counts its own
// cut-over attempts.
func TestSetOfTables(t *testing.T) {
	m := NewSet([]observe.Controls{&fakeStatus{table: "a"}, &fakeStatus{table: "b"}}, zerolog.Nop())
	addr, err := m.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Tables()[1].Event(observe.Event{Kind: observe.EventCutOverAttempt})
	s := scrape(t, addr)
	for _, tbl := range []string{"a", "b"} {
		if v := sample(t, s, `ghostlite_phase{database="d",phase="prepare",table="`+tbl+`"}`); v != 1 {
			t.Errorf("%s: phase prepare = %v, want 1", tbl, v)
		}
	}
	if v := sample(t, s, `ghostlite_cut_over_attempts_total{database="d",outcome="success",table="b"}`); v != 1 {
		t.Errorf("b's attempts = %v, want 1", v)
	}
	if _, ok := s[`ghostlite_cut_over_attempts_total{database="d",outcome="success",table="a"}`]; ok {
		t.Error("b's attempt counted for a")
	}
}

// fakeStatus is a observe.Controls with a fixed Status (of table "t" unless table is set).
type fakeStatus struct{ table string }

func (f fakeStatus) Status() status.Status {
	if f.table == "" {
		f.table = "t"
	}
	return status.Status{Database: "d", Table: f.table, HeartbeatLag: -1}
}
func (fakeStatus) Knobs() []string            { return nil }
func (fakeStatus) Get(string) (string, error) { return "", nil }
func (fakeStatus) Set(string, string) error   { return nil }
func (fakeStatus) Throttle(bool)              {}
func (fakeStatus) Postpone(bool) error        { return nil }
func (fakeStatus) Panic(string)               {}
