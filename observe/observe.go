// Package observe is the run as the packages around it see it: the phase changes every Observer
// hears (PhaseChange), the run's other moments an EventObserver hears (Event, EventKind), the
// steps where a gate may stop the run (Step: gh-ost's aborting hooks), and the operator's levers
// (Controls). Hooks, metrics and the interactive commands import it instead of the conductor;
// package migrator announces, gates and implements them.
//
// Invariants:
//   - observers hear about the run, they never steer it: what they may change goes through
//     Controls, and only a step gate (migrator.Migrator.GateStep) stops the run;
//   - the package holds types only: it imports nothing of the run but status.
package observe

import (
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/status"
)

// PhaseChange is what observers hear when the run enters a phase.
type PhaseChange struct {
	Phase    status.Phase
	Previous status.Phase
	At       time.Time
	// Err is why the run failed (Phase == status.PhaseFailed only).
	Err error
}

// Observer hears about the run: hooks, metrics, the interactive status and checkpoints attach
// here, never inside the phase code. PhaseChanged is called synchronously, in order, from the
// run's goroutine: it must return quickly and must not call back into the Migrator's run.
type Observer interface {
	PhaseChanged(PhaseChange)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(PhaseChange)

// PhaseChanged calls f.
func (f ObserverFunc) PhaseChanged(c PhaseChange) { f(c) }

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
	EventChecksum                              // the checksum before the cut-over ended (Checksum)
	EventReviewed                              // a dry run reviewed the ALTER (Review)
)

var eventNames = [...]string{"validated", "rowcount-complete", "before-row-copy", "status", "row-copy-complete",
	"stop-replication", "cut-over-attempt", "start-replication", "checksum", "reviewed"}

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
	// Attempt, Took, Locked and Err describe a cut-over attempt (EventCutOverAttempt): its number
	// from 1, how long it took, how long it held the original locked, and why it failed (nil: the
	// tables are swapped). Err is also why the checksum failed (EventChecksum).
	Attempt int
	Took    time.Duration
	Locked  time.Duration
	Err     error
	// Checksum is what the checksum before the cut-over proved (EventChecksum).
	Checksum *ChecksumOutcome
	// Review is a dry run's remarks on the ALTER, one line each (EventReviewed).
	Review []string
}

// ChecksumOutcome is what the checksum before the cut-over compared and repaired. It holds no row
// data (no key values).
type ChecksumOutcome struct {
	Ranges   int64         // ranges of the shared key compared
	Rows     int64         // rows of the original compared
	Repaired int           // chunks the checksum found different and copied again
	Skipped  []string      // columns not compared, "name: why"
	LockHeld time.Duration // the longest time the original was locked for a snapshot
	Took     time.Duration
}

// EventObserver is an Observer that also hears the run's other moments. migrator.Migrator.Observe
// registers it for both. Event is called synchronously from the goroutine where the moment happens (the run's, or
// the status logger's for EventStatus): it must return quickly and be safe for concurrent use.
type EventObserver interface {
	Observer
	Event(Event)
}

// Step is a moment of the run where a step gate (migrator.Migrator.GateStep) may stop it: gh-ost's
// aborting hooks attach here.
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

// Controls are the operator's levers on a migration: what the interactive commands (and anything
// else that steers a run from outside) may call. Every method is safe for concurrent use and
// returns at once; a change takes effect at the next chunk, batch or check. *migrator.Migrator
// implements it.
type Controls interface {
	// Status is a snapshot of the run (package status).
	Status() status.Status
	// Knobs lists the names of the settings Get and Set accept, sorted (gh-ost's names:
	// chunk-size, dml-batch-size, ...).
	Knobs() []string
	// Get reads a setting by name; Set changes it, refusing a value out of its range.
	Get(name string) (string, error)
	Set(name, value string) error
	// Throttle holds the copy back (on) or lets it go (off); the binlog applier keeps running.
	Throttle(on bool)
	// Postpone holds the cut-over back (on) once the copy is done, or releases it (off: also
	// removes --postpone-cut-over-flag-file, as gh-ost's unpostpone does).
	Postpone(on bool) error
	// Panic aborts the migration at once; the original table is left untouched.
	Panic(reason string)
}
