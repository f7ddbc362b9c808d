package migrator

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// EventKind names a moment of the run that is not a phase change.
type EventKind int

// The events, in the order a run meets them (status and cut-over attempts repeat).
const (
	EventValidated        EventKind = iota + 1 // preparation passed: every check, the ghost altered, the plan made
	EventRowCountComplete                      // --exact-rowcount: the rows are counted (right after EventValidated)
	EventBeforeRowCopy                         // the binlog applier runs; the first chunk is next
	EventStatus                                // a status line was logged (Event.Detail)
	EventRowCopyComplete                       // every row is copied
	EventStopReplication                       // --test-on-replica: replication is about to be stopped for the cut-over
	EventCutOverAttempt                        // a cut-over attempt ended (Attempt, Took, Err)
	EventStartReplication                      // --test-on-replica: the cut-over failed; replication is about to be started again
)

var eventNames = [...]string{"validated", "rowcount-complete", "before-row-copy", "status", "row-copy-complete",
	"stop-replication", "cut-over-attempt", "start-replication"}

// String is the event's name, as gh-ost's hooks spell it where it has one.
func (k EventKind) String() string {
	if k < 1 || int(k) > len(eventNames) {
		return fmt.Sprintf("event(%d)", int(k))
	}
	return eventNames[k-1]
}

// Event is what event observers hear.
type Event struct {
	Kind EventKind
	At   time.Time
	// Detail is the status line (EventStatus).
	Detail string
	// Attempt, Took and Err describe a cut-over attempt (EventCutOverAttempt): its number from 1,
	// how long it took, and why it failed (nil: the tables are swapped).
	Attempt int
	Took    time.Duration
	Err     error
}

// EventObserver is an Observer that also hears the run's other moments. Observe registers it for
// both. Event is called synchronously from the goroutine where the moment happens (the run's, or
// the status logger's for EventStatus): it must return quickly and be safe for concurrent use.
type EventObserver interface {
	Observer
	Event(Event)
}

// ErrCutOverGate marks a cut-over attempt refused by a gate (GateCutOver).
var ErrCutOverGate = errors.New("cut-over attempt refused")

// GateCutOver adds fn to run before every cut-over attempt, before anything is locked. An error
// fails that attempt (it is retried like any failed attempt, up to --default-retries; the
// original is untouched). Call it before Run.
func (m *Migrator) GateCutOver(fn func(ctx context.Context, attempt int) error) {
	m.gates = append(m.gates, fn)
}

// emit announces e to every event observer.
func (m *Migrator) emit(kind EventKind, e Event) {
	e.Kind = kind
	if e.At.IsZero() {
		e.At = time.Now()
	}
	for _, o := range m.events {
		o.Event(e)
	}
}

// beforeAttempt runs the gates for a cut-over attempt.
func (m *Migrator) beforeAttempt(ctx context.Context, attempt int) error {
	for _, gate := range m.gates {
		if err := gate(ctx, attempt); err != nil {
			return fmt.Errorf("%w: %w", ErrCutOverGate, err)
		}
	}
	return nil
}

// afterAttempt announces how a cut-over attempt ended.
func (m *Migrator) afterAttempt(attempt int, took time.Duration, err error) {
	m.emit(EventCutOverAttempt, Event{Attempt: attempt, Took: took, Err: err})
}
