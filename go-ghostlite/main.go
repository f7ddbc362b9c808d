// Command go-ghostlite runs one online schema migration of a MySQL or MariaDB table.
//
// This package is only the command line: flags (named as gh-ost's) -> config.Config, the
// logger, signal handling and exit codes, and the observers wired around the run (the interactive
// commands' server, the terminal's progress line). The migration itself is the migrator package's.
//
// Invariants:
//   - exit codes: 0 success (and --help, --version, and --check-flag when every flag given exists),
//     1 failure (any error from the migration, including refusals found on the server; and
//     --check-flag when a flag given does not exist), 2 bad usage (a flag that cannot be parsed,
//     or an error wrapping config.ErrUsage from migrator.New);
//   - the error that ends the run is the last line on stderr, one line: "FATAL <message>" (gh-ost's
//     level word; a server error's own text first, as gh-ost's, the tool's context after it), or
//     with --log-format=json a JSON line of level "fatal" with that message;
//     --stack adds detail;
//   - with --log-format=json every line the tool writes on stdout and stderr is JSON, from the
//     start (errors in the command line included) to the exit; --help and --version excepted;
//   - every gh-ost flag is accepted; one that has no meaning here is logged as ignored, with why;
//   - the first SIGINT/SIGTERM cancels the migration's context (the migrator cleans up); a second
//     one exits at once with code 1.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/control"
	"github.com/go-ghostlite/go-ghostlite/migrator"
	"github.com/go-ghostlite/go-ghostlite/observe"
)

// version is set at build time: go build -ldflags "-X main.version=1.2.3".
var version = "dev"

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	if err := hidePasswordArgs(os.Args[1:]); err != nil {
		warnLine(os.Stderr, logFormatOf(os.Args[1:]), fmt.Sprintf("%v; the password stays visible in the process list", err))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole program but for os.Exit: it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	report := fatalReporter(stderr, logFormatOf(args))
	inv, err := parseArgs(args, stdout, stderr)
	var checkFailed *checkFlagError
	if errors.As(err, &checkFailed) {
		return report(err, false, exitFailure)
	}
	if err != nil {
		return report(err, false, exitUsage)
	}
	if inv.Action == actionAttach {
		if err := attach(inv.Attach, stdout, 500*time.Millisecond); err != nil {
			return report(err, false, exitFailure)
		}
		return exitOK
	}
	if inv.Action != actionRun {
		return exitOK
	}
	routeLibraryLogs(inv.Config.Logger)
	if inv.Tables != nil { // --statement naming several tables (tableset.go)
		ctx, stop := signalContext(context.Background(), inv.Config.Logger, os.Exit)
		defer stop()
		code, err := failure(runTableSet(ctx, inv))
		if err != nil {
			return report(err, inv.Stack, code)
		}
		return code
	}
	rec := newReceipt(inv, args) // receipt.go: nil without --receipt
	m, err := migrator.New(inv.Config)
	end := func(code int, err error) int {
		writeReceipt(rec, inv, m, code, err)
		if err != nil {
			return report(err, inv.Stack, code)
		}
		return code
	}
	if err != nil {
		return end(failure(err))
	}
	m.SetCutOverSeams(inv.CutOverSeams)
	if rec != nil {
		m.Observe(rec)
	}
	obs, err := attachObservers(inv, m)
	if err != nil {
		return end(exitFailure, err)
	}
	defer obs.close()
	ctx, stop := signalContext(context.Background(), inv.Config.Logger, os.Exit)
	defer stop()
	if err := runObserved(ctx, inv, m, obs); err != nil {
		return end(exitFailure, err)
	}
	return end(exitOK, nil)
}

// failure is the exit code of a run that ended with err, and err as reported: none exits 0, a
// usage error (config.ErrUsage) exits 2 and points at --help, any other exits 1.
func failure(err error) (int, error) {
	switch {
	case err == nil:
		return exitOK, nil
	case errors.Is(err, config.ErrUsage):
		return exitUsage, fmt.Errorf("%w (see go-ghostlite --help)", err)
	}
	return exitFailure, err
}

// runObserved runs the migration with its observers around it (serveAndRun); each interactive
// command first runs the on-interactive-command hooks, whose failure rejects it.
func runObserved(ctx context.Context, inv invocation, m *migrator.Migrator, obs *observers) error {
	var onCommand func(string) error
	if obs != nil && obs.hooks != nil {
		onCommand = obs.hooks.InteractiveCommand
	}
	return serveAndRun(ctx, inv, m, onCommand, m.Run)
}

// serveAndRun runs run (one migration's, or a set's) with the interactive commands' server on
// c (not for --recover-cut-over, which migrates nothing; onCommand, when set, is asked before
// each command) and, on a terminal, the progress line of c's status.
func serveAndRun(ctx context.Context, inv invocation, c observe.Controls, onCommand func(string) error, run func(context.Context) error) error {
	if !inv.Config.RecoverCutOver {
		srv := control.New(inv.Control, c)
		srv.OnCommand = onCommand
		if err := srv.Start(); err != nil {
			return err
		}
		defer func() {
			if err := srv.Close(); err != nil {
				inv.Config.Logger.Warn().Err(err).Msg("interactive commands' server")
			}
		}()
	}
	if inv.Progress != nil {
		stopProgress := make(chan struct{})
		done := make(chan struct{})
		go func() { inv.Progress.follow(c.Status, 500*time.Millisecond, stopProgress); close(done) }()
		defer func() { close(stopProgress); <-done }()
	}
	return run(ctx)
}
