package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/control"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// action is what the command line asks for besides (or instead of) a migration.
type action int

const (
	actionRun       action = iota // run the migration (or the dry run)
	actionHelp                    // --help was given: the help text is printed, nothing else happens
	actionVersion                 // --version was given: the version is printed, nothing else happens
	actionCheckFlag               // --check-flag was given and every flag exists: nothing else happens
	actionAttach                  // --attach was given: draw a running migration's live view (attach.go)
)

// invocation is the result of reading the command line.
type invocation struct {
	// Config is the migration's: with a --statement of one statement, its table and ALTER are
	// Table and Alter, as if --table and --alter had been given (config.Config.PerTable).
	Config config.Config
	// Tables are the per-table configs of a --statement naming several tables (nil otherwise):
	// runTableSet runs them instead of the one migration of Config.
	Tables []config.Config
	Action action
	Stack  bool // --stack: print the error chain in detail on failure

	Hooks   hooksFlags   // the hooks' settings (observers.go)
	Metrics metricsFlags // the metrics endpoint's settings (observers.go)
	// Control configures the interactive commands' server (flags_control.go).
	Control control.Config
	// Progress draws the live view at the bottom of a terminal (progress.go); nil when stderr is
	// not one, the log is JSON, or --progress=false.
	Progress *liveView
	// CutOverSeams is the test seam testPauseEnv asks for (zero otherwise), for the Migrator.
	CutOverSeams cutover.TestSeams
	// Receipt is --receipt's file ("" without it; receipt.go).
	Receipt string
	// Attach is --attach's socket (actionAttach).
	Attach string
}

// flagValues holds the flags whose value is not a config.Config field (the table's own).
type flagValues struct {
	conf      string
	logFormat string
	verbose   bool
	debug     bool
	quiet     bool
	stack     bool
	version   bool
	help      bool
	checkFlag bool // --check-flag (flags_compat.go)
	// panicOnWarnings is gh-ost's --panic-on-warnings: always on here, the value changes nothing.
	panicOnWarnings bool
	// checkpointTestInterval is the hidden --checkpoint-interval-millis: tests checkpoint more
	// often than --checkpoint-seconds allows.
	checkpointTestInterval time.Duration
	hooks                  hooksFlags    // flags_hooks.go
	metrics                metricsFlags  // observers.go
	control                controlFlags  // flags_control.go
	security               securityFlags // flags_security.go
	receipt                string        // --receipt (receipt.go)
	progress               bool          // --progress (progress.go)
	attach                 string        // --attach (attach.go)
}

// parseArgs reads the command line (without the program name) into a config.Config.
// --help and --version print to stdout and return their action. Every error it returns is a
// usage error: the caller exits 2. Logs go to stderr.
func parseArgs(args []string, stdout, stderr io.Writer) (invocation, error) {
	cfg := config.Default()
	var v flagValues
	fs := newFlagSet(&cfg, &v)

	args = normalizeArgs(fs, args)
	if err := fs.Parse(args); err != nil {
		err = fmt.Errorf("%v (see go-ghostlite --help)", err)
		if checkFlagRequested(args) {
			return invocation{Action: actionCheckFlag}, &checkFlagError{err: err}
		}
		return invocation{}, err
	}
	switch {
	case v.checkFlag:
		return invocation{Action: actionCheckFlag}, nil
	case v.help:
		writeHelp(stdout, fs)
		return invocation{Action: actionHelp}, nil
	case v.version:
		_, _ = fmt.Fprintf(stdout, "go-ghostlite %s\n", versionText())
		return invocation{Action: actionVersion}, nil
	case v.attach != "":
		return invocation{Action: actionAttach, Attach: v.attach}, nil
	}
	if fs.NArg() > 0 {
		return invocation{}, fmt.Errorf("unexpected argument %q: quote values that contain spaces, e.g. --alter=\"ADD COLUMN c INT\"", fs.Arg(0))
	}

	if err := v.applyBasics(fs, &cfg, stderr); err != nil {
		return invocation{}, err
	}
	applyChunkDefaults(fs, &cfg)

	logger, progress, err := v.output(stderr)
	if err != nil {
		return invocation{}, err
	}
	cfg.Logger = logger
	warnIgnoredFlags(fs, cfg.Logger) // flags_compat.go
	tables, err := perTable(fs, cfg) // --statement: one config per table, or cfg itself
	if err != nil {
		return invocation{}, fmt.Errorf("%w (see go-ghostlite --help)", err)
	}
	if len(tables) == 1 {
		cfg = tables[0]
	}
	inv := invocation{Config: cfg, Action: actionRun, Stack: v.stack, Hooks: v.hooks, Metrics: v.metrics,
		Control: v.control.controlConfig(cfg), Progress: progress, CutOverSeams: v.pauseSeams(stderr), Receipt: v.receipt}
	if len(tables) > 1 {
		inv.Tables = tables
		named := cfg
		named.Table = setName(tables) // the set's name for the interactive commands (tableset.go)
		inv.Control = v.control.controlConfig(named)
	}
	return inv, nil
}

// perTable is cfg.PerTable(), but for an empty --statement given: PerTable reads an empty
// Statement as no --statement, the command line refuses it as a --statement without a statement.
func perTable(fs *pflag.FlagSet, cfg config.Config) ([]config.Config, error) {
	if fs.Changed("statement") && cfg.Statement == "" {
		_, err := config.ParseStatement("", cfg.Database)
		return nil, err
	}
	return cfg.PerTable()
}

// applyBasics reads --conf and the credentials and TLS settings, then checks every flag's
// range and runs the flags' own checks (flagtable.go).
func (v *flagValues) applyBasics(fs *pflag.FlagSet, cfg *config.Config, stderr io.Writer) error {
	if v.conf != "" {
		creds, err := readConfFile(v.conf)
		if err != nil {
			return err
		}
		if creds.hasUser && !fs.Changed("user") {
			cfg.Conn.User = creds.user
		}
		if creds.hasPassword && !fs.Changed("password") {
			cfg.Conn.Password = creds.password
		}
	}
	if err := v.security.apply(fs, cfg, os.Stdin, stderr); err != nil {
		return err
	}
	return checkFlags(fs, flagTargets{cfg, v})
}

// applyChunkDefaults keeps gh-ost's meaning of an explicit --chunk-size: a command line that
// gives it and not --chunk-time copies chunks of exactly that many rows. Without either, chunks
// start at --chunk-size's default and follow --chunk-time's default (doc/performance.md).
func applyChunkDefaults(fs *pflag.FlagSet, cfg *config.Config) {
	if fs.Changed("chunk-size") && !fs.Changed("chunk-time") {
		cfg.ChunkTime = 0
	}
}

// output builds the logger that --log-format, --verbose, --debug and --quiet ask for, writing to
// stderr, above the live view when stderr is a terminal and --progress is on (progress is nil
// otherwise).
func (v *flagValues) output(stderr io.Writer) (zerolog.Logger, *liveView, error) {
	level := zerolog.InfoLevel
	switch {
	case v.quiet && (v.verbose || v.debug):
		return zerolog.Logger{}, nil, errors.New("--quiet contradicts --verbose and --debug: give one")
	case v.quiet:
		level = zerolog.ErrorLevel
	case v.debug:
		level = zerolog.DebugLevel
	}
	progress := newLiveView(stderr, v.logFormat, v.progress)
	var out io.Writer = stderr
	if progress != nil {
		out = progress
	}
	logger, err := newLogger(out, v.logFormat, level)
	return logger, progress, err
}

// newLogger returns a zerolog logger on w in the given format ("console" or "json").
func newLogger(w io.Writer, format string, level zerolog.Level) (zerolog.Logger, error) {
	var out io.Writer
	switch format {
	case "json":
		out = w
	case "console":
		// The status line is the message: its named fields are for JSON only.
		out = zerolog.ConsoleWriter{Out: w, NoColor: !isTerminal(w), TimeFormat: time.RFC3339, FieldsExclude: []string{status.LogField}}
	default:
		return zerolog.Nop(), fmt.Errorf("--log-format=%s: use console or json", format)
	}
	// A duration logged with Dur shows its unit ("6.5s"), never bare milliseconds.
	zerolog.DurationFieldFormat = zerolog.DurationFormatString
	// Goroutines log at once (applier, copy, cut-over): one event is written whole, then the next,
	// whatever w is (a file, a pipe, a test's buffer).
	return zerolog.New(zerolog.SyncWriter(out)).Level(level).With().Timestamp().Logger(), nil
}

// isTerminal reports whether w is a character device (a terminal): only then is colour used.
func isTerminal(w io.Writer) bool {
	if p, ok := w.(*liveView); ok {
		w = p.out
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

const helpIntro = `go-ghostlite changes the schema of a live MySQL or MariaDB table without blocking its writes.
It builds a ghost table with the new schema, copies the rows into it in small chunks while
applying every change it reads from the binary log, then swaps the two tables in a short,
locked cut-over. Without --execute it only checks that the migration can be done (a dry run).

Usage:
  go-ghostlite --database=DB --table=TABLE --alter="CLAUSES" [flags]
  go-ghostlite --database=DB --statement="ALTER TABLE ... | CREATE INDEX ... | DROP INDEX ..." [flags]

Example:
  go-ghostlite --host=replica1 --conf=/etc/ghostlite.cnf --database=shop --table=orders \
    --alter="ADD COLUMN note VARCHAR(255) NULL" --execute

Exit codes: 0 success, 1 the migration failed or was refused by a check on the server,
2 bad usage (a flag that cannot be parsed, is missing, contradicts another, or is a gh-ost
flag not supported yet). See doc/flags.md and doc/exit-codes.md.

Flags, by topic (one dash or two; doc/flags.md has each in detail):
`

// testPauseEnv is a test seam, not a user setting (so neither a flag nor in doc/flags.md): when it
// holds a cut-over step number N, the process writes "test: paused before cut-over step N" to
// stderr before that step and blocks until it is killed or signalled (the chaos tests kill -9 it).
const testPauseEnv = "GHOSTLITE_TEST_PAUSE_AT_CUT_OVER_STEP"

// pauseSeams is the cut-over's test seams that testPauseEnv asks for: none when it is unset.
func (v *flagValues) pauseSeams(stderr io.Writer) cutover.TestSeams {
	if step, err := strconv.Atoi(os.Getenv(testPauseEnv)); err == nil && step > 0 {
		return pauseAtStep(stderr, v.logFormat, step)
	}
	return cutover.TestSeams{}
}

// pauseAtStep is the test seam installed by testPauseEnv; its line is in the log's format.
func pauseAtStep(w io.Writer, format string, step int) cutover.TestSeams {
	return cutover.TestSeams{BeforeStep: func(ctx context.Context, s cutover.Step, _ cutover.StepInfo) error {
		if int(s) != step {
			return nil
		}
		warnLine(w, format, fmt.Sprintf("test: paused before cut-over step %d", step))
		<-ctx.Done()
		return ctx.Err()
	}}
}
