// Package hooks runs gh-ost's hook scripts at the moments of a migration: every executable in
// --hooks-path whose name starts with gh-ost-on-<event> (gh-ost-on-startup, gh-ost-on-success,
// ...) runs, in name order, with the GH_OST_* environment that describes the run. It is a step
// gate of the run (observe.Step, for the Migrator's GateStep), an observer of it
// (observe.EventObserver) for the hooks that do not steer it, and the interactive commands' gate
// (InteractiveCommand): it reads status.Status and never reaches into the run.
//
// Invariants:
//   - a hook runs at most Config.Timeout; then it and the processes it started are killed;
//   - its combined output goes to the log (bounded), never to the migration's own output;
//   - the password is never in its environment (only the process's own environment and the
//     GH_OST_* variables, none of which carries a credential);
//   - failures have gh-ost's effects: a non-zero exit or a timeout of gh-ost-on-startup,
//     on-validated, on-before-row-copy, on-row-copy-complete, on-before-cut-over or
//     on-stop-replication aborts the migration (before its cut-over: the original untouched);
//     of on-success makes the run return an error though the migration is done; of
//     on-interactive-command rejects the command. Every other hook's failure (on-status,
//     on-rowcount-complete, on-begin-postponed, on-start-replication, on-failure) is logged and
//     the run goes on;
//   - the error of a failed hook is one line naming its file and its exit status (or timeout);
//   - a hook runs synchronously where its moment happens (the run waits for it), except
//     on-status, which runs beside the run: at most one at a time, a tick is skipped while one runs.
package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/observe"
)

// The hooks' file-name prefixes, gh-ost's.
const (
	OnStartup            = "gh-ost-on-startup"
	OnValidated          = "gh-ost-on-validated"
	OnRowCountComplete   = "gh-ost-on-rowcount-complete"
	OnBeforeRowCopy      = "gh-ost-on-before-row-copy"
	OnStatus             = "gh-ost-on-status"
	OnInteractiveCommand = "gh-ost-on-interactive-command"
	OnRowCopyComplete    = "gh-ost-on-row-copy-complete"
	OnStopReplication    = "gh-ost-on-stop-replication"
	OnStartReplication   = "gh-ost-on-start-replication"
	OnBeginPostponed     = "gh-ost-on-begin-postponed"
	OnBeforeCutOver      = "gh-ost-on-before-cut-over"
	OnSuccess            = "gh-ost-on-success"
	OnFailure            = "gh-ost-on-failure"
)

// Defaults.
const (
	DefaultStatusInterval = 60 * time.Second // --hooks-status-interval, gh-ost's
	DefaultTimeout        = time.Minute      // how long one hook may run
	maxOutput             = 64 << 10         // bytes of a hook's output kept for the log
)

// Config says where the hooks are and what they are told.
type Config struct {
	Path string // --hooks-path: the directory of the hooks; "" runs none

	// Hint, HintOwner and HintToken are passed as GH_OST_HOOKS_HINT, _OWNER and _TOKEN
	// (--hooks-hint, --hooks-hint-owner, --hooks-hint-token).
	Hint, HintOwner, HintToken string
	// StatusInterval is the least time between two gh-ost-on-status runs (--hooks-status-interval).
	StatusInterval time.Duration
	// Timeout bounds one hook's run; zero means DefaultTimeout.
	Timeout time.Duration

	Alter  string // GH_OST_DDL: the --alter text
	DryRun bool   // GH_OST_DRY_RUN: no --execute
	Revert bool   // GH_OST_REVERT: --revert

	Logger zerolog.Logger
}

// Hooks runs the hooks of one migration. Register it with Migrator.Observe(h) and
// Migrator.GateStep(h.Step).
type Hooks struct {
	cfg      Config
	controls observe.Controls
	log      zerolog.Logger
	host     string // GH_OST_EXECUTING_HOST

	mu            sync.Mutex // guards the fields below
	nextStatus    time.Time  // on-status runs at the first status tick from here
	statusRunning bool

	status sync.WaitGroup // the on-status hook running beside the run, if any
}

var _ observe.EventObserver = (*Hooks)(nil)

// New returns the hooks of the migration that c controls.
func New(cfg Config, c observe.Controls) *Hooks {
	if cfg.StatusInterval <= 0 {
		cfg.StatusInterval = DefaultStatusInterval
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	host, _ := os.Hostname()
	return &Hooks{cfg: cfg, controls: c, host: host,
		log: cfg.Logger.With().Str("component", "hooks").Logger()}
}

// Wait waits for an on-status hook still running. Call it after the run.
func (h *Hooks) Wait() { h.status.Wait() }

// files lists the hooks for prefix, in name order: regular files and links to them.
func (h *Hooks) files(prefix string) ([]string, error) {
	if h.cfg.Path == "" {
		return nil, nil
	}
	dir, err := checkDir(h.cfg.Path) // safety.go: owner and mode, again before every hook
	if err != nil {
		return nil, fmt.Errorf("no hook runs: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read --hooks-path %s: %w", h.cfg.Path, err)
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		path, err := hookFile(dir, e.Name()) // safety.go
		if err != nil {
			h.log.Warn().Err(err).Msgf("hook %s not run", e.Name())
			continue
		}
		out = append(out, path)
	}
	slices.Sort(out)
	return out, nil
}

// run runs every hook for prefix with the run's environment plus extra, one after the other,
// and returns the first failure (the later hooks still run).
func (h *Hooks) run(ctx context.Context, prefix string, extra ...string) error {
	files, err := h.files(prefix)
	if err != nil {
		h.log.Warn().Err(err).Msgf("hooks %s* not run", prefix)
		return err
	}
	if len(files) == 0 {
		return nil
	}
	env := append(os.Environ(), h.environment()...)
	env = append(env, extra...)
	var first error
	for _, f := range files {
		if err := h.runOne(ctx, f, env); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// runOne runs one hook within the timeout and logs its output.
func (h *Hooks) runOne(ctx context.Context, file string, env []string) error {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, file)
	cmd.Env = env
	cmd.Dir = h.cfg.Path
	out := &boundedBuffer{limit: maxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, so a timeout kills what it started too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	began := time.Now()
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		// The hook exited 0 but left a background process holding its output open: the hook
		// succeeded; what the child writes later is not captured.
		h.log.Warn().Str("hook", filepath.Base(file)).Msg("the hook exited 0 but left a process running that holds its output open; its later output is not logged")
		err = nil
	}
	took := time.Since(began).Round(time.Millisecond)
	name := filepath.Base(file)
	shown := filepath.Join(h.cfg.Path, name) // as the user gave --hooks-path
	ev := h.log.Info()
	if err != nil {
		ev = h.log.Warn().Err(err)
	}
	ev = ev.Str("hook", name).Str("took", took.String())
	if output := strings.TrimSpace(out.String()); output != "" {
		ev = ev.Str("output", output)
	}
	ev.Msgf("hook %s ran", name)
	if err == nil {
		return nil
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("hook %s ran longer than %s and was killed", shown, h.cfg.Timeout)
	}
	return failure(shown, err)
}

// failure is the one-line error of the hook file that failed with err (from exec.Cmd.Run).
func failure(file string, err error) error {
	var exit *exec.ExitError
	switch {
	case !errors.As(err, &exit):
		return fmt.Errorf("hook %s could not run: %w", file, err)
	case exit.ExitCode() >= 0:
		return fmt.Errorf("hook %s exited with status %d", file, exit.ExitCode())
	}
	return fmt.Errorf("hook %s was stopped: %w", file, err) // a signal: "signal: killed"
}

// boundedBuffer keeps the first limit bytes written to it and counts the rest.
type boundedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	limit   int
	dropped int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := b.limit - b.buf.Len()
	if room >= len(p) {
		b.buf.Write(p)
	} else {
		b.buf.Write(p[:max(room, 0)])
		b.dropped += len(p) - max(room, 0)
	}
	return len(p), nil
}

func (b *boundedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped > 0 {
		return fmt.Sprintf("%s... (%d more bytes)", b.buf.String(), b.dropped)
	}
	return b.buf.String()
}
