package checksum

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/copier"
)

// span is a range of the shared key: (lower, upper], or [lower, upper] when inclusive; a nil end
// is unbounded (the first chunk reaches below the original's smallest key and the last above its
// largest, so ghost rows outside the original's keys are counted too).
type span struct {
	lower, upper []sql.RawBytes
	inclusive    bool
}

func (c *Checksum) describe(sp span) string {
	open := "("
	if sp.inclusive {
		open = "["
	}
	lo, hi := "-inf", "+inf"
	if sp.lower != nil {
		lo = copier.Format(sp.lower)
	}
	if sp.upper != nil {
		hi = copier.Format(sp.upper)
	}
	return open + lo + " .. " + hi + "]"
}

// round opens a snapshot and compares the given spans (nil: the whole table, chunk by chunk). It
// returns the spans that differ.
func (c *Checksum) round(ctx context.Context, n int, only []span) ([]span, error) {
	if h := c.cfg.Test.BeforeSnapshot; h != nil {
		if err := h(ctx, n); err != nil {
			return nil, err
		}
	}
	conn, err := c.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		conn.Close()
	}()
	var bad []span
	check := func(sp span) error {
		same, rows, err := c.compare(ctx, conn, sp)
		if err != nil {
			return fmt.Errorf("checksum: compare keys %s: %w", c.describe(sp), err)
		}
		if only == nil {
			c.res.Chunks++
			c.res.Rows += rows
		}
		if !same {
			bad = append(bad, sp)
		}
		return nil
	}
	if only != nil {
		for _, sp := range only {
			if err := check(sp); err != nil {
				return nil, err
			}
		}
		return bad, nil
	}
	return bad, c.walk(ctx, conn, check)
}

// walk calls check for each chunk of the original as the snapshot sees it, from the first key to
// the last, the ends unbounded.
func (c *Checksum) walk(ctx context.Context, conn *sql.Conn, check func(span) error) error {
	min, max, err := c.ranges.Bounds(ctx, conn)
	if err != nil {
		return fmt.Errorf("checksum: read key bounds: %w", err)
	}
	if min == nil {
		return check(span{})
	}
	lower, inclusive := min, true
	for first := true; ; first = false {
		upper, err := c.ranges.ChunkEnd(ctx, conn, lower, inclusive, max, c.cfg.ChunkSize())
		if err != nil {
			return fmt.Errorf("checksum: find a chunk's end: %w", err)
		}
		sp := span{lower: lower, upper: upper, inclusive: inclusive}
		if first {
			sp.lower = nil
		}
		last := c.ranges.Equal(upper, max)
		if last {
			sp.upper = nil
		}
		if err := check(sp); err != nil {
			return err
		}
		if last {
			return nil
		}
		lower, inclusive = upper, false
	}
}

// compare reads the count and the hash of the span on both sides; rows is the original's count.
func (c *Checksum) compare(ctx context.Context, conn *sql.Conn, sp span) (same bool, rows int64, err error) {
	ow, oa := c.ranges.Where(c.origKey, sp.lower, sp.inclusive, sp.upper)
	gw, ga := c.ranges.Where(c.ghostKey, sp.lower, sp.inclusive, sp.upper)
	q := fmt.Sprintf("SELECT 0, COUNT(*), COALESCE(BIT_XOR(%s), 0) FROM %s WHERE %s UNION ALL SELECT 1, COUNT(*), COALESCE(BIT_XOR(%s), 0) FROM %s WHERE %s",
		rowExpr(c.cols, false), c.from, ow, rowExpr(c.cols, true), c.ghost, gw)
	res, err := conn.QueryContext(ctx, q, append(oa, ga...)...)
	if err != nil {
		return false, 0, err
	}
	defer res.Close()
	var count [2]int64
	var sum [2]uint64
	for res.Next() {
		var side int
		var n int64
		var s uint64
		if err := res.Scan(&side, &n, &s); err != nil {
			return false, 0, err
		}
		count[side], sum[side] = n, s
	}
	if err := res.Err(); err != nil {
		return false, 0, err
	}
	return count[0] == count[1] && sum[0] == sum[1], count[0], nil
}

// snapshotAttempts is how often the original's read lock is tried before the checksum fails.
const snapshotAttempts = 5

// snapshot opens a connection whose transaction sees both tables at one moment: every change
// made to the original before it is in the ghost.
func (c *Checksum) snapshot(ctx context.Context) (*sql.Conn, error) {
	for attempt := 1; ; attempt++ {
		conn, err := c.trySnapshot(ctx)
		if err == nil {
			return conn, nil
		}
		if attempt >= snapshotAttempts || ctx.Err() != nil {
			return nil, fmt.Errorf("checksum: open a consistent snapshot (%d attempts): %w", attempt, err)
		}
		c.log.Warn().Err(err).Int("attempt", attempt).Msg("checksum: could not open a consistent snapshot; trying again")
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt) * 500 * time.Millisecond):
		}
	}
}

// trySnapshot locks the original for reads (writers wait, for as short as it can), waits until
// the applier has applied everything written before the lock, opens the snapshot, and unlocks.
func (c *Checksum) trySnapshot(ctx context.Context) (snap *sql.Conn, err error) {
	lock, err := c.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	// The lock session is never given back to the pool: closing it drops its lock, whatever failed.
	defer func() { _ = lock.Raw(func(any) error { return driver.ErrBadConn }); lock.Close() }()
	if _, err := lock.ExecContext(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", max(1, int(c.cfg.LockTimeout.Seconds())))); err != nil {
		return nil, err
	}
	if snap, err = c.db.Conn(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = snap.Raw(func(any) error { return driver.ErrBadConn })
			snap.Close()
		}
	}()
	if _, err = snap.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ"); err != nil {
		return nil, err
	}
	if _, err = lock.ExecContext(ctx, "LOCK TABLES "+c.cfg.Original.QualifiedName()+" READ"); err != nil {
		return nil, fmt.Errorf("lock %s: %w", c.cfg.Original.Name, err)
	}
	locked := time.Now()
	wait, cancel := context.WithTimeout(ctx, c.cfg.CatchUpTimeout)
	err = c.cfg.CatchUp.AwaitApplied(wait)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("wait for the binlog applier under the lock: %w", err)
	}
	if _, err = snap.ExecContext(ctx, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"); err != nil {
		return nil, err
	}
	if _, err = lock.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
		return nil, err
	}
	c.res.LockHeld = max(c.res.LockHeld, time.Since(locked))
	return snap, nil
}
