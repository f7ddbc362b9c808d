package hooks

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
)

func newTestHooks(t *testing.T, r *recorder, logs *testenv.LogBuffer, st status.Status) (*Hooks, *fakeControls) {
	t.Helper()
	c := &fakeControls{st: st}
	return New(Config{Path: r.dir, Timeout: 5 * time.Second, StatusInterval: time.Hour, Alter: "ADD COLUMN c INT",
		DryRun: true, Hint: "hint", HintOwner: "owner", HintToken: "token", Logger: testenv.Logger(t, logs)}, c), c
}

// A hook that outlives Timeout is killed, with what it started, and fails.
func TestHookTimeoutKillsIt(t *testing.T) {
	r := newRecorder(t)
	r.install(OnBeforeCutOver, "sleep 30")
	h, _ := newTestHooks(t, r, nil, status.Status{})
	h.cfg.Timeout = 300 * time.Millisecond
	began := time.Now()
	err := h.Step(context.Background(), observe.StepBeforeCutOver)
	if err == nil || err.Error() != "hook "+filepath.Join(r.dir, OnBeforeCutOver)+" ran longer than 300ms and was killed" {
		t.Fatalf("got %v, want a timeout", err)
	}
	if d := time.Since(began); d > 3*time.Second {
		t.Fatalf("a 300ms hook timeout took %s", d)
	}
}

// Every file with the prefix runs, in name order, even after one failed; the first failure is
// returned, in one line naming the file and its exit status; their output is in the log.
func TestHooksRunInOrderAndLogOutput(t *testing.T) {
	r := newRecorder(t)
	r.install(OnBeforeCutOver+"-b", "echo world-from-b")
	r.install(OnBeforeCutOver+"-a", "echo hello-from-a; exit 3")
	r.install("not-a-hook", "")
	logs := &testenv.LogBuffer{}
	h, _ := newTestHooks(t, r, logs, status.Status{})
	err := h.Step(context.Background(), observe.StepBeforeCutOver)
	if want := "hook " + filepath.Join(r.dir, OnBeforeCutOver+"-a") + " exited with status 3"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want the failure of -a", err)
	}
	if got, want := r.order(), []string{OnBeforeCutOver + "-a", OnBeforeCutOver + "-b"}; !slices.Equal(got, want) {
		t.Fatalf("ran %q, want %q", got, want)
	}
	for _, out := range []string{"hello-from-a", "world-from-b"} {
		if !logs.Contains(out) {
			t.Errorf("the log lacks the hook output %q:\n%s", out, logs.String())
		}
	}
}

// The environment: gh-ost's names and formats, from the Status and the configuration.
func TestEnvironment(t *testing.T) {
	r := newRecorder(t)
	r.install(OnInteractiveCommand, "")
	h, c := newTestHooks(t, r, nil, status.Status{Database: "shop", Table: "orders", Elapsed: 1500 * time.Millisecond,
		RowsCopied: 0, RowsEstimate: 10, InspectedHost: "10.0.0.1:3307", PrimaryHost: "db1:3306", HeartbeatLag: -1})
	if err := h.InteractiveCommand("chunk-size=500"); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	want := map[string]string{
		"GH_OST_DATABASE_NAME": "shop", "GH_OST_TABLE_NAME": "orders", "GH_OST_GHOST_TABLE_NAME": "_orders_gho",
		"GH_OST_OLD_TABLE_NAME": "_orders_del", "GH_OST_DDL": "ADD COLUMN c INT", "GH_OST_ELAPSED_SECONDS": "1.500000",
		"GH_OST_ELAPSED_COPY_SECONDS": "0.000000", "GH_OST_ESTIMATED_ROWS": "10", "GH_OST_COPIED_ROWS": "0",
		"GH_OST_MIGRATED_HOST": "db1", "GH_OST_INSPECTED_HOST": "10.0.0.1", "GH_OST_EXECUTING_HOST": host,
		"GH_OST_INSPECTED_LAG": "0.000000", "GH_OST_HEARTBEAT_LAG": "0.000000", "GH_OST_PROGRESS": "0.000000",
		"GH_OST_ETA_SECONDS": strconv.FormatInt(math.MinInt64, 10), "GH_OST_HOOKS_HINT": "hint",
		"GH_OST_HOOKS_HINT_OWNER": "owner", "GH_OST_HOOKS_HINT_TOKEN": "token", "GH_OST_DRY_RUN": "true",
		"GH_OST_REVERT": "false", "GH_OST_COMMAND": "'chunk-size=500'", // gh-ost's quotes, part of the value
	}
	if got := r.env(OnInteractiveCommand); !mapsEqual(got, want) {
		t.Fatalf("environment:\n got %v\nwant %v", got, want)
	}

	c.mu.Lock()
	c.st.RowsCopied, c.st.CopyDone, c.st.HeartbeatLag = 10, true, 250*time.Millisecond
	c.st.GhostTable, c.st.OldTable = "_orders_gho", "_orders_20260101000000_del"
	c.mu.Unlock()
	if err := h.Step(context.Background(), observe.StepSuccess); err != nil { // no on-success installed: nothing runs
		t.Fatal(err)
	}
	r.install(OnSuccess, "")
	if err := h.Step(context.Background(), observe.StepSuccess); err != nil {
		t.Fatal(err)
	}
	got := r.env(OnSuccess)
	for k, v := range map[string]string{"GH_OST_PROGRESS": "100.000000", "GH_OST_ETA_SECONDS": "0", "GH_OST_COPIED_ROWS": "10",
		"GH_OST_HEARTBEAT_LAG": "0.250000", "GH_OST_OLD_TABLE_NAME": "_orders_20260101000000_del"} {
		if got[k] != v {
			t.Errorf("%s=%q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["GH_OST_COMMAND"]; ok {
		t.Error("GH_OST_COMMAND outside on-interactive-command")
	}
	if got["GH_OST_INSTANT_DDL"] != "false" {
		t.Errorf("on-success after a copy: GH_OST_INSTANT_DDL=%q, want false", got["GH_OST_INSTANT_DDL"])
	}
	c.mu.Lock()
	c.st.Instant = true
	c.mu.Unlock()
	h.cfg.Revert = true
	if err := h.Step(context.Background(), observe.StepSuccess); err != nil {
		t.Fatal(err)
	}
	if got := r.envs(OnSuccess); got[len(got)-1]["GH_OST_INSTANT_DDL"] != "true" || got[len(got)-1]["GH_OST_REVERT"] != "true" {
		t.Errorf("on-success after an instant ALTER of a --revert: GH_OST_INSTANT_DDL=%q GH_OST_REVERT=%q, want true, true",
			got[len(got)-1]["GH_OST_INSTANT_DDL"], got[len(got)-1]["GH_OST_REVERT"])
	}
	if _, ok := r.env(OnInteractiveCommand)["GH_OST_INSTANT_DDL"]; ok {
		t.Error("GH_OST_INSTANT_DDL outside on-success")
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// on-status runs at the first status tick StatusInterval after the start, then not again
// within StatusInterval; GH_OST_STATUS is the status line.
func TestStatusInterval(t *testing.T) {
	r := newRecorder(t)
	r.install(OnStatus, "")
	h, _ := newTestHooks(t, r, nil, status.Status{})
	h.cfg.StatusInterval = time.Minute
	t0 := time.Now()
	h.PhaseChanged(observe.PhaseChange{Phase: status.PhasePrepare, At: t0})
	for _, at := range []time.Duration{10 * time.Second, 59 * time.Second, 61 * time.Second, 90 * time.Second} {
		h.Event(observe.Event{Kind: observe.EventStatus, At: t0.Add(at), Detail: "line at " + at.String()})
		h.Wait()
	}
	envs := r.envs(OnStatus)
	if len(envs) != 1 || envs[0]["GH_OST_STATUS"] != "'line at 1m1s'" {
		t.Fatalf("on-status ran with %v, want once, at 61s", envs)
	}
}

// Without --hooks-path nothing runs and nothing fails.
func TestNoHooksPath(t *testing.T) {
	h := New(Config{}, &fakeControls{})
	if err := h.Step(context.Background(), observe.StepStartup); err != nil {
		t.Fatal(err)
	}
	if err := h.InteractiveCommand("sup"); err != nil {
		t.Fatal(err)
	}
}

// Each step runs its hook, and only it; the hooks that do not steer the run are not run by a
// step, and the phases and events the steps replace run nothing (each hook runs once per moment).
func TestStepsRunTheirHooks(t *testing.T) {
	r := newRecorder(t)
	for _, name := range allHooks {
		r.install(name, "exit 4")
	}
	h, _ := newTestHooks(t, r, nil, status.Status{})
	// What the migrator announces around the steps: none of it runs a step's hook.
	for _, p := range []status.Phase{status.PhasePrepare, status.PhaseCopy, status.PhaseCutOver, status.PhaseDone} {
		h.PhaseChanged(observe.PhaseChange{Phase: p})
	}
	for _, k := range []observe.EventKind{observe.EventValidated, observe.EventBeforeRowCopy, observe.EventRowCopyComplete, observe.EventCutOverAttempt} {
		h.Event(observe.Event{Kind: k})
	}
	if got := r.order(); len(got) != 0 {
		t.Fatalf("phases and events ran %q, want nothing (the steps run these hooks)", got)
	}
	for step, name := range map[observe.Step]string{observe.StepStartup: OnStartup, observe.StepValidated: OnValidated,
		observe.StepBeforeRowCopy: OnBeforeRowCopy, observe.StepRowCopyComplete: OnRowCopyComplete,
		observe.StepBeforeCutOver: OnBeforeCutOver, observe.StepSuccess: OnSuccess} {
		before := len(r.order())
		err := h.Step(context.Background(), step)
		if want := "hook " + filepath.Join(r.dir, name) + " exited with status 4"; err == nil || err.Error() != want {
			t.Errorf("step %s: got %v, want %q", step, err, want)
		}
		if got := r.order()[before:]; !slices.Equal(got, []string{name}) {
			t.Errorf("step %s ran %q, want only %s", step, got, name)
		}
	}
	if err := h.Step(context.Background(), observe.Step(99)); err != nil {
		t.Errorf("an unknown step: %v", err)
	}
}

// A hook that cannot run (not executable) fails its step in one line naming the file.
func TestHookThatCannotRun(t *testing.T) {
	r := newRecorder(t)
	r.install(OnValidated, "")
	if err := os.Chmod(filepath.Join(r.dir, OnValidated), 0o644); err != nil {
		t.Fatal(err)
	}
	h, _ := newTestHooks(t, r, nil, status.Status{})
	err := h.Step(context.Background(), observe.StepValidated)
	if err == nil || !strings.HasPrefix(err.Error(), "hook "+filepath.Join(r.dir, OnValidated)+" could not run: ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v, want one line saying the hook could not run", err)
	}
}
