// Package onreplica is what the replica modes do to the replica itself, around the cut-over:
// --test-on-replica stops the replica's replication before the cut-over, starts it again after a
// failure, and swaps the tables back after a successful cut-over. Which mode runs, and the checks
// of the replica, are elsewhere (the conductor; preflight/replicamode.go).
//
// Invariants:
//   - Nothing is written on any server but the replica given by --host.
//   - Every statement is bounded (StopTimeout) and the flavor's own words are used
//     (dbconn.Flavor: STOP SLAVE or STOP REPLICA).
//   - The swap back is one atomic RENAME, so the table's name always names either the original
//     or (if the RENAME failed) the migrated table, never nothing.
//   - The package knows nothing of the run: it imports only internal leaves.
package onreplica

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// StopTimeout bounds STOP SLAVE / START SLAVE and the swap back.
const StopTimeout = 30 * time.Second

// Replica is the --host replica a replica mode migrates on.
type Replica struct {
	DB     *sql.DB
	Flavor dbconn.Flavor
	Addr   string // for messages
	Log    zerolog.Logger
}

// StopReplication stops the replica's replication for the cut-over (--test-on-replica).
func (r Replica) StopReplication(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, StopTimeout)
	defer cancel()
	if _, err := r.DB.ExecContext(ctx, r.Flavor.StopReplicaSQL()); err != nil {
		return fmt.Errorf("--test-on-replica: stop replication on %s (%s): %w", r.Addr, r.Flavor.StopReplicaSQL(), err)
	}
	r.Log.Info().Str("replica", r.Addr).Msg("--test-on-replica: replication stopped for the cut-over")
	return nil
}

// RestartReplication starts the replication StopReplication stopped, after a failure (best
// effort, logged: the migration's own error is what the run reports).
//
//nolint:contextcheck // its own context: it runs after the run's context may be cancelled (a signal)
func (r Replica) RestartReplication() {
	ctx, cancel := context.WithTimeout(context.Background(), StopTimeout)
	defer cancel()
	q := r.Flavor.StartReplicaSQL()
	if _, err := r.DB.ExecContext(ctx, q); err != nil {
		r.Log.Error().Err(err).Str("replica", r.Addr).Msgf("could not restart replication after the failure: run %s by hand", q)
		return
	}
	r.Log.Info().Str("replica", r.Addr).Msg("replication restarted after the failure")
}

// Swap is what --test-on-replica swaps back after its cut-over: Table (now the migrated table)
// becomes Ghost again and Old (the original) becomes Table again.
type Swap struct {
	Schema, Table, Ghost, Old string
	LockWait                  time.Duration // the RENAME's lock_wait_timeout
	Columns                   []string      // the columns the two tables share, for the report
	ReplicationRunning        bool          // --test-on-replica-skip-replica-stop: replication was not stopped
}

// SwapBack undoes the cut-over in one atomic RENAME and reports what to compare, or says how to
// swap them by hand when the RENAME failed.
func (r Replica) SwapBack(ctx context.Context, sw Swap) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StopTimeout)
	defer cancel()
	schema, tbl := sw.Schema, sw.Table
	if err := swapBack(ctx, r.DB, schema, tbl, sw.Ghost, sw.Old, sw.LockWait); err != nil {
		return fmt.Errorf("--test-on-replica: the cut-over succeeded, so %s.%s is now the migrated table and %s.%s the original, but swapping them back failed: %w; swap them by hand with RENAME TABLE %s TO %s, %s TO %s",
			schema, tbl, schema, sw.Old, err,
			table.Qualify(schema, tbl), table.Qualify(schema, sw.Ghost), table.Qualify(schema, sw.Old), table.Qualify(schema, tbl))
	}
	ev := r.Log.Info().Str("replica", r.Addr).Str("original", tbl).Str("migrated", sw.Ghost)
	resume := "replication is still running (--test-on-replica-skip-replica-stop)"
	if !sw.ReplicationRunning {
		resume = fmt.Sprintf("replication is LEFT STOPPED on %s: compare first, then resume it with %s", r.Addr, r.Flavor.StartReplicaSQL())
	}
	ev.Msgf("--test-on-replica: cut over and swapped back: %s.%s is the original again and %s.%s the migrated copy; compare their shared columns (%s), then DROP TABLE %s; %s",
		schema, tbl, schema, sw.Ghost, strings.Join(sw.Columns, ", "), table.Qualify(schema, sw.Ghost), resume)
	return nil
}

// swapBack renames tbl to ghost and old to tbl in one RENAME.
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
