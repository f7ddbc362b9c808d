package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The replica modes, as gh-ost's:
//
//   - --migrate-on-replica: the whole migration runs on the replica given by --host. The ghost and
//     changelog tables are created there, the rows copied there, the replica's own binary log read
//     (log_slave_updates puts the primary's replicated writes in it) and the cut-over done there.
//     The primary is never connected to.
//   - --test-on-replica: the same, but at cut-over replication is stopped first (unless
//     --test-on-replica-skip-replica-stop), and right after the cut-over the tables are swapped back
//     in one atomic RENAME: the original is tbl again and the migrated copy stays as _tbl_gho, both
//     kept for comparison. Replication is left stopped, as gh-ost leaves it.
//
// On MariaDB the migration's writes on the replica take GTIDs in the replica's gtid_domain_id; with
// gtid_strict_mode=ON that domain must not be one the replica replicates (checkGTIDDomain).
//
// Invariants: in both modes nothing is written on any server but the replica; a failure before or
// during the cut-over restarts the replication this code stopped; the swap back is one RENAME, so
// tbl always names either the original or (if the RENAME failed) the migrated table, never nothing.

// onReplica says whether the whole migration runs on the --host replica.
func (c *Config) onReplica() bool { return c.MigrateOnReplica || c.TestOnReplica }

// replicaModeFlag names the replica mode's flag, for messages.
func (c *Config) replicaModeFlag() string { return c.preflightOptions().ReplicaModeFlag() }

// validateReplicaModes refuses contradictory replica-mode flags (no server is asked).
func (c *Config) validateReplicaModes() error {
	switch {
	case c.MigrateOnReplica && c.TestOnReplica:
		return fmt.Errorf("%w: --migrate-on-replica and --test-on-replica contradict each other: give one", ErrUsage)
	case c.TestOnReplicaSkipReplicaStop && !c.TestOnReplica:
		return fmt.Errorf("%w: --test-on-replica-skip-replica-stop needs --test-on-replica", ErrUsage)
	case !c.onReplica():
		return nil
	case c.AllowOnMaster:
		return fmt.Errorf("%w: --allow-on-master and %s contradict each other: %s runs on the replica given by --host", ErrUsage, c.replicaModeFlag(), c.replicaModeFlag())
	case c.AssumeMasterHost != "" && c.MigrateOnReplica:
		// With --test-on-replica it is accepted and has nothing to do, as in gh-ost: a test run
		// keeps the real run's command line with one flag added.
		return fmt.Errorf("%w: --assume-master-host and --migrate-on-replica contradict each other: --migrate-on-replica never writes to the primary", ErrUsage)
	case c.RecoverCutOver:
		return fmt.Errorf("%w: --recover-cut-over does not support %s", ErrUsage, c.replicaModeFlag())
	}
	return nil
}

// replicaStopTimeout bounds STOP SLAVE / START SLAVE and the swap back.
const replicaStopTimeout = 30 * time.Second

// beforeCutOver runs just before the cut-over. With --test-on-replica it stops replication (unless
// --test-on-replica-skip-replica-stop) and waits until the applier has applied every event of the
// replica's binlog, so the cut-over sees a table nobody writes to. On failure replication is
// started again.
func (m *Migrator) beforeCutOver(ctx context.Context, s *session, sent *sentinel) error {
	if !m.cfg.TestOnReplica {
		return nil
	}
	addr := m.cfg.Conn.Addr()
	m.emit(EventStopReplication, Event{}) // also with skip-replica-stop, as gh-ost: a hook may stop it
	if err := m.pass(ctx, StepStopReplication); err != nil {
		m.replicateAgain(s) // the step (a hook) may have stopped replication part way
		return err
	}
	if m.cfg.TestOnReplicaSkipReplicaStop {
		m.log.Warn().Str("replica", addr).Msg("--test-on-replica-skip-replica-stop: replication keeps running through the cut-over; nothing must write to the table")
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, replicaStopTimeout)
	defer cancel()
	if _, err := s.inspected.ExecContext(sctx, s.plan.Flavor.StopReplicaSQL()); err != nil {
		m.restartReplication(s)
		return fmt.Errorf("--test-on-replica: stop replication on %s (%s): %w", addr, s.plan.Flavor.StopReplicaSQL(), err)
	}
	m.log.Info().Str("replica", addr).Msg("--test-on-replica: replication stopped for the cut-over")
	if err := sent.awaitWithin(ctx, 10*time.Minute); err != nil {
		m.restartReplication(s)
		return fmt.Errorf("--test-on-replica: wait for the binlog applier after stopping replication: %w", err)
	}
	return nil
}

// afterCutOver runs right after the cut-over with its result and returns the run's result. A failed
// cut-over restarts the replication --test-on-replica stopped (the original is in place). After a
// successful one, --test-on-replica swaps the tables back.
func (m *Migrator) afterCutOver(ctx context.Context, s *session, cutErr error) error {
	if !m.cfg.TestOnReplica {
		return cutErr
	}
	if cutErr != nil {
		m.replicateAgain(s)
		return cutErr
	}
	p := s.plan
	schema, tbl := p.Original.Schema, p.Original.Name
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), replicaStopTimeout)
	defer cancel()
	if err := swapBack(sctx, s.inspected, schema, tbl, p.GhostTable, p.OldTable, m.cfg.CutOverLockTimeout); err != nil {
		return fmt.Errorf("--test-on-replica: the cut-over succeeded, so %s.%s is now the migrated table and %s.%s the original, but swapping them back failed: %w; swap them by hand with RENAME TABLE %s TO %s, %s TO %s",
			schema, tbl, schema, p.OldTable, err,
			table.Qualify(schema, tbl), table.Qualify(schema, p.GhostTable), table.Qualify(schema, p.OldTable), table.Qualify(schema, tbl))
	}
	ev := m.log.Info().Str("replica", m.cfg.Conn.Addr()).Str("original", tbl).Str("migrated", p.GhostTable)
	resume := "replication is still running (--test-on-replica-skip-replica-stop)"
	if !m.cfg.TestOnReplicaSkipReplicaStop {
		resume = fmt.Sprintf("replication is LEFT STOPPED on %s: compare first, then resume it with %s", m.cfg.Conn.Addr(), p.Flavor.StartReplicaSQL())
	}
	ev.Msgf("--test-on-replica: cut over and swapped back: %s.%s is the original again and %s.%s the migrated copy; compare their shared columns (%s), then DROP TABLE %s; %s",
		schema, tbl, schema, p.GhostTable, strings.Join(p.OriginalColumns(), ", "), table.Qualify(schema, p.GhostTable), resume)
	return nil
}

// swapBack undoes a cut-over in one atomic RENAME: tbl (the migrated table) becomes ghost and old
// (the original) becomes tbl again.
func swapBack(ctx context.Context, db *sql.DB, schema, tbl, ghost, old string, lockWait time.Duration) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", dbconn.CeilSeconds(lockWait))); err != nil {
		return fmt.Errorf("set lock_wait_timeout: %w", err)
	}
	q := fmt.Sprintf("RENAME TABLE %s TO %s, %s TO %s", table.Qualify(schema, tbl), table.Qualify(schema, ghost),
		table.Qualify(schema, old), table.Qualify(schema, tbl))
	if _, err := conn.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// replicateAgain undoes the replication stop of --test-on-replica after a failure: it starts
// replication again, or, with --test-on-replica-skip-replica-stop, announces it so that a hook
// starts it (as gh-ost runs on-start-replication).
func (m *Migrator) replicateAgain(s *session) {
	if m.cfg.TestOnReplicaSkipReplicaStop {
		m.emit(EventStartReplication, Event{})
		return
	}
	m.restartReplication(s)
}

// restartReplication starts the replication this code stopped, after a failure (best effort,
// logged: the migration's own error is what the run reports).
//
//nolint:contextcheck // its own context: it runs after the run's context may be cancelled (a signal)
func (m *Migrator) restartReplication(s *session) {
	m.emit(EventStartReplication, Event{})
	ctx, cancel := context.WithTimeout(context.Background(), replicaStopTimeout)
	defer cancel()
	q := s.plan.Flavor.StartReplicaSQL()
	if _, err := s.inspected.ExecContext(ctx, q); err != nil {
		m.log.Error().Err(err).Str("replica", m.cfg.Conn.Addr()).Msgf("could not restart replication after the failure: run %s by hand", q)
		return
	}
	m.log.Info().Str("replica", m.cfg.Conn.Addr()).Msg("replication restarted after the failure")
}
