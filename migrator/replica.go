package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
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

// checkOnReplica checks what only the replica modes need, on the replica: its binlog must carry
// the primary's writes (log_slave_updates), and on MariaDB the migration's own writes there must
// not stop replication (checkGTIDDomain).
func (m *Migrator) checkOnReplica(ctx context.Context, s *session) error {
	if !m.cfg.onReplica() {
		return nil
	}
	addr := m.cfg.Conn.Addr()
	vars, err := dbconn.ReadVariables(ctx, s.inspected, "log_slave_updates", "log_replica_updates", "read_only",
		"gtid_strict_mode", "gtid_domain_id", "gtid_slave_pos", "gtid_binlog_state")
	if err != nil {
		return fmt.Errorf("on %s: %w", addr, err)
	}
	if m.cfg.AssumeMasterHost != "" {
		m.log.Info().Str("replica", addr).Msg("--assume-master-host has nothing to do with --test-on-replica (the primary is not connected to): ignored")
	}
	v, ok := vars["log_replica_updates"]
	if !ok {
		v = vars["log_slave_updates"]
	}
	if !dbconn.IsOn(v) {
		return fmt.Errorf("%s must have log_slave_updates enabled for testing/migrating on replica: without it the primary's changes never reach its binary log and %s cannot see them: enable log_slave_updates (needs a restart)",
			addr, m.cfg.replicaModeFlag())
	}
	if s.plan.Flavor.MariaDB {
		rs, err := dbconn.ReadReplicaStatus(ctx, s.inspected, s.plan.Flavor, addr)
		if err != nil {
			return err
		}
		var ioPos string
		if rs != nil {
			ioPos = rs.GtidIOPos
		}
		warning, err := checkGTIDDomain(addr, vars, ioPos)
		if err != nil {
			return err
		}
		if warning != "" {
			m.log.Warn().Str("replica", addr).Msg(warning)
		}
	}
	if dbconn.IsOn(vars["read_only"]) {
		m.log.Warn().Str("replica", addr).Msg("read_only is ON on the replica: the migration's writes there need SUPER (MariaDB: READ_ONLY ADMIN)")
	}
	m.log.Info().Str("replica", addr).Str("mode", m.cfg.replicaModeFlag()).
		Msg("the whole migration runs on the replica: binlog read, tables created, copied and cut over there; the primary is not touched")
	return nil
}

// gtidDomains adds the domain ids of a MariaDB GTID list ("0-1-592,9-2-11") to set.
func gtidDomains(set map[uint64]bool, list string) error {
	for _, g := range strings.Split(list, ",") {
		if g = strings.TrimSpace(g); g == "" {
			continue
		}
		d, _, ok := strings.Cut(g, "-")
		id, err := strconv.ParseUint(d, 10, 32)
		if !ok || err != nil {
			return fmt.Errorf("%q is not a MariaDB GTID", g)
		}
		set[id] = true
	}
	return nil
}

// checkGTIDDomain decides whether the replica modes' writes can go on a MariaDB replica without
// breaking its replication. Those writes take GTIDs in the replica's gtid_domain_id (the tool's
// sessions keep the global value). A domain the replica receives from its primary shows in
// gtid_slave_pos (applied) or Gtid_IO_Pos (received, ioPos). Writing in such a domain with
// gtid_strict_mode=ON makes the primary's next GTIDs there out of order, and replication stops:
// refused. With the replica's own domain (as MariaDB recommends for replicas that take local
// writes) strict mode is fine. Without strict mode a replicated domain works but leaves GTIDs the
// primary lacks: returned as a warning. vars holds gtid_strict_mode, gtid_domain_id,
// gtid_slave_pos and gtid_binlog_state.
func checkGTIDDomain(addr string, vars map[string]string, ioPos string) (warning string, err error) {
	domain, err := strconv.ParseUint(vars["gtid_domain_id"], 10, 32)
	if err != nil {
		return "", fmt.Errorf("read gtid_domain_id on %s: %q", addr, vars["gtid_domain_id"])
	}
	replicated := map[uint64]bool{}
	for _, list := range []string{vars["gtid_slave_pos"], ioPos} {
		if err := gtidDomains(replicated, list); err != nil {
			return "", fmt.Errorf("read the replicated GTID domains of %s: %w", addr, err)
		}
	}
	if !replicated[domain] {
		return "", nil
	}
	if !dbconn.IsOn(vars["gtid_strict_mode"]) {
		return fmt.Sprintf("the migration's writes on the replica take GTIDs in gtid_domain_id %d, a domain it replicates from its primary: the primary will lack them (a replica-only gtid_domain_id avoids that)", domain), nil
	}
	used := map[uint64]bool{}
	for k := range replicated {
		used[k] = true
	}
	_ = gtidDomains(used, vars["gtid_binlog_state"]) // only to suggest a free domain
	free := uint64(1)
	for used[free] {
		free++
	}
	return "", fmt.Errorf("gtid_strict_mode is ON on replica %s and its gtid_domain_id %d is a domain it replicates from its primary (gtid_slave_pos %s): the migration's writes there would take GTIDs that make the primary's next transactions in that domain fail as out of order and stop replication: give the replica a domain of its own for local writes (for example SET GLOBAL gtid_domain_id=%d), or SET GLOBAL gtid_strict_mode=OFF for the migration",
		addr, domain, vars["gtid_slave_pos"], free)
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
