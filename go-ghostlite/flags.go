package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/control"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// action is what the command line asks for besides (or instead of) a migration.
type action int

const (
	actionRun       action = iota // run the migration (or the dry run)
	actionHelp                    // --help was given: the help text is printed, nothing else happens
	actionVersion                 // --version was given: the version is printed, nothing else happens
	actionCheckFlag               // --check-flag was given and every flag exists: nothing else happens
)

// invocation is the result of reading the command line.
type invocation struct {
	Config migrator.Config
	Action action
	Stack  bool // --stack: print the error chain in detail on failure

	Hooks   hooksFlags   // the hooks' settings (observers.go)
	Metrics metricsFlags // the metrics endpoint's settings (observers.go)
	// Control configures the interactive commands' server (flags_control.go).
	Control control.Config
	// Progress draws a progress line at the bottom of a terminal (progress.go); nil when stderr is
	// not one, or the log is JSON.
	Progress *progressLine
}

// flagValues holds the flags that do not map one to one onto a migrator.Config field.
type flagValues struct {
	conf               string
	heartbeatMillis    int64
	cutOverLockSeconds int64
	backoffMaxSeconds  int64
	logFormat          string
	verbose            bool
	debug              bool
	quiet              bool
	stack              bool
	version            bool
	help               bool
	hooks              hooksFlags      // flags_hooks.go
	metrics            metricsFlags    // flags_metrics.go
	control            controlFlags    // flags_control.go
	checkpoint         checkpointFlags // flags_checkpoint.go
	compat             compatFlags     // flags_compat.go
	security           securityFlags   // flags_security.go
}

// newFlagSet registers every flag: each writes into cfg or v.
func newFlagSet(cfg *migrator.Config, v *flagValues) *pflag.FlagSet {
	d := migrator.DefaultConfig()
	fs := pflag.NewFlagSet("go-ghostlite", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard) // errors are reported by the caller, on one line
	fs.Usage = func() {}

	// where and what
	fs.StringVar(&cfg.Conn.Host, "host", d.Conn.Host, "server to connect to; its binary log is read (a replica, or the primary with --allow-on-master)")
	fs.IntVar(&cfg.Conn.Port, "port", d.Conn.Port, "port of --host")
	fs.StringVar(&cfg.Conn.User, "user", "", "user name (overrides the one in --conf)")
	fs.StringVar(&cfg.Conn.Password, "password", "", "password (overrides the one in --conf)")
	fs.StringVar(&v.conf, "conf", "", "my.cnf-style file whose [client] section gives user and password")
	fs.StringVar(&cfg.Database, "database", "", "database (schema) of the table to migrate (required)")
	fs.StringVar(&cfg.Table, "table", "", "table to migrate (required)")
	fs.StringVar(&cfg.Alter, "alter", "", `the change to make, as ALTER TABLE clauses, e.g. "ADD COLUMN c INT NULL" (required)`)
	fs.BoolVar(&cfg.Execute, "execute", false, "really migrate; without it the run only checks that the migration can be done (dry run)")

	// topology and checks
	fs.BoolVar(&cfg.AllowOnMaster, "allow-on-master", false, "allow --host to be the primary (read its binary log instead of a replica's)")
	fs.StringVar(&cfg.AssumeMasterHost, "assume-master-host", "", "host[:port] of the primary, instead of finding it from the replica")
	fs.BoolVar(&cfg.AssumeRBR, "assume-rbr", false, "do not check binlog_format on --host (row-based binary logs are still required)")
	fs.BoolVar(&cfg.UseGTID, "gtid", false, "position the binary log reader by GTID instead of file and position")
	fs.Uint32Var(&cfg.ReplicaServerID, "replica-server-id", d.ReplicaServerID, "server id of the binary log reader; must be unique among the servers' replicas")
	fs.Int64Var(&v.heartbeatMillis, "heartbeat-interval-millis", d.HeartbeatInterval.Milliseconds(), "how often to write a heartbeat into the changelog table, in milliseconds")
	fs.BoolVar(&cfg.AllowPlugins, "allow-lock-bypassing-plugins", false, "run even when a plugin that bypasses LOCK TABLES (such as HandlerSocket) is installed")
	fs.BoolVar(&cfg.SkipMetadataLockCheck, "skip-metadata-lock-check", false, "run even when performance_schema does not show metadata locks (the cut-over then checks the processlist only; not with --cut-over=atomic)")
	fs.BoolVar(&cfg.AllowSetupMetadataLockInstruments, "allow-setup-metadata-lock-instruments", false, "let the run turn on performance_schema's metadata lock instrument when it is off (until the server restarts)")

	fs.BoolVar(&cfg.MigrateOnReplica, "migrate-on-replica", false, "run the whole migration on the replica given by --host (tables created, copied and cut over there)")
	fs.BoolVar(&cfg.TestOnReplica, "test-on-replica", false, "test the migration on the replica: stop replication, cut over, then swap the tables back (both kept for comparison)")
	fs.BoolVar(&cfg.TestOnReplicaSkipReplicaStop, "test-on-replica-skip-replica-stop", false, "with --test-on-replica, do not stop replication (it is already stopped or must not be)")

	// copy and apply
	fs.IntVar(&cfg.ChunkSize, "chunk-size", d.ChunkSize, "rows copied per chunk (10 to 100000); given, every chunk has that many rows (gh-ost), else chunks start there and follow --chunk-time")
	fs.IntVar(&cfg.DMLBatchSize, "dml-batch-size", d.DMLBatchSize, "binary log row events applied per transaction (1 to 100)")
	fs.IntVar(&cfg.DefaultRetries, "default-retries", d.DefaultRetries, "attempts of an operation that failed (a chunk copy, the cut-over) before giving up")
	fs.BoolVar(&cfg.ExactRowcount, "exact-rowcount", false, "count the table's rows (SELECT COUNT(*)) for progress, instead of the optimizer's estimate")

	addAlterAndCutOverFlags(fs, cfg, v, d)
	addThrottleFlags(fs, cfg, d)
	addChecksumFlags(fs, cfg, d)
	addSpeedFlags(fs, cfg, d) // flags_speed.go

	addOutputFlags(fs, v)
	addControlFlags(fs, cfg, &v.control)
	addHooksFlags(fs, &v.hooks)
	addMetricsFlags(fs, &v.metrics)
	addCheckpointFlags(fs, cfg, d, &v.checkpoint)
	addCompatFlags(fs, cfg, &v.compat)
	addSecurityFlags(fs, cfg, &v.security)
	return fs
}

// addAlterAndCutOverFlags registers the flags about the ALTER itself, the tables left behind and
// the cut-over.
func addAlterAndCutOverFlags(fs *pflag.FlagSet, cfg *migrator.Config, v *flagValues, d migrator.Config) {
	// the ALTER
	fs.BoolVar(&cfg.ApproveRenamedColumns, "approve-renamed-columns", false, "a CHANGE COLUMN that renames a column is a rename: copy the old column's data into the new one")
	fs.BoolVar(&cfg.SkipRenamedColumns, "skip-renamed-columns", false, "a CHANGE COLUMN that renames a column drops it and adds a new one: its data is not copied")
	fs.BoolVar(&cfg.DiscardForeignKeys, "discard-foreign-keys", false, "create the ghost table without the original's foreign keys (they are lost)")
	fs.BoolVar(&cfg.SkipForeignKeyChecks, "skip-foreign-key-checks", false, "do not refuse a table that has or is referenced by foreign keys")
	fs.BoolVar(&cfg.AllowCascadingForeignKeysDataLoss, "allow-cascading-foreign-keys-data-loss", false, "migrate a table whose foreign keys have ON DELETE/UPDATE CASCADE or SET NULL, accepting that the rows those actions delete or change during the migration come back unchanged (see doc/flags.md)")
	fs.BoolVar(&cfg.AllowZeroInDate, "allow-zero-in-date", false, "run the ghost's CREATE/ALTER without NO_ZERO_IN_DATE,NO_ZERO_DATE in the server's global sql_mode (zero dates allowed)")
	fs.BoolVar(&cfg.SkipStrictMode, "skip-strict-mode", false, "run the ghost's CREATE/ALTER without STRICT_TRANS_TABLES/STRICT_ALL_TABLES in the server's global sql_mode (copy and apply stay strict)")
	fs.StringVar(&cfg.StorageEngine, "storage-engine", d.StorageEngine, "storage engine of the table (innodb is the only one supported)")

	// leftovers and the old table
	fs.BoolVar(&cfg.InitiallyDropGhostTable, "initially-drop-ghost-table", false, "drop a ghost table left by an earlier run before starting")
	fs.BoolVar(&cfg.InitiallyDropOldTable, "initially-drop-old-table", false, "drop an old table left by an earlier run before starting")
	fs.BoolVar(&cfg.InitiallyDropSocketFile, "initially-drop-socket-file", false, "remove a socket file left by an earlier run before starting")
	fs.BoolVar(&cfg.OkToDropTable, "ok-to-drop-table", false, "drop the old table after a successful cut-over")
	fs.BoolVar(&cfg.TimestampOldTable, "timestamp-old-table", false, "name the old table _<table>_<timestamp>_del instead of _<table>_del")

	// cut-over
	fs.StringVar(&cfg.CutOver, "cut-over", d.CutOver, "cut-over algorithm: "+cutover.Choices()+" (see doc/cut-over.md)")
	fs.Int64Var(&v.cutOverLockSeconds, "cut-over-lock-timeout-seconds", int64(d.CutOverLockTimeout/time.Second), "longest the cut-over may hold the table locked, in seconds")
	fs.BoolVar(&cfg.CutOverExponentialBackoff, "cut-over-exponential-backoff", false, "wait exponentially longer between cut-over attempts (instead of a fixed interval)")
	fs.Int64Var(&v.backoffMaxSeconds, "exponential-backoff-max-interval", int64(d.ExponentialBackoffMaxInterval/time.Second), "longest wait between cut-over attempts with --cut-over-exponential-backoff, in seconds")
	fs.BoolVar(&cfg.RecoverCutOver, "recover-cut-over", false, "after a run (or a --revert) died during the cut-over: restore the table's name, then exit (see doc/cut-over.md)")
	fs.StringVar(&cfg.PostponeCutOverFlagFile, "postpone-cut-over-flag-file", "", "while this file exists, the cut-over waits (the copy is done and the ghost kept in sync); delete it to cut over")
	fs.StringVar(&cfg.PanicFlagFile, "panic-flag-file", "", "when this file appears, abort the migration at once, leaving the original table untouched")
}

// addOutputFlags registers the flags of what the tool prints: logs, errors, version and help.
func addOutputFlags(fs *pflag.FlagSet, v *flagValues) {
	fs.StringVar(&v.logFormat, "log-format", "console", "log format on stderr: console or json")
	fs.BoolVar(&v.verbose, "verbose", false, "log progress (the default level, info)")
	fs.BoolVar(&v.debug, "debug", false, "log debug messages too")
	fs.BoolVar(&v.quiet, "quiet", false, "log errors only")
	fs.BoolVar(&v.stack, "stack", false, "on failure, also print the chain of wrapped errors")
	fs.BoolVar(&v.version, "version", false, "print the version and exit")
	fs.BoolVarP(&v.help, "help", "h", false, "print this help and exit")
}

// parseArgs reads the command line (without the program name) into a migrator.Config.
// --help and --version print to stdout and return their action. Every error it returns is a
// usage error: the caller exits 2. Logs go to stderr.
func parseArgs(args []string, stdout, stderr io.Writer) (invocation, error) {
	cfg := migrator.DefaultConfig()
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
	case v.compat.checkFlag:
		return invocation{Action: actionCheckFlag}, nil
	case v.help:
		writeHelp(stdout, fs)
		return invocation{Action: actionHelp}, nil
	case v.version:
		_, _ = fmt.Fprintf(stdout, "go-ghostlite %s\n", versionText())
		return invocation{Action: actionVersion}, nil
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
	if err := v.compat.apply(fs, &cfg); err != nil {
		return invocation{}, err
	}
	return invocation{Config: cfg, Action: actionRun, Stack: v.stack, Hooks: v.hooks, Metrics: v.metrics,
		Control: v.control.controlConfig(cfg), Progress: progress}, nil
}

// applyBasics reads --conf, the credentials and TLS settings, and checks and converts the flags
// that do not map one to one onto cfg (durations, the server id, the storage engine).
func (v *flagValues) applyBasics(fs *pflag.FlagSet, cfg *migrator.Config, stderr io.Writer) error {
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

	if err := checkRanges(fs); err != nil { // flags_ranges.go
		return err
	}
	if v.heartbeatMillis <= 0 {
		return fmt.Errorf("--heartbeat-interval-millis must be positive (got %d)", v.heartbeatMillis)
	}
	cfg.HeartbeatInterval = time.Duration(v.heartbeatMillis) * time.Millisecond
	cfg.CutOverLockTimeout = time.Duration(v.cutOverLockSeconds) * time.Second
	if step, err := strconv.Atoi(os.Getenv(testPauseEnv)); err == nil && step > 0 {
		cfg.CutOverSeams = pauseAtStep(stderr, v.logFormat, step)
	}
	if v.backoffMaxSeconds <= 0 {
		return fmt.Errorf("--exponential-backoff-max-interval must be positive (got %d)", v.backoffMaxSeconds)
	}
	cfg.ExponentialBackoffMaxInterval = time.Duration(v.backoffMaxSeconds) * time.Second
	if cfg.ReplicaServerID == 0 {
		return errors.New("--replica-server-id must not be 0")
	}
	if err := v.hooks.check(); err != nil {
		return err
	}
	if err := v.checkpoint.apply(cfg); err != nil {
		return err
	}
	cfg.StorageEngine = strings.ToLower(cfg.StorageEngine)
	if cfg.StorageEngine != "innodb" {
		return fmt.Errorf("--storage-engine=%s is not supported; only innodb is", cfg.StorageEngine)
	}
	return nil
}

// output builds the logger that --log-format, --verbose, --debug and --quiet ask for, writing to
// stderr, above the progress line when stderr is a terminal (progress is nil otherwise).
func (v *flagValues) output(stderr io.Writer) (zerolog.Logger, *progressLine, error) {
	level := zerolog.InfoLevel
	switch {
	case v.quiet && (v.verbose || v.debug):
		return zerolog.Logger{}, nil, errors.New("--quiet contradicts --verbose and --debug: give one")
	case v.quiet:
		level = zerolog.ErrorLevel
	case v.debug:
		level = zerolog.DebugLevel
	}
	progress := newProgressLine(stderr, v.logFormat)
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
		out = zerolog.ConsoleWriter{Out: w, NoColor: !isTerminal(w), TimeFormat: time.RFC3339, FieldsExclude: []string{migrator.StatusLogField}}
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
	if p, ok := w.(*progressLine); ok {
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
