package migrator

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/observe"
)

// eventLog records phases and events, in the order heard, from any goroutine.
type eventLog struct {
	mu       sync.Mutex
	heard    []string
	attempts []observe.Event
}

func (l *eventLog) PhaseChanged(c observe.PhaseChange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.heard = append(l.heard, "phase "+c.Phase.String())
}

func (l *eventLog) Event(e observe.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch e.Kind {
	case observe.EventStatus: // its timing depends on the copy's speed: not part of the order
		return
	case observe.EventCutOverAttempt:
		l.attempts = append(l.attempts, e)
	}
	l.heard = append(l.heard, e.Kind.String())
}

// TestEventsAndCutOverGate: an EventObserver hears the run's events between its phases; a gate
// refusing the first cut-over attempt fails only that attempt, and the second one swaps.
func TestEventsAndCutOverGate(t *testing.T) {
	const dbName = "gl_events"
	db := testenv.Database(t, dbName)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO t SELECT seq, seq FROM seq_1_to_300")
	cfg := configtest.Config(t, dbName, "t", "ADD COLUMN c INT NULL", nil)
	cfg.ExactRowcount, cfg.OkToDropTable = true, true
	cfg.ConcurrentRowcount = false // counted in preparation: rowcount-complete has its place in the order
	m := mustNew(t, cfg)
	var heard eventLog
	m.Observe(&heard)
	refused := errors.New("not yet")
	var gated []int
	m.GateCutOver(func(_ context.Context, attempt int) error {
		gated = append(gated, attempt)
		if attempt == 1 {
			return refused
		}
		return nil
	})
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("migration failed: %v", err)
	}
	want := []string{"phase prepare", "validated", "rowcount-complete", "phase copy", "before-row-copy",
		"row-copy-complete", "phase checksum", "checksum", "phase cut-over", "cut-over-attempt", "cut-over-attempt", "phase done"}
	if !slices.Equal(heard.heard, want) {
		t.Fatalf("heard %q\nwant  %q", heard.heard, want)
	}
	if !slices.Equal(gated, []int{1, 2}) {
		t.Errorf("gate ran for attempts %v, want [1 2]", gated)
	}
	a := heard.attempts
	if a[0].Attempt != 1 || !errors.Is(a[0].Err, refused) || !errors.Is(a[0].Err, ErrCutOverGate) {
		t.Errorf("attempt 1: %+v, want refused by the gate", a[0])
	}
	if a[1].Attempt != 2 || a[1].Err != nil || a[1].Took <= 0 || a[1].Took > time.Minute {
		t.Errorf("attempt 2: %+v, want a success with its duration", a[1])
	}
	if !testenv.HasColumn(t, db, dbName, "t", "c") {
		t.Error("the table was not migrated")
	}
}
