package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/ddl"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/plan"
	"github.com/go-ghostlite/go-ghostlite/preflight"
	"github.com/go-ghostlite/go-ghostlite/tablelock"
)

// The preparation phase checks everything that can be checked before a row moves and proves the
// ALTER on the ghost table (ddl.BuildGhost). It changes nothing on a server except creating the
// ghost table and what a flag asks for once the checks passed (ddl.Setup: --switch-to-rbr, the
// stale helper tables of --initially-drop-*); on any failure it drops the
// ghost it created and releases the migration lock, so the server is as it found it.

// session holds what preparation produced and keeps holding until the run ends. Its methods need
// nothing else; what also needs the configuration is the Migrator's (preparation) or, once the
// migration executes, the run's (run.go).
type session struct {
	// pre is what the checks found and decided (preflight.State); plan, inspected and primary
	// are its Plan, Inspected and Primary, kept here for the run.
	pre       *preflight.State
	plan      *plan.Plan
	inspected *sql.DB         // pool (dbconn.Open) on the --host server: binlog is read there
	primary   *sql.DB         // pool on the primary: tables are created and written there (may be inspected)
	lock      *tablelock.Lock // the per-table migration lock, held on the primary
	owned     tablelock.Owned // the tables this run created, by identity
	// rebuilt are the tables an OPTIMIZE TABLE read from the binary log rebuilt since their
	// identity was recorded (tables.go): marked by the applier, re-recorded by the conductor.
	rebuilt rebuiltTables
	// kind is what makes the run fresh, a --resume or a --revert (kind.go).
	kind runKind
	// ghostCreated: this run created the ghost table (not a --resume's or a --revert's).
	ghostCreated bool

	log zerolog.Logger
}

// close releases the mutex (RELEASE_LOCK, then closes its connection) and closes the pools.
// It is safe to call more than once.
//
//nolint:contextcheck // its own context: it runs after the run's context may be cancelled (a signal)
func (s *session) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.lock.Release(ctx); err != nil {
		s.log.Warn().Err(err).Msg("the migration lock is released when its connection closes")
	}
	if s.primary != nil && s.primary != s.inspected {
		s.primary.Close()
	}
	if s.inspected != nil {
		s.inspected.Close()
	}
	s.primary, s.inspected = nil, nil
}

// dropGhost drops the ghost table on the primary, if it is still the one this run created and
// this run still holds its lock.
func (s *session) dropGhost(ctx context.Context) error {
	if s.primary == nil || s.plan == nil || s.plan.GhostTable == "" {
		return nil
	}
	if err := s.dropOwned(ctx, s.plan.GhostTable); err != nil {
		return fmt.Errorf("drop the ghost table: %w", err)
	}
	return nil
}

// prepare runs every check, creates the ghost table with the ALTER applied and fills the Plan.
// On any error it leaves the server as it found it: the ghost it created is dropped and the
// migration lock released.
func (m *Migrator) prepare(ctx context.Context) (_ *session, err error) {
	started := time.Now()
	s := newSession(m.cfg, m.log)
	st := s.pre
	st.Crashed = func(ctx context.Context) error { return m.checkCrashed(ctx, s) }
	st.EnableMetadataLocks = func(ctx context.Context) error { return ddl.EnableMetadataLocks(ctx, st) }
	defer func() {
		if err != nil {
			err = s.abandon(err)
		}
	}()
	if err := m.connect(ctx, s); err != nil {
		return nil, err
	}
	if err := preflight.Run(ctx, st, preflight.BeforeCreate); err != nil {
		return nil, err
	}
	if err := ddl.Setup(ctx, st); err != nil { // what the flags ask of the server: --switch-to-rbr, --initially-drop-*
		return nil, err
	}
	s.ghostCreated, err = s.kind.ghost(ctx, m, s) // created, or adopted (kind.go)
	if err != nil {
		return nil, err
	}
	if err := preflight.Run(ctx, st, preflight.AfterGhost); err != nil {
		return nil, err
	}
	if err := s.kind.planned(s); err != nil {
		return nil, err
	}
	identity, _ := s.owned.Recorded(s.plan.GhostTable)
	if err := preflight.RecordGhost(ctx, st, identity); err != nil { // proven again before the swap
		return nil, err
	}
	m.log.Debug().Str("ghost", s.plan.GhostTable).Str("took", logfmt.Duration(time.Since(started))).Msg("preparation complete")
	return s, nil
}

// abandon undoes a preparation that no run follows, for cause: it drops the ghost table this run
// created (not the one a --resume adopted, nor a --revert's old table) and releases the lock, so
// the server is as it was found. It returns cause, with the drop's failure if any.
//
//nolint:contextcheck // its own context: the cleanup runs after the run's may be cancelled
func (s *session) abandon(cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.ghostCreated {
		if err := s.dropGhost(ctx); err != nil {
			cause = fmt.Errorf("%w (and the ghost table could not be dropped: %v; drop it by hand)", cause, err)
		}
	}
	s.close()
	return cause
}

// connect opens the server given with --host and, when it is a replica, its primary
// (preflight.Connect), and takes the per-table mutex there before anything is created.
func (m *Migrator) connect(ctx context.Context, s *session) (err error) {
	if err := s.connectPrimary(ctx); err != nil {
		return err
	}
	// Replica modes: checks that only the whole-migration-on-the-replica needs.
	if err := preflight.Run(ctx, s.pre, preflight.Connected); err != nil {
		return err
	}
	// The per-table mutex, before anything is created.
	s.lock, err = tablelock.Acquire(ctx, s.primary, s.plan.Primary.Addr(), m.cfg.Database, m.cfg.Table)
	return err
}

// newSession is a session before anything is connected.
func newSession(cfg config.Config, log zerolog.Logger) *session {
	st := preflight.NewState(cfg, log)
	st.CutOverRefusal = func(f dbconn.Flavor) error { return cutover.RefuseOn(cfg.CutOver, f) }
	return &session{pre: st, plan: st.Plan, kind: newKind(cfg), log: log}
}

// connectPrimary opens the --host server and, when it is a replica, its primary, where the
// tables are created and written (preflight.Connect).
func (s *session) connectPrimary(ctx context.Context) error {
	err := preflight.Connect(ctx, s.pre)
	s.inspected, s.primary = s.pre.Inspected, s.pre.Primary
	return err
}

// checkCrashed refuses a table that a run which died between its two renames left missing,
// saying so before "does not exist" (a revert's changelog names its tables, recover.go).
func (m *Migrator) checkCrashed(ctx context.Context, s *session) error {
	rev, err := changelog.ReadRevert(ctx, s.primary, m.cfg.Database, m.cfg.Table)
	if err != nil {
		return err
	}
	return cutover.CheckCrashed(ctx, s.primary, m.cfg.Database, m.cfg.Table, rev)
}

// originalAltered marks a final refusal of the checks that the original is unchanged with
// binlogapply.ErrOriginalAltered.
func originalAltered(err error) error {
	if preflight.IsFinal(err) {
		return fmt.Errorf("%w: %w", err, binlogapply.ErrOriginalAltered)
	}
	return err
}

// attemptInstantDDL tries the ALTER instantly on the original (ddl.AttemptInstantDDL); when
// it is done, the ghost is dropped and nothing else is left to do.
func (s *session) attemptInstantDDL(ctx context.Context) bool {
	if !ddl.AttemptInstantDDL(ctx, s.pre) {
		return false
	}
	if err := s.dropGhost(ctx); err != nil {
		s.log.Warn().Err(err).Msg("the instant ALTER is done, but the ghost table could not be dropped; drop it by hand")
	}
	return true
}
