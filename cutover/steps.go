package cutover

import (
	"context"
	"fmt"
	"time"
)

// Steps the three algorithms share. Each runs its hook first (the test seam), so a kill injected
// "before step X" always lands before anything of X reached the server.

// lockAndSync is every algorithm's start: C1 locks tables (bounded; the server's
// lock_wait_timeout fires first), then the sentinel proves every write made before the lock is
// in the ghost.
func (a *attempt) lockAndSync(ctx context.Context, tables string) error {
	if err := a.hook(ctx, StepLock); err != nil {
		return err
	}
	lctx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout+time.Second)
	defer cancel()
	if err := a.lock.exec(lctx, "LOCK TABLES "+tables); err != nil {
		return err
	}
	a.lockedAt = time.Now()
	return a.awaitSentinel(ctx)
}

// queueRename issues r's RENAME right after proving that C1 still holds the lock, so the rename
// can only queue behind it. what names the rename in errors.
func (a *attempt) queueRename(ctx context.Context, step Step, r *renamer, what string) error {
	if err := a.hook(ctx, step); err != nil {
		return err
	}
	if err := a.lockAlive(ctx); err != nil {
		return fmt.Errorf("before %s: %w", what, err)
	}
	r.start(ctx)
	return nil
}

// observeAt runs observe at step; what prefixes its error.
func (a *attempt) observeAt(ctx context.Context, step Step, what string, rs ...*renamer) error {
	if err := a.hook(ctx, step); err != nil {
		return err
	}
	if err := a.observe(ctx, rs...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}
