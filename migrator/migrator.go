// Package migrator orchestrates one online schema migration as a run with typed phases
// (prepare, copy, postponed, checksum, cut-over, done, failed): it runs the checks of package
// preflight in their scopes (prepare.go), the ghost and changelog tables, and the order of the
// phases, the same for a fresh run, a --resume and a --revert, which differ only in their run kind
// (kind.go). It owns the state of the run and announces each phase change to observers (phase.go,
// package observe); the mechanisms live in binlogapply, copier, cutover and throttle, which never
// import one another. Every goroutine of a run belongs to its background group (background.go).
//
// Invariants:
//   - every phase change is announced in order, after it is recorded in the changelog's state row
//     and logged; observers hear about the run, they never steer it;
//   - the original table is never written or renamed before the cut-over (but for the
//     ALGORITHM=INSTANT ALTER of --attempt-instant-ddl, which then replaces the whole migration),
//     and after any failure it is left in place, under its name, with its data;
//   - a per-table GET_LOCK mutex, held on a dedicated connection for the whole run, keeps two
//     migrations off one table;
//   - the binlog reader is positioned before the first row is copied;
//   - the copy uses INSERT IGNORE ... SELECT and a chunk is done only when proven complete: no
//     warning at all, or a full warning list of duplicate keys only and every row of the chunk
//     present in the ghost by its shared key (package copier); any other warning fails the run, so
//     no row is merged, dropped or truncated silently;
//   - the shared key compares alike in both tables (preflight's sharedKeyComparable): same type, charset and
//     collation, or a conversion that keeps distinct keys distinct (a widening, a collation that
//     tells apart whatever the old one did);
//   - a dry run (no --execute) leaves the server exactly as it found it.
package migrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/copier"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/preflight"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// ErrUsage marks a configuration that is wrong before any server is asked (a missing or
// contradictory flag value): the command line exits 2 for it, as for a flag it cannot parse.
// Refusals that come from inspecting the server (missing table, unsafe ALTER, server settings)
// are ordinary failures: exit 1.
var ErrUsage = errors.New("usage")

// Migrator runs one migration.
type Migrator struct {
	cfg    Config
	log    zerolog.Logger
	phases *phases
	levers *levers             // what Controls changes (controls.go)
	cur    atomic.Pointer[run] // the executing run, for Status and the levers; nil before it
	// prepared is the plan once preparation passed, for Status (what is heard after it reads it).
	prepared atomic.Pointer[preflight.Plan]
	instant  atomic.Bool // the ALTER was done instantly on the original (--attempt-instant-ddl)
	// events are the observers that also hear the run's other moments; gates run before each
	// cut-over attempt (events.go).
	events []observe.EventObserver
	gates  []func(ctx context.Context, attempt int) error
	// stepGates run at each Step and may abort the run (events.go).
	stepGates []func(ctx context.Context, at observe.Step) error
	seams     seams // the tests' (seams.go); zero in a normal run
}

var _ observe.Controls = (*Migrator)(nil)

// Observe adds an observer of the run's phases; an EventObserver hears the run's events too.
// Call it before Run.
func (m *Migrator) Observe(o observe.Observer) {
	m.phases.observers = append(m.phases.observers, o)
	if eo, ok := o.(observe.EventObserver); ok {
		m.events = append(m.events, eo)
	}
}

// applier is the running run's binlog applier, or nil.
func (m *Migrator) applier() *binlogapply.Applier {
	if r := m.cur.Load(); r != nil {
		return r.applier
	}
	return nil
}

// New checks the configuration and returns a Migrator.
func New(cfg Config) (*Migrator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Migrator{cfg: cfg, log: cfg.Logger.With().Str("component", "migrator").Logger()}
	m.phases = newPhases(m.log, nil)
	m.levers = m.newLevers()
	return m, nil
}

// Validate checks the configuration without touching a server.
func (c *Config) Validate() error {
	switch {
	case c.Database == "":
		return fmt.Errorf("%w: --database is required", ErrUsage)
	case c.Table == "":
		return fmt.Errorf("%w: --table is required", ErrUsage)
	case c.Alter == "" && !c.RecoverCutOver && !c.Revert:
		return fmt.Errorf("%w: --alter is required", ErrUsage)
	case c.ChunkSize < 10 || c.ChunkSize > 100000:
		return fmt.Errorf("%w: --chunk-size must be between 10 and 100000 (got %d)", ErrUsage, c.ChunkSize)
	case c.ChunkTime != 0 && (c.ChunkTime < 10*time.Millisecond || c.ChunkTime > time.Minute):
		return fmt.Errorf("%w: --chunk-time must be 0 (off) or between 10ms and 1m (got %v)", ErrUsage, c.ChunkTime)
	case c.CopyThreads < 0 || c.CopyThreads > copier.MaxThreads:
		return fmt.Errorf("%w: --copy-threads must be 0 (auto) or between 1 and %d (got %d)", ErrUsage, copier.MaxThreads, c.CopyThreads)
	case c.DMLBatchSize < 1 || c.DMLBatchSize > 100:
		return fmt.Errorf("%w: --dml-batch-size must be between 1 and 100 (got %d)", ErrUsage, c.DMLBatchSize)
	case c.DefaultRetries < 1:
		return fmt.Errorf("%w: --default-retries must be at least 1 (got %d)", ErrUsage, c.DefaultRetries)
	case c.SwitchToRBR && c.AssumeRBR:
		return fmt.Errorf("%w: --switch-to-rbr and --assume-rbr contradict each other: give one", ErrUsage)
	case c.ApproveRenamedColumns && c.SkipRenamedColumns:
		return fmt.Errorf("%w: --approve-renamed-columns and --skip-renamed-columns contradict each other: give one", ErrUsage)
	case cutover.Validate(c.CutOver) != nil:
		return fmt.Errorf("%w: --cut-over=%q is not supported; use %s", ErrUsage, c.CutOver, cutover.Choices())
	case c.Resume && !c.Execute:
		return fmt.Errorf("%w: --resume continues a migration: it needs --execute (a dry run would drop the ghost it continues)", ErrUsage)
	case c.checkpointing() && c.CheckpointInterval <= 0:
		return fmt.Errorf("%w: --checkpoint-seconds must be positive", ErrUsage)
	case c.CutOverLockTimeout <= 0:
		return fmt.Errorf("%w: --cut-over-lock-timeout-seconds must be positive", ErrUsage)
	}
	if table.TooLong(table.GhostName(c.Table)) {
		return fmt.Errorf("%w: table name %q is too long for its ghost table name (64 characters at most)", ErrUsage, c.Table)
	}
	if c.TimestampOldTable && table.TooLong(table.OldName(c.Table, "20060102150405")) {
		return fmt.Errorf("%w: table name %q is too long for a timestamped old table name (64 characters at most): drop --timestamp-old-table", ErrUsage, c.Table)
	}
	if c.StorageEngine != "" {
		if err := CheckStorageEngine(c.StorageEngine); err != nil {
			return fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	if err := c.preflightOptions().ValidateTriggerFlags(); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if err := c.validateThrottle(); err != nil {
		return err
	}
	if err := c.validateReplicaModes(); err != nil {
		return err
	}
	if err := c.validateChecksum(); err != nil {
		return err
	}
	if err := c.validateRevert(); err != nil { // revert.go
		return err
	}
	if (c.MasterUser != "" || c.MasterPassword != "") && c.AssumeMasterHost == "" {
		return fmt.Errorf("%w: --master-user and --master-password need --assume-master-host (the primary they log in to)", ErrUsage)
	}
	if c.AssumeMasterHost != "" {
		if _, _, err := dbconn.ParseHostPort(c.AssumeMasterHost, c.Conn.Port); err != nil {
			return fmt.Errorf("%w: --assume-master-host: %v", ErrUsage, err)
		}
	}
	return nil
}

// CheckStorageEngine refuses a --storage-engine other than innodb (in any case): the one rule,
// for the command line and for Validate.
func CheckStorageEngine(engine string) error {
	if !strings.EqualFold(engine, "innodb") {
		return fmt.Errorf("--storage-engine=%s is not supported; only innodb is", engine)
	}
	return nil
}

// Run performs the migration and returns nil on success. Without --execute it is a dry run: it
// prepares (every check, the ALTER proven on the ghost table), prints the plan, drops the ghost
// and releases the lock, leaving the server as it found it. The step gates (GateStep) run at
// their steps; one that fails aborts the run (or, at StepSuccess, makes Run return its error).
func (m *Migrator) Run(ctx context.Context) error {
	if m.cfg.RecoverCutOver {
		return m.recoverCutOver(ctx)
	}
	// gh-ost's first line, once the configuration is valid (New), before the startup step.
	if msg := newKind(m.cfg).startMessage(m.cfg.Database, m.cfg.Table); msg != "" {
		m.log.Info().Msg(msg)
	}
	m.phases.Enter(ctx, status.PhasePrepare)
	after, err := m.migrate(ctx)
	if err != nil { // the run's one failed and one done
		m.phases.Fail(ctx, err)
	} else {
		m.phases.Enter(ctx, status.PhaseDone)
	}
	after(err)
	if err != nil {
		return explained(err)
	}
	return m.pass(ctx, observe.StepSuccess)
}

// migrate prepares, then dry-runs, does the ALTER instantly or executes the run. after is what
// follows the run's last phase change (never nil): the cleanup after failed, the summary after
// done, and the session's release.
func (m *Migrator) migrate(ctx context.Context) (after func(error), err error) {
	nothing := func(error) {}
	if err := m.pass(ctx, observe.StepStartup); err != nil {
		return nothing, err
	}
	s, err := m.prepare(ctx)
	if err != nil {
		return nothing, err
	}
	m.prepared.Store(s.plan)
	m.emit(observe.EventValidated, observe.Event{})
	if err := m.pass(ctx, observe.StepValidated); err != nil {
		return nothing, m.abandon(s, err) // prepare.go
	}
	if m.cfg.ExactRowcount && !m.cfg.countsConcurrently() { // counted in preparation; else once counted (run.go)
		m.emit(observe.EventRowCountComplete, observe.Event{})
	}
	if !m.cfg.Execute {
		return nothing, m.dryRun(ctx, s)
	}
	if m.attemptInstantDDL(ctx, s) { // instant.go
		m.instant.Store(true)
		return func(error) { s.close() }, nil // the lock is released before on-success runs
	}
	r, err := m.execute(ctx, s, m.phases)
	return func(err error) { r.after(err); s.close() }, err
}

// explained adds to a run's failure what the user does about it, when it is one of the applier's.
func explained(err error) error {
	switch {
	case errors.Is(err, binlogapply.ErrOriginalAltered):
		return fmt.Errorf("%w; nothing was swapped and the original is in place with its rows: restart the migration once the change is done (check --alter against the table's new definition)", err)
	case errors.Is(err, binlogapply.ErrStatementLogged):
		return fmt.Errorf("%w; nothing was swapped and the original is in place with its rows: restart the migration once no session writes the table with statement-based logging", err)
	case errors.Is(err, binlogapply.ErrHelperChanged):
		return fmt.Errorf("%w; nothing was swapped and the original is in place with its rows: a helper table that is no longer this run's is left in place: inspect and drop it, then restart the migration", err)
	}
	return err
}
