package migrator

import (
	"context"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// phases tracks the run's phase. Each change is recorded (the changelog's state row, while the
// changelog exists and the run goes on: done and failed are not written, the changelog is dropped
// then), logged in one line and announced to every observer, in that order.
type phases struct {
	log       zerolog.Logger
	observers []observe.Observer

	mu      sync.Mutex
	current status.Phase
	since   time.Time
	// record writes the phase where scripts can read it (the changelog's state row); nil until
	// there is somewhere to write it.
	record func(ctx context.Context, p status.Phase)
}

func newPhases(log zerolog.Logger, observers []observe.Observer) *phases {
	return &phases{log: log, observers: observers, current: status.PhaseNone, since: time.Now()}
}

// recordWith makes every later phase change call record first.
func (t *phases) recordWith(record func(ctx context.Context, p status.Phase)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.record = record
}

// Current is the run's phase and when it began.
func (t *phases) Current() (status.Phase, time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.current, t.since
}

// Enter moves the run to phase p; entering the phase it is in changes nothing.
func (t *phases) Enter(ctx context.Context, p status.Phase) { t.change(ctx, p, nil) }

// Fail moves the run to status.PhaseFailed with its cause.
func (t *phases) Fail(ctx context.Context, cause error) { t.change(ctx, status.PhaseFailed, cause) }

func (t *phases) change(ctx context.Context, p status.Phase, cause error) {
	t.mu.Lock()
	prev := t.current
	if prev == p {
		t.mu.Unlock()
		return
	}
	t.current, t.since = p, time.Now()
	ch := observe.PhaseChange{Phase: p, Previous: prev, At: t.since, Err: cause}
	record := t.record
	t.mu.Unlock()

	if record != nil && p != status.PhaseDone && p != status.PhaseFailed {
		record(ctx, p)
	}
	ev := t.log.Info()
	if p == status.PhaseFailed {
		ev = t.log.Warn()
	}
	ev.Str("phase", p.String()).Msgf("phase: %s", p)
	for _, o := range t.observers {
		o.PhaseChanged(ch)
	}
}
