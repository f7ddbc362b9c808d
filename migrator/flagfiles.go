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

// postponeCutOver waits while --postpone-cut-over-flag-file exists. The applier keeps the ghost in
// sync meanwhile; the changelog's state row says "postponed" so scripts can tell.
func (m *Migrator) postponeCutOver(ctx context.Context, s *session) error {
	path := m.cfg.PostponeCutOverFlagFile
	if path == "" || !fileExists(path) {
		return nil
	}
	m.writeState(ctx, s, "postponed")
	m.log.Info().Str("flag_file", path).Msg("row copy complete; cut-over postponed while the flag file exists (delete it to cut over)")
	t := time.NewTicker(m.cfg.FlagFileInterval)
	defer t.Stop()
	for fileExists(path) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	m.log.Info().Str("flag_file", path).Msg("postpone flag file removed; cutting over")
	return nil
}

// watchPanicFlag returns ErrPanicFlag when --panic-flag-file appears, nil when ctx ends first.
func (m *Migrator) watchPanicFlag(ctx context.Context) error {
	path := m.cfg.PanicFlagFile
	if path == "" {
		return nil
	}
	t := time.NewTicker(m.cfg.FlagFileInterval)
	defer t.Stop()
	for {
		if fileExists(path) {
			return fmt.Errorf("%w: %s exists; aborting, the original table is untouched", ErrPanicFlag, path)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
