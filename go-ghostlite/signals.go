package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
)

// signalContext returns a context that SIGINT or SIGTERM cancels; a second signal calls
// exit(1) at once. stop releases the signals and cancels the context.
func signalContext(parent context.Context, log zerolog.Logger, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	done := make(chan struct{})
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go watchSignals(ch, done, cancel, log, exit)
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
}

// watchSignals cancels on the first signal and exits on the second, until done is closed.
func watchSignals(ch <-chan os.Signal, done <-chan struct{}, cancel context.CancelFunc, log zerolog.Logger, exit func(int)) {
	select {
	case s := <-ch:
		log.Warn().Str("signal", s.String()).Msg("stopping the migration; signal again to exit at once")
		cancel()
	case <-done:
		return
	}
	select {
	case s := <-ch:
		log.Error().Str("signal", s.String()).Msg("second signal: exiting at once")
		exit(exitFailure)
	case <-done:
	}
}
