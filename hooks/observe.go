package hooks

import (
	"context"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// steps are the hooks that run at the migrator's steps (Step): gh-ost's hooks whose failure
// aborts the run, or, for on-success, makes it return an error.
var steps = map[observe.Step]string{
	observe.StepStartup:         OnStartup,
	observe.StepValidated:       OnValidated,
	observe.StepBeforeRowCopy:   OnBeforeRowCopy,
	observe.StepRowCopyComplete: OnRowCopyComplete,
	observe.StepBeforeCutOver:   OnBeforeCutOver,
	observe.StepStopReplication: OnStopReplication,
	observe.StepSuccess:         OnSuccess,
}

// Step runs the hooks of step at and returns the first failure, which the migrator turns into the
// run's (gh-ost's effect: the migration aborts; after on-success, the run reports the error).
// Register it with Migrator.GateStep.
func (h *Hooks) Step(ctx context.Context, at observe.Step) error {
	prefix, ok := steps[at]
	if !ok {
		return nil
	}
	if at == observe.StepSuccess { // gh-ost's: whether the ALTER was done instantly
		return h.run(ctx, prefix, fmt.Sprintf("GH_OST_INSTANT_DDL=%t", h.controls.Status().Instant))
	}
	return h.run(ctx, prefix)
}

// PhaseChanged runs the hooks of a phase change: on-begin-postponed when the cut-over is first
// postponed and on-failure when the run fails; the start of the run starts the on-status clock.
// Implements observe.Observer.
func (h *Hooks) PhaseChanged(c observe.PhaseChange) {
	switch c.Phase {
	case status.PhasePrepare:
		h.mu.Lock()
		h.nextStatus = c.At.Add(h.cfg.StatusInterval)
		h.mu.Unlock()
	case status.PhasePostponed:
		h.runLogged(OnBeginPostponed)
	case status.PhaseFailed:
		h.runLogged(OnFailure)
	}
}

// Event runs the hooks of the run's moments that do not steer it; a failure is logged. Implements
// observe.EventObserver.
func (h *Hooks) Event(e observe.Event) {
	switch e.Kind {
	case observe.EventRowCountComplete:
		h.runLogged(OnRowCountComplete)
	case observe.EventStartReplication:
		h.runLogged(OnStartReplication)
	case observe.EventStatus:
		h.statusTick(e.At, e.Detail)
	}
}

// InteractiveCommand runs the on-interactive-command hooks with GH_OST_COMMAND before an
// interactive command executes. On an error the command must be rejected with the error's text,
// as gh-ost does.
func (h *Hooks) InteractiveCommand(command string) error {
	return h.run(context.Background(), OnInteractiveCommand, ghostQuoted("GH_OST_COMMAND", command))
}

// runLogged runs the hooks for prefix; a failure is logged (in run) and the run goes on.
func (h *Hooks) runLogged(prefix string) {
	_ = h.run(context.Background(), prefix)
}

// statusTick runs on-status beside the run, with the status line, when StatusInterval has passed
// since the last one (or the start) and none is still running.
func (h *Hooks) statusTick(at time.Time, line string) {
	h.mu.Lock()
	due := !h.statusRunning && !at.Before(h.nextStatus)
	if due {
		h.statusRunning = true
		h.nextStatus = at.Add(h.cfg.StatusInterval)
	}
	h.mu.Unlock()
	if !due {
		return
	}
	h.status.Add(1)
	go func() {
		defer h.status.Done()
		_ = h.run(context.Background(), OnStatus, ghostQuoted("GH_OST_STATUS", line))
		h.mu.Lock()
		h.statusRunning = false
		h.mu.Unlock()
	}()
}

// ghostQuoted is the variable name=value as gh-ost sets GH_OST_COMMAND and GH_OST_STATUS: the
// value inside single quotes, which are part of it (GH_OST_COMMAND='chunk-size=500'); hooks
// written for gh-ost strip them.
func ghostQuoted(name, value string) string {
	return fmt.Sprintf("%s='%s'", name, value)
}
