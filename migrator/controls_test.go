package migrator

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/status"
)

const controlsDB = "gl_controls"

func TestKnobsGetSetAndRanges(t *testing.T) {
	cfg := config.Default()
	cfg.Database, cfg.Table, cfg.Alter = "d", "t", "ADD COLUMN c INT"
	m := mustNew(t, cfg)
	if got, want := m.Knobs(), []string{"chunk-size", "critical-load", "dml-batch-size", "max-lag-millis", "max-load",
		"nice-ratio", "throttle-control-replicas", "throttle-http", "throttle-query"}; !slices.Equal(got, want) {
		t.Fatalf("Knobs() = %q, want %q", got, want)
	}
	assertKnobSets(t, m, []knobSet{
		{"chunk-size", "500", "500", true},
		{"chunk-size", "9", "500", false},
		{"chunk-size", "100001", "500", false},
		{"chunk-size", "abc", "500", false},
		{"dml-batch-size", "100", "100", true},
		{"dml-batch-size", "0", "100", false},
	})
	if _, err := m.Get("no-such"); !errors.Is(err, ErrUnknownKnob) {
		t.Errorf("Get(no-such) = %v, want ErrUnknownKnob", err)
	}
	if err := m.Set("no-such", "1"); !errors.Is(err, ErrUnknownKnob) {
		t.Errorf("Set(no-such) = %v, want ErrUnknownKnob", err)
	}
	if st := m.Status(); st.ChunkSize != 500 || st.DMLBatchSize != 100 || st.Phase != status.PhaseNone {
		t.Errorf("Status before Run: %+v", st)
	}
}

// knobSet is one Set of a knob: whether it is accepted, and what Get reads after it.
type knobSet struct {
	name, set, want string
	ok              bool
}

// assertKnobSets sets each knob in turn and checks the outcome, each as a subtest.
func assertKnobSets(t *testing.T, m *Migrator, sets []knobSet) {
	t.Helper()
	for _, c := range sets {
		t.Run(c.name+"="+c.set, func(t *testing.T) {
			err := m.Set(c.name, c.set)
			if (err == nil) != c.ok {
				t.Fatalf("Set(%s, %s) = %v, want ok=%v", c.name, c.set, err, c.ok)
			}
			if got, _ := m.Get(c.name); got != c.want {
				t.Fatalf("Get(%s) = %s, want %s", c.name, got, c.want)
			}
		})
	}
}

// TestControlsSteerARun: a throttled copy copies nothing until the throttle is lifted; a changed
// chunk size is the size of the next chunks; a postponed cut-over waits until unpostponed; Status
// follows; every row arrives.
func TestControlsSteerARun(t *testing.T) {
	t.Parallel() // a database of its own
	db, schema := testenv.OwnDatabase(t, controlsDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO t SELECT seq, seq FROM seq_1_to_20000")
	cfg := configtest.Config(t, schema, "t", "ADD COLUMN c INT NULL", nil)
	cfg.ChunkSize = 1000
	var chunks atomic.Int64
	m := newWithSeams(t, cfg, seams{beforeChunk: func(context.Context, int64) error { chunks.Add(1); return nil }})
	m.Throttle(true)
	if err := m.Postpone(true); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()

	testenv.WaitFor(t, 60*time.Second, 10*time.Millisecond, "the copy throttled by the operator", func() (bool, error) {
		st := m.Status()
		return st.Phase == status.PhaseCopy && st.Throttled && st.ThrottleReason == "commanded by user", nil
	})
	time.Sleep(200 * time.Millisecond)
	if n := chunks.Load(); n != 0 {
		t.Fatalf("%d chunks copied while throttled", n)
	}
	if err := m.Set("chunk-size", "100"); err != nil {
		t.Fatal(err)
	}
	m.Throttle(false)
	waitPostponed(t, db, done)
	st := m.Status()
	if !st.CopyDone || st.RowsCopied != 20000 || st.Phase != status.PhasePostponed || !st.Postponed || st.Throttled {
		t.Fatalf("status while postponed: %+v", st)
	}
	// A few chunks were planned ahead at 1000 rows; the rest have the new size (100).
	if n := chunks.Load(); n < 150 || n > 200 {
		t.Errorf("%d chunks copied, want the 20000 rows mostly in chunks of the new size 100 (150 to 200 chunks)", n)
	}
	if err := m.Postpone(false); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 2*time.Minute); err != nil {
		t.Fatalf("migration: %v", err)
	}
	if st := m.Status(); st.Phase != status.PhaseDone {
		t.Errorf("phase after the run: %s", st.Phase)
	}
	if n := testenv.CountRows(t, db, schema, "t"); n != 20000 {
		t.Errorf("%d rows after the migration, want 20000", n)
	}
}

// TestControlsPanic: Panic aborts a running migration with ErrPanicked; the original keeps its
// rows and its definition, and the helper tables are gone.
func TestControlsPanic(t *testing.T) {
	t.Parallel() // a database of its own
	db, schema := testenv.OwnDatabase(t, controlsDB)
	testenv.Exec(t, db, "DROP TABLE IF EXISTS p", "CREATE TABLE p (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO p SELECT seq, seq FROM seq_1_to_500")
	cfg := configtest.Config(t, schema, "p", "ADD COLUMN c INT NULL", nil)
	m := mustNew(t, cfg)
	if err := m.Postpone(true); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	testenv.WaitFor(t, 60*time.Second, 10*time.Millisecond, "the cut-over postponed", func() (bool, error) {
		return m.Status().Phase == status.PhasePostponed, nil
	})
	m.Panic("operator said so")
	err := waitFailed(t, done, "a panicked migration succeeded")
	if !errors.Is(err, ErrPanicked) {
		t.Fatalf("run ended with %v, want ErrPanicked", err)
	}
	if got := testenv.Columns(t, db, schema, "p"); !slices.Equal(got, []string{"id", "v"}) {
		t.Errorf("original's columns after panic: %q", got)
	}
	if n := testenv.CountRows(t, db, schema, "p"); n != 500 {
		t.Errorf("%d rows in the original after panic, want 500", n)
	}
	if st := m.Status(); st.Phase != status.PhaseFailed {
		t.Errorf("phase after panic: %s", st.Phase)
	}
}
