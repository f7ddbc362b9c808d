package throttle

import (
	"context"
	"sync"
	"time"
)

// Sample holds the last reading of a signal that needs a query or a request. A background loop
// refreshes it (Poll); rules read it without blocking. Safe for concurrent use.
type Sample[T any] struct {
	mu sync.Mutex
	v  T
	ok bool
}

// Store records a new reading.
func (s *Sample[T]) Store(v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.v, s.ok = v, true
}

// Load is the last reading; ok is false before the first.
func (s *Sample[T]) Load() (v T, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v, s.ok
}

// Poll calls read at once, then again interval() after each call returns, storing each reading in
// s, until ctx ends. interval is asked each time, so a changed setting changes the pace.
func Poll[T any](ctx context.Context, interval func() time.Duration, s *Sample[T], read func(context.Context) T) {
	for {
		v := read(ctx)
		if ctx.Err() != nil {
			return
		}
		s.Store(v)
		t := time.NewTimer(interval())
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// Verdict is a decision made when a signal is read: throttle or not, and why.
type Verdict struct {
	Throttled bool
	Reason    string
}

// Sampled is the rule that returns the last verdict s holds (none yet: not throttled).
func Sampled(s *Sample[Verdict]) Rule {
	return RuleFunc(func(context.Context) (bool, string) {
		v, _ := s.Load()
		return v.Throttled, v.Reason
	})
}

// Clock is the time the rules that wait or expire read; tests give a fake one.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// RealClock is the system's clock.
var RealClock Clock = realClock{}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// sleep waits d on clock, or until ctx ends.
func sleep(ctx context.Context, clock Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-clock.After(d):
		return nil
	}
}
