package migrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrPanicFlag is returned when --panic-flag-file appears: the migration stops at once.
var ErrPanicFlag = errors.New("panic flag file found")

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// postponing reports whether the cut-over is held back: --postpone-cut-over-flag-file exists or
// the operator postponed it (Controls.Postpone).
func (m *Migrator) postponing() bool {
	if m.levers.postponed.Load() {
		return true
	}
	path := m.cfg.PostponeCutOverFlagFile
	return path != "" && fileExists(path)
}

// awaitUnpostponed waits while the cut-over is postponed. The applier keeps the ghost in sync
// meanwhile; the run is in status.PhasePostponed (run.go's postponeCutOver: the changelog's state row
// says "postponed" so scripts can tell).
func (m *Migrator) awaitUnpostponed(ctx context.Context) error {
	path := m.cfg.PostponeCutOverFlagFile
	m.log.Info().Str("flag_file", path).Msg("cut-over postponed while the flag file exists or until unpostponed (delete the file, or send unpostpone, to cut over)")
	t := time.NewTicker(m.cfg.FlagFileInterval)
	defer t.Stop()
	for m.postponing() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	m.log.Info().Str("flag_file", path).Msg("cut-over no longer postponed; cutting over")
	return nil
}

// watchPanicFlag returns ErrPanicFlag when --panic-flag-file appears, ErrPanicked after
// Controls.Panic, nil when ctx ends first.
func (m *Migrator) watchPanicFlag(ctx context.Context) error {
	path := m.cfg.PanicFlagFile
	t := time.NewTicker(m.cfg.FlagFileInterval)
	defer t.Stop()
	for {
		if path != "" && fileExists(path) {
			return fmt.Errorf("%w: %s exists; aborting, the original table is untouched", ErrPanicFlag, path)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-m.levers.panicked:
			return m.levers.panicError()
		case <-t.C:
		}
	}
}
