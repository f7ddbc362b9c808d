package hooks

import (
	"context"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// A hook that exits 0 but leaves a background process holding its output open succeeded: it used
// to fail the step ("WaitDelay expired") and abort the migration.
func TestHookLeavingABackgroundChildSucceeds(t *testing.T) {
	r := newRecorder(t)
	r.install(OnBeforeCutOver, "sleep 3 &\necho started")
	h, _ := newTestHooks(t, r, nil, status.Status{})
	began := time.Now()
	if err := h.Step(context.Background(), observe.StepBeforeCutOver); err != nil {
		t.Fatalf("the hook exited 0, yet the step failed: %v", err)
	}
	if d := time.Since(began); d > 2500*time.Millisecond {
		t.Errorf("the step waited %s for the background child", d)
	}
}
