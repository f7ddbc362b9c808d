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
	EventRowCountComplete                      // --exact-rowcount: the rows are counted (after EventValidated; with --concurrent-rowcount once the count beside the copy is done)
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

// Step is a moment of the run where a step gate (GateStep) may stop it: gh-ost's aborting hooks
// attach here.
type Step int

// The steps, in the order a run meets them.
const (
	StepStartup         Step = iota + 1 // the run begins, before any check
	StepValidated                       // preparation passed (right after EventValidated; also in a dry run)
	StepBeforeRowCopy                   // the first chunk is next (right after EventBeforeRowCopy)
	StepRowCopyComplete                 // every row is copied (right after EventRowCopyComplete)
	StepBeforeCutOver                   // the cut-over is next: once, before its attempts, before anything is locked
	StepStopReplication                 // --test-on-replica: replication is about to be stopped (right after EventStopReplication)
	StepSuccess                         // the migration is complete (after status.PhaseDone; also after a dry run or an instant ALTER)
)

var stepNames = [...]string{"startup", "validated", "before-row-copy", "row-copy-complete", "before-cut-over", "stop-replication", "success"}

// String is the step's name, as gh-ost's hooks spell it.
func (s Step) String() string {
	if s < 1 || int(s) > len(stepNames) {
		return fmt.Sprintf("step(%d)", int(s))
	}
	return stepNames[s-1]
}

// ErrAborted marks a run stopped by a step gate (GateStep) before its cut-over.
var ErrAborted = errors.New("migration aborted")

// GateStep adds fn to run at every Step, synchronously on the run's goroutine (the run waits for
// it). An error at any step but StepSuccess aborts the run there, as any failure of that phase: the
// original is untouched, this run's helper tables are dropped (kept for --resume when a checkpoint
// exists), the failed phase is announced, and Run returns the error (wrapping ErrAborted). At
// StepSuccess the migration is done: Run returns the error all the same. Call it before Run.
func (m *Migrator) GateStep(fn func(ctx context.Context, at Step) error) {
	m.stepGates = append(m.stepGates, fn)
}

// pass runs the step gates at step at; the first error stops them and is returned, worded for the
// run's caller.
func (m *Migrator) pass(ctx context.Context, at Step) error {
	for _, gate := range m.stepGates {
		err := gate(ctx, at)
		switch {
		case err == nil:
			continue
		case at != StepSuccess:
			return fmt.Errorf("%w: %w; the original table is untouched", ErrAborted, err)
		case !m.cfg.Execute:
			return fmt.Errorf("the dry run is complete, but %w", err)
		}
		return fmt.Errorf("the migration is complete, but %w", err)
	}
	return nil
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
