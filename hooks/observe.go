package hooks

import (
	"context"
	"time"

	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// PhaseChanged runs the hooks of a phase change: on-startup as the run begins, on-begin-postponed
// when the cut-over is first postponed, on-success and on-failure at the end. Implements
// migrator.Observer.
func (h *Hooks) PhaseChanged(c migrator.PhaseChange) {
	switch c.Phase {
	case migrator.PhasePrepare:
		h.mu.Lock()
		h.nextStatus = c.At.Add(h.cfg.StatusInterval)
		h.mu.Unlock()
		h.runLogged(OnStartup)
	case migrator.PhasePostponed:
		h.runLogged(OnBeginPostponed)
	case migrator.PhaseDone:
		h.runLogged(OnSuccess)
	case migrator.PhaseFailed:
		h.runLogged(OnFailure)
	}
}

// Event runs the hooks of the run's other moments. Implements migrator.EventObserver.
func (h *Hooks) Event(e migrator.Event) {
	switch e.Kind {
	case migrator.EventValidated:
		h.runLogged(OnValidated)
	case migrator.EventRowCountComplete:
		h.runLogged(OnRowCountComplete)
	case migrator.EventBeforeRowCopy:
		h.runLogged(OnBeforeRowCopy)
	case migrator.EventRowCopyComplete:
		h.runLogged(OnRowCopyComplete)
	case migrator.EventStopReplication:
		h.runLogged(OnStopReplication)
	case migrator.EventStartReplication:
		h.runLogged(OnStartReplication)
	case migrator.EventStatus:
		h.statusTick(e.At, e.Detail)
	case migrator.EventCutOverAttempt: // the gate (BeforeCutOver) runs its hook
	}
}

// BeforeCutOver runs the on-before-cut-over hooks before a cut-over attempt: a failure fails
// that attempt (gh-ost's effect). Register it with Migrator.GateCutOver.
func (h *Hooks) BeforeCutOver(ctx context.Context, _ int) error {
	return h.run(ctx, OnBeforeCutOver)
}

// InteractiveCommand runs the on-interactive-command hooks with GH_OST_COMMAND before an
// interactive command executes. On an error the command must be rejected with the error's text,
// as gh-ost does.
func (h *Hooks) InteractiveCommand(command string) error {
	return h.run(context.Background(), OnInteractiveCommand, "GH_OST_COMMAND="+command)
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
		_ = h.run(context.Background(), OnStatus, "GH_OST_STATUS="+line)
		h.mu.Lock()
		h.statusRunning = false
		h.mu.Unlock()
	}()
}
