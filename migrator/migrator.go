// Package migrator orchestrates one online schema migration as a run with typed phases
// (prepare, copy, postponed, checksum, cut-over, done, failed): it runs the checks of package
// preflight in their scopes (prepare.go), the ghost (package ddl, from the plan.Plan the checks
// filled) and changelog tables, and the order of the
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
//   - the shared key compares alike in both tables (plan's sharedKeyComparable): same type, charset and
//     collation, or a conversion that keeps distinct keys distinct (a widening, a collation that
//     tells apart whatever the old one did); or a CHAR/VARCHAR key column changes collation
//     otherwise and the ghost's rows are addressed by their exact key bytes, its key handled like
//     a new unique key (plan.ComparedByBytes, Plan.GhostKeyByBytes);
//   - a dry run (no --execute) leaves the server exactly as it found it.
package migrator

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/plan"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// ErrUsage marks a configuration that is wrong before any server is asked (config.ErrUsage, here
// for errors.Is at the callers of New).
var ErrUsage = config.ErrUsage

// Migrator runs one migration.
type Migrator struct {
	cfg    config.Config
	log    zerolog.Logger
	phases *phases
	levers *levers             // what Controls changes (controls.go)
	cur    atomic.Pointer[run] // the executing run, for Status and the levers; nil before it
	// prepared is the plan once preparation passed, for Status (what is heard after it reads it).
	prepared atomic.Pointer[plan.Plan]
	instant  atomic.Bool // the ALTER was done instantly on the original (--attempt-instant-ddl)
	// events are the observers that also hear the run's other moments; gates run before each
	// cut-over attempt (events.go).
	events []observe.EventObserver
	gates  []func(ctx context.Context, attempt int) error
	// stepGates run at each Step and may abort the run (events.go).
	stepGates []func(ctx context.Context, at observe.Step) error
	seams     seams // the tests' (seams.go); zero in a normal run
	// joint is the cut-over of the set this table belongs to, nil when it runs alone (set.go);
	// jointIndex is its place in the set.
	joint      *jointCutOver
	jointIndex int
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

// Config is the configuration the migrator runs (for a member of a set: its table's, with its
// own logger and server id).
func (m *Migrator) Config() config.Config { return m.cfg }

// applier is the running run's binlog applier, or nil.
func (m *Migrator) applier() *binlogapply.Applier {
	if r := m.cur.Load(); r != nil {
		return r.applier
	}
	return nil
}

// New checks the configuration (config.Config.Validate, then the throttle's settings, refused
// as usage errors too) and returns a Migrator.
func New(cfg config.Config) (*Migrator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := throttleConfig(cfg).Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", config.ErrUsage, err)
	}
	m := &Migrator{cfg: cfg, log: cfg.Logger.With().Str("component", "migrator").Logger()}
	m.phases = newPhases(m.log, nil)
	m.levers = m.newLevers()
	return m, nil
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
		return nothing, s.abandon(err) // prepare.go
	}
	if m.cfg.ExactRowcount && !m.cfg.CountsConcurrently() { // counted in preparation; else once counted (run.go)
		m.emit(observe.EventRowCountComplete, observe.Event{})
	}
	if !m.cfg.Execute {
		return nothing, m.dryRun(ctx, s)
	}
	if s.attemptInstantDDL(ctx) { // prepare.go, ddl/instant.go
		m.instant.Store(true)
		return func(error) { s.close() }, nil // the lock is released before on-success runs
	}
	r := newRun(m, s)
	err = r.execute(ctx)
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
