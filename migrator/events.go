package migrator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/observe"
)

// ErrAborted marks a run stopped by a step gate (GateStep) before its cut-over.
var ErrAborted = errors.New("migration aborted")

// GateStep adds fn to run at every Step, synchronously on the run's goroutine (the run waits for
// it). An error at any step but StepSuccess aborts the run there, as any failure of that phase: the
// original is untouched, this run's helper tables are dropped (kept for --resume when a checkpoint
// exists), the failed phase is announced, and Run returns the error (wrapping ErrAborted). At
// StepSuccess the migration is done: Run returns the error all the same. Call it before Run.
func (m *Migrator) GateStep(fn func(ctx context.Context, at observe.Step) error) {
	m.stepGates = append(m.stepGates, fn)
}

// pass runs the step gates at step at; the first error stops them and is returned, worded for the
// run's caller.
func (m *Migrator) pass(ctx context.Context, at observe.Step) error {
	for _, gate := range m.stepGates {
		err := gate(ctx, at)
		switch {
		case err == nil:
			continue
		case at != observe.StepSuccess:
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
func (m *Migrator) emit(kind observe.EventKind, e observe.Event) {
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
func (m *Migrator) afterAttempt(o cutover.AttemptOutcome) {
	m.emit(observe.EventCutOverAttempt, observe.Event{Attempt: o.Attempt, Took: o.Took, Locked: o.Locked, Err: o.Err})
}
