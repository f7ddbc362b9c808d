package checksum

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"
)

// snapshotAttempts is how often the original's read lock is tried when Config.LockAttempts is unset.
const snapshotAttempts = 5

// maxSnapshotPause is the longest pause between two attempts.
const maxSnapshotPause = 2 * time.Second

// snapshot opens n sessions whose transactions all see both tables at one moment: every change
// made to the original before it is in the ghost. A read lock that times out is tried again, up
// to Config.LockAttempts times, as the cut-over does; each time the log names the sessions that
// may hold it up (blockers.go).
func (c *Checksum) snapshot(ctx context.Context, n int) ([]*sql.Conn, error) {
	attempts := c.cfg.LockAttempts
	if attempts < 1 {
		attempts = snapshotAttempts
	}
	for attempt := 1; ; attempt++ {
		conns, err := c.trySnapshot(ctx, n)
		if err == nil {
			return conns, nil
		}
		blocked := ""
		if isLockWait(err) && ctx.Err() == nil {
			blocked = c.blockers(ctx)
		}
		if attempt >= attempts || ctx.Err() != nil {
			if blocked != "" {
				err = fmt.Errorf("%w; blocked by %s", err, blocked)
			}
			return nil, fmt.Errorf("checksum: open a consistent snapshot: gave up after %d attempts (--default-retries) of %s each (--cut-over-lock-timeout-seconds): %w",
				attempt, c.cfg.LockTimeout, err)
		}
		ev := c.log.Warn().Err(err).Int("attempt", attempt).Int("attempts", attempts)
		if blocked != "" {
			ev = ev.Str("blocked_by", blocked)
			ev.Msgf("checksum: could not open a consistent snapshot: the read lock on %s is blocked by %s; trying again", c.cfg.Original.Name, blocked)
		} else {
			ev.Msg("checksum: could not open a consistent snapshot; trying again")
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(time.Duration(attempt)*500*time.Millisecond, maxSnapshotPause)):
		}
	}
}

// discard closes a session without giving it back to the pool (whatever it holds is dropped).
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close()
}

// trySnapshot locks the original for reads (writers wait, for as short as it can), waits until
// the applier has applied everything written before the lock, opens the snapshot in n sessions,
// and unlocks. The original cannot change while it is locked and the applier has nothing left to
// write to the ghost: the n snapshots all see the same data.
func (c *Checksum) trySnapshot(ctx context.Context, n int) (snaps []*sql.Conn, err error) {
	lock, err := c.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	// The lock session is never given back to the pool: closing it drops its lock, whatever failed.
	defer discard(lock)
	if _, err := lock.ExecContext(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", max(1, int(c.cfg.LockTimeout.Seconds())))); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			for _, s := range snaps {
				discard(s)
			}
			snaps = nil
		}
	}()
	for range n {
		snap, err := c.db.Conn(ctx)
		if err != nil {
			return snaps, err
		}
		snaps = append(snaps, snap)
		if _, err = snap.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ"); err != nil {
			return snaps, err
		}
	}
	if _, err = lock.ExecContext(ctx, "LOCK TABLES "+c.cfg.Original.QualifiedName()+" READ"); err != nil {
		return snaps, fmt.Errorf("lock %s: %w", c.cfg.Original.Name, err)
	}
	locked := time.Now()
	wait, cancel := context.WithTimeout(ctx, c.cfg.CatchUpTimeout)
	err = c.cfg.CatchUp.AwaitApplied(wait)
	cancel()
	if err != nil {
		return snaps, fmt.Errorf("wait for the binlog applier under the lock: %w", err)
	}
	for _, snap := range snaps {
		if _, err = snap.ExecContext(ctx, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"); err != nil {
			return snaps, err
		}
	}
	if _, err = lock.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
		return snaps, err
	}
	c.res.LockHeld = max(c.res.LockHeld, time.Since(locked))
	return snaps, nil
}
