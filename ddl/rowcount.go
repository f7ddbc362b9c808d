package ddl

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
// (plan.EstimateRows). With --exact-rowcount --concurrent-rowcount the exact count runs
// beside the copy instead and replaces the estimate when it is done.

// CountRowsBeside returns the two halves of the exact count of schema.tbl's rows on db (the
// inspected server) while the copy runs, for the caller to run side by side under one context,
// cancelled when the copy ends: count runs SELECT COUNT(*) on a connection of its own and hands
// the count to found, which makes it the run's estimate; kill waits for the count and, when the
// context ends first, stops its query with KILL QUERY (as gh-ost does before the cut-over: closing
// the connection alone would leave it running on the server). Both return nil: a failed or
// cancelled count is only logged, and the optimizer's estimate stays.
func CountRowsBeside(db *sql.DB, schema, tbl string, log zerolog.Logger, found func(int64)) (count, kill func(context.Context) error) {
	c := &rowCount{db: db, schema: schema, tbl: tbl, log: log, found: found,
		running: make(chan int64, 1), finished: make(chan struct{})}
	return c.count, c.kill
}

// rowCount is one concurrent count: running receives its connection's id once it has one,
// finished is closed when count returns.
type rowCount struct {
	db          *sql.DB
	schema, tbl string
	log         zerolog.Logger
	found       func(int64)
	running     chan int64
	finished    chan struct{}
}

func (c *rowCount) count(ctx context.Context) error {
	defer close(c.finished)
	started := time.Now()
	n, err := c.countRows(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		c.log.Info().Msg("exact row count cancelled: the copy finished first")
	case err != nil:
		c.log.Warn().Err(err).Msg("exact row count failed; progress uses the optimizer's estimate")
	default:
		c.found(n)
		c.log.Info().Int64("rows", n).Str("took", logfmt.Duration(time.Since(started))).Msg("exact row count complete")
	}
	return nil
}

// countRows runs SELECT COUNT(*) on a connection of its own, whose id it hands to kill first.
func (c *rowCount) countRows(ctx context.Context) (int64, error) {
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		return 0, err
	}
	c.running <- id
	var n sql.NullInt64
	err = conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table.Qualify(c.schema, c.tbl)).Scan(&n)
	return n.Int64, err
}

// kill issues KILL QUERY for the count's statement when ctx ends before the count does.
func (c *rowCount) kill(ctx context.Context) error {
	var id int64
	select {
	case id = <-c.running:
	case <-c.finished: // ended before its statement ran
		return nil
	}
	select {
	case <-c.finished:
	case <-ctx.Done():
		killQuery(c.db, id) //nolint:contextcheck // its own context: ctx has ended
	}
	return nil
}

// killQuery stops the statement running on connection id (best effort: it may have ended).
func killQuery(db *sql.DB, id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = db.ExecContext(ctx, fmt.Sprintf("KILL QUERY %d", id))
}
