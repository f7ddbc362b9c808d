package migrator

import (
	"context"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/onreplica"
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
// What is done to the replica (stopping and restarting replication, the swap back) is onreplica's;
// the conductor decides when. Invariant: a failure before or during the cut-over restarts the
// replication the run stopped.

// replica is the --host replica, for onreplica.
func (r *run) replica() onreplica.Replica {
	return onreplica.Replica{DB: r.s.inspected, Flavor: r.s.plan.Flavor, Addr: r.m.cfg.Conn.Addr(), Log: r.m.log}
}

// beforeCutOver runs just before the cut-over. With --test-on-replica it stops replication (unless
// --test-on-replica-skip-replica-stop) and waits until the applier has applied every event of the
// replica's binlog, so the cut-over sees a table nobody writes to. On failure replication is
// started again.
func (r *run) beforeCutOver(ctx context.Context) error {
	m := r.m
	if !m.cfg.TestOnReplica {
		return nil
	}
	m.emit(observe.EventStopReplication, observe.Event{}) // also with skip-replica-stop, as gh-ost: a hook may stop it
	if err := m.pass(ctx, observe.StepStopReplication); err != nil {
		r.replicateAgain() // the step (a hook) may have stopped replication part way
		return err
	}
	if m.cfg.TestOnReplicaSkipReplicaStop {
		m.log.Warn().Str("replica", m.cfg.Conn.Addr()).Msg("--test-on-replica-skip-replica-stop: replication keeps running through the cut-over; nothing must write to the table")
		return nil
	}
	if err := r.replica().StopReplication(ctx); err != nil {
		r.restartReplication()
		return err
	}
	if err := r.sent.awaitWithin(ctx, 10*time.Minute); err != nil {
		r.restartReplication()
		return fmt.Errorf("--test-on-replica: wait for the binlog applier after stopping replication: %w", err)
	}
	return nil
}

// afterCutOver runs right after the cut-over with its result and returns the run's result. A failed
// cut-over restarts the replication --test-on-replica stopped (the original is in place). After a
// successful one, --test-on-replica swaps the tables back.
func (r *run) afterCutOver(ctx context.Context, cutErr error) error {
	m := r.m
	if !m.cfg.TestOnReplica {
		return cutErr
	}
	if cutErr != nil {
		r.replicateAgain()
		return cutErr
	}
	p := r.s.plan
	return r.replica().SwapBack(ctx, onreplica.Swap{
		Schema: p.Original.Schema, Table: p.Original.Name, Ghost: p.GhostTable, Old: p.OldTable,
		LockWait: m.cfg.CutOverLockTimeout, Columns: p.OriginalColumns(), ReplicationRunning: m.cfg.TestOnReplicaSkipReplicaStop,
	})
}

// replicateAgain undoes the replication stop of --test-on-replica after a failure: it starts
// replication again, or, with --test-on-replica-skip-replica-stop, announces it so that a hook
// starts it (as gh-ost runs on-start-replication).
func (r *run) replicateAgain() {
	if r.m.cfg.TestOnReplicaSkipReplicaStop {
		r.m.emit(observe.EventStartReplication, observe.Event{})
		return
	}
	r.restartReplication()
}

// restartReplication announces and starts the replication this run stopped, after a failure.
func (r *run) restartReplication() {
	r.m.emit(observe.EventStartReplication, observe.Event{})
	r.replica().RestartReplication()
}
