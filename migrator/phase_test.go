package migrator

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// phaseLog records what observers hear, from any goroutine.
type phaseLog struct {
	mu      sync.Mutex
	changes []observe.PhaseChange
}

func (l *phaseLog) PhaseChanged(c observe.PhaseChange) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changes = append(l.changes, c)
}

func (l *phaseLog) phases() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, c := range l.changes {
		out = append(out, c.Phase.String())
	}
	return out
}

func TestPhasesRecordLogAndAnnounceInOrder(t *testing.T) {
	var logs bytes.Buffer
	var order []string
	obs := observe.ObserverFunc(func(c observe.PhaseChange) {
		order = append(order, "observe "+c.Phase.String()+" after "+c.Previous.String())
		if !strings.Contains(logs.String(), `"phase":"`+c.Phase.String()+`"`) {
			t.Errorf("observer heard %s before its log line", c.Phase)
		}
	})
	ph := newPhases(zerolog.New(&logs), []observe.Observer{obs})
	ctx := context.Background()
	ph.Enter(ctx, status.PhasePrepare) // nothing records yet: no changelog
	ph.recordWith(func(_ context.Context, p status.Phase) { order = append(order, "record "+p.String()) })
	ph.Enter(ctx, status.PhaseCopy)
	ph.Enter(ctx, status.PhaseCopy) // the phase it is in: nothing happens
	ph.Enter(ctx, status.PhasePostponed)
	ph.Enter(ctx, status.PhaseCutOver)
	cause := errors.New("boom")
	ph.Fail(ctx, cause) // failed (and done) are announced, not recorded: the changelog is dropped

	want := []string{
		"observe prepare after none",
		"record copy", "observe copy after prepare",
		"record postponed", "observe postponed after copy",
		"record cut-over", "observe cut-over after postponed",
		"observe failed after cut-over",
	}
	if !slices.Equal(order, want) {
		t.Fatalf("phase changes:\n got %q\nwant %q", order, want)
	}
	if got := strings.Count(logs.String(), "\n"); got != 5 {
		t.Errorf("want one log line per change (5), got %d:\n%s", got, logs.String())
	}
	if p, _ := ph.Current(); p != status.PhaseFailed {
		t.Errorf("current phase %s, want failed", p)
	}
}

func TestBackgroundKeepsFirstErrorAndCancelsTheRest(t *testing.T) {
	b := newBackground(context.Background())
	first := errors.New("first")
	b.Go(func(ctx context.Context) error { <-ctx.Done(); return errors.New("after cancel") })
	b.Go(func(context.Context) error { return first })
	select {
	case <-b.ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("an error did not cancel the group")
	}
	if err := b.stop(); !errors.Is(err, first) {
		t.Fatalf("stop = %v, want the first error", err)
	}
	if err := b.stop(); !errors.Is(err, first) {
		t.Fatalf("second stop = %v, want the first error again", err)
	}
}

func TestBackgroundStopWithoutErrors(t *testing.T) {
	b := newBackground(context.Background())
	b.Go(func(ctx context.Context) error { <-ctx.Done(); return nil })
	if err := b.stop(); err != nil {
		t.Fatalf("stop = %v, want nil", err)
	}
}

// TestObserverHearsEveryPhase: an observer of a real migration hears prepare, copy, postponed
// (while the flag file exists), cut-over and done, in order; the changelog's state row follows.
func TestObserverHearsEveryPhase(t *testing.T) {
	const dbName = "gl_phases"
	db := testenv.Database(t, dbName)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO t SELECT seq, seq FROM seq_1_to_500")
	cfg := configtest.Config(t, dbName, "t", "ADD COLUMN c INT NULL", nil)
	cfg.OkToDropTable = true
	flag := postpone(t, &cfg)
	m := mustNew(t, cfg)
	var heard phaseLog
	m.Observe(&heard)
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	waitPostponed(t, db, done)
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 2*time.Minute); err != nil {
		t.Fatalf("migration failed: %v", err)
	}
	want := []string{"prepare", "copy", "postponed", "checksum", "cut-over", "done"}
	if got := heard.phases(); !slices.Equal(got, want) {
		t.Fatalf("observer heard %q, want %q", got, want)
	}
}

// TestObserverHearsFailure: a refused preparation is announced as failed, with its cause.
func TestObserverHearsFailure(t *testing.T) {
	var logs testenv.LogBuffer
	m := mustNew(t, prepareConfig(t, "no_such_table", "ADD COLUMN c INT", &logs))
	var heard phaseLog
	m.Observe(&heard)
	err := m.Run(context.Background())
	if err == nil {
		t.Fatal("a migration of a missing table succeeded")
	}
	if got, want := heard.phases(), []string{"prepare", "failed"}; !slices.Equal(got, want) {
		t.Fatalf("observer heard %q, want %q", got, want)
	}
	if last := heard.changes[len(heard.changes)-1]; !errors.Is(last.Err, err) && last.Err.Error() != err.Error() {
		t.Errorf("failed phase carries %v, want the run's error %v", last.Err, err)
	}
}
