package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// countsConcurrently reports whether the exact row count (--exact-rowcount) runs beside the copy
// (--concurrent-rowcount) instead of in preparation. A dry run has no copy to run beside: it
// counts in preparation.
func (c *Config) countsConcurrently() bool {
	return c.ExactRowcount && c.ConcurrentRowcount && c.Execute
}

// countRowsConcurrently counts the original's rows on the inspected server while the copy runs and
// makes the count the run's estimate (Status.RowsEstimate). It returns a stop that cancels a count
// still running (KILL QUERY, as gh-ost does before the cut-over) and waits for it. A failed count
// is only logged: the optimizer's estimate stays.
func (r *run) countRowsConcurrently(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		started := time.Now()
		n, err := r.countRows(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			r.m.log.Info().Msg("exact row count cancelled: the copy finished first")
		case err != nil:
			r.m.log.Warn().Err(err).Msg("exact row count failed; progress uses the optimizer's estimate")
		default:
			r.rowsEstimate.Store(n)
			r.m.log.Info().Int64("rows", n).Str("took", logfmt.Duration(time.Since(started))).Msg("exact row count complete")
		}
	}()
	return func() { cancel(); <-done }
}

// countRows runs SELECT COUNT(*) on a connection of its own, killing the query when ctx ends
// before it does (closing the connection alone would leave it running on the server).
func (r *run) countRows(ctx context.Context) (int64, error) {
	db, p := r.s.inspected, r.s.plan
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
	err = conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table.Qualify(p.Original.Schema, p.Original.Name)).Scan(&n)
	return n.Int64, err
}

// killQuery stops the statement running on connection id (best effort: it may have ended).
func killQuery(db *sql.DB, id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = db.ExecContext(ctx, fmt.Sprintf("KILL QUERY %d", id))
}
