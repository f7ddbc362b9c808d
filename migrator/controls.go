package migrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/go-ghostlite/go-ghostlite/copier"
	"github.com/go-ghostlite/go-ghostlite/status"
	"github.com/go-ghostlite/go-ghostlite/throttle"
)

// ErrUnknownKnob is returned (wrapped) by Get and Set for a name that is not a setting.
var ErrUnknownKnob = errors.New("unknown setting")

// ErrPanicked is the run's error after Panic.
var ErrPanicked = errors.New("panic requested")

// knob is one setting an operator may read and change while the migration runs.
type knob struct {
	get func() string
	set func(string) error
}

// levers are the state Controls changes: created with the Migrator, read by the run.
type levers struct {
	mu    sync.Mutex
	knobs map[string]knob

	chunkSize    *copier.Knobs
	dmlBatchSize atomic.Int64
	monitor      *throttle.Monitor // the throttle: its settings, readings and rules (throttle.go)
	postponed    atomic.Bool       // a commanded postponement (the flag file is checked apart)

	panicOnce sync.Once
	panicked  chan struct{} // closed by Panic
	panicWhy  atomic.Pointer[string]
}

// newLevers sets up m's levers from its configuration.
func (m *Migrator) newLevers() *levers {
	l := &levers{knobs: map[string]knob{}, chunkSize: copier.NewKnobs(m.cfg.ChunkSize), panicked: make(chan struct{})}
	l.dmlBatchSize.Store(int64(m.cfg.DMLBatchSize))
	l.monitor = m.newThrottleMonitor(l)
	l.register("chunk-size", intKnob(10, 100000, l.chunkSize.ChunkSize, l.chunkSize.FixChunkSize))
	l.register("dml-batch-size", intKnob(1, 100, func() int { return int(l.dmlBatchSize.Load()) }, func(n int) {
		l.dmlBatchSize.Store(int64(n))
		if a := m.applier(); a != nil {
			a.SetDMLBatchSize(n)
		}
	}))
	return l
}

// register adds a setting; a later registration of the same name replaces it.
func (l *levers) register(name string, k knob) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.knobs[name] = k
}

func (l *levers) knob(name string) (knob, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k, ok := l.knobs[name]
	if !ok {
		return knob{}, fmt.Errorf("%w %q", ErrUnknownKnob, name)
	}
	return k, nil
}

// intKnob is a whole-number setting within [lo, hi].
func intKnob(lo, hi int, get func() int, set func(int)) knob {
	return knob{
		get: func() string { return strconv.Itoa(get()) },
		set: func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < lo || n > hi {
				return fmt.Errorf("%q is not a whole number from %d to %d", v, lo, hi)
			}
			set(n)
			return nil
		},
	}
}

// Knobs implements Controls.
func (m *Migrator) Knobs() []string {
	m.levers.mu.Lock()
	defer m.levers.mu.Unlock()
	names := make([]string, 0, len(m.levers.knobs))
	for name := range m.levers.knobs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Get implements Controls.
func (m *Migrator) Get(name string) (string, error) {
	k, err := m.levers.knob(name)
	if err != nil {
		return "", err
	}
	return k.get(), nil
}

// Set implements Controls.
func (m *Migrator) Set(name, value string) error {
	k, err := m.levers.knob(name)
	if err != nil {
		return err
	}
	if err := k.set(value); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	m.log.Info().Str("setting", name).Str("value", k.get()).Msg("setting changed")
	return nil
}

// Throttle implements Controls.
func (m *Migrator) Throttle(on bool) {
	m.levers.monitor.Command(on)
	if ph, _ := m.phases.Current(); ph == status.PhaseCopy { // the reply's status reflects the command
		m.levers.monitor.Refresh(context.Background())
	}
	m.log.Info().Bool("throttle", on).Msg("throttle set by the operator")
}

// Postpone implements Controls.
func (m *Migrator) Postpone(on bool) error {
	m.levers.postponed.Store(on)
	m.log.Info().Bool("postpone", on).Msg("cut-over postponement set by the operator")
	if on || m.cfg.PostponeCutOverFlagFile == "" {
		return nil
	}
	// Only a file is removed: os.Remove would delete an empty directory given by mistake too.
	if fi, err := os.Lstat(m.cfg.PostponeCutOverFlagFile); err == nil && fi.IsDir() {
		return fmt.Errorf("the postpone flag file %s is a directory: not removed; remove it yourself to let the cut-over go", m.cfg.PostponeCutOverFlagFile)
	}
	if err := os.Remove(m.cfg.PostponeCutOverFlagFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the postpone flag file: %w", err)
	}
	return nil
}

// Panic implements Controls.
func (m *Migrator) Panic(reason string) {
	m.levers.panicOnce.Do(func() {
		m.levers.panicWhy.Store(&reason)
		close(m.levers.panicked)
	})
}

// panicError is the run's error after Panic.
func (l *levers) panicError() error {
	why := ""
	if p := l.panicWhy.Load(); p != nil && *p != "" {
		why = ": " + *p
	}
	return fmt.Errorf("%w%s; aborting, the original table is untouched", ErrPanicked, why)
}
