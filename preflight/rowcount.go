package preflight

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The plan's row estimate is the optimizer's, or the exact count made in preparation
// (estimateRows, inspect.go). With --exact-rowcount --concurrent-rowcount the exact count runs
// beside the copy instead and replaces the estimate when it is done.

// CountRowsBeside counts schema.tbl's rows on db (the inspected server) while the copy runs and
// hands the count to found, which makes it the run's estimate. It returns a stop that cancels a
// count still running (KILL QUERY, as gh-ost does before the cut-over) and waits for it. A failed
// count is only logged: the optimizer's estimate stays.
func CountRowsBeside(ctx context.Context, db *sql.DB, schema, tbl string, log zerolog.Logger, found func(int64)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		started := time.Now()
		n, err := countRows(ctx, db, schema, tbl)
		switch {
		case err != nil && ctx.Err() != nil:
			log.Info().Msg("exact row count cancelled: the copy finished first")
		case err != nil:
			log.Warn().Err(err).Msg("exact row count failed; progress uses the optimizer's estimate")
		default:
			found(n)
			log.Info().Int64("rows", n).Str("took", logfmt.Duration(time.Since(started))).Msg("exact row count complete")
		}
	}()
	return func() { cancel(); <-done }
}

// countRows runs SELECT COUNT(*) on a connection of its own, killing the query when ctx ends
// before it does (closing the connection alone would leave it running on the server).
func countRows(ctx context.Context, db *sql.DB, schema, tbl string) (int64, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		return 0, err
	}
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-finished:
		case <-ctx.Done():
			killQuery(db, id) //nolint:contextcheck // its own context: ctx has ended
		}
	}()
	var n sql.NullInt64
	err = conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table.Qualify(schema, tbl)).Scan(&n)
	return n.Int64, err
}

// killQuery stops the statement running on connection id (best effort: it may have ended).
func killQuery(db *sql.DB, id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = db.ExecContext(ctx, fmt.Sprintf("KILL QUERY %d", id))
}
