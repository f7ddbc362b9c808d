package cutover

import (
	"context"
	"fmt"
	"time"
)

// Step numbers the steps of the cut-overs: 1 to 7 are the three-step one's, as in DESIGN.md.
type Step int

// The steps a test seam can act before.
const (
	StepLock     Step = 1 // C1: LOCK TABLES tbl WRITE (sessions are open, nothing locked yet)
	StepSentinel Step = 2 // wait for the sentinel (tbl is locked)
	StepRename1  Step = 3 // C18: RENAME tbl TO old
	StepObserve1 Step = 4 // observer: C18 waiting (rename 1 was issued)
	StepRename2  Step = 5 // C19: RENAME ghost TO tbl (rename 1 seen waiting)
	StepObserve2 Step = 6 // observer: C19 and C18 waiting (rename 2 was issued)
	StepUnlock   Step = 7 // C1: UNLOCK TABLES (every check passed)

	// Atomic (also uses StepLock and StepSentinel).
	StepSentry        Step = 8  // C1: CREATE the sentry table named like old (before StepLock)
	StepAtomicRename  Step = 9  // C2: RENAME tbl TO old, ghost TO tbl (tbl and sentry locked)
	StepAtomicObserve Step = 10 // observer: C2 waiting (the rename was issued)
	StepDropSentry    Step = 11 // C1: DROP the sentry, UNLOCK TABLES (every check passed)

	// Two-step (also uses StepLock and StepSentinel).
	StepRenameAway Step = 12 // C1: ALTER TABLE tbl RENAME TO old (releases the lock)
	StepRenameIn   Step = 13 // C2: RENAME ghost TO tbl (tbl is missing until it runs)

	// Atomic, once the sentry is dropped and the rename seen waiting on tbl: C1 UNLOCK TABLES.
	StepSentryDropped Step = 14

	// Lock-rename (also uses StepLock: hold the applier, C1 LOCK TABLES tbl WRITE, ghost WRITE;
	// and StepSentinel: the tail applied on C1).
	StepLockRename       Step = 15 // C1: RENAME tbl TO old, ghost TO tbl under its own lock
	StepLockRenameUnlock Step = 16 // C1: UNLOCK TABLES (the swap is done)
)

func (s Step) String() string {
	names := [...]string{"", "lock", "sentinel", "rename1", "observe1", "rename2", "observe2", "unlock",
		"sentry", "atomic-rename", "atomic-observe", "drop-sentry", "rename-away", "rename-in", "sentry-dropped", "lock-rename", "lock-rename-unlock"}
	if s < 1 || int(s) >= len(names) {
		return fmt.Sprintf("step(%d)", int(s))
	}
	return names[s]
}

// StepInfo tells a test seam where the cut-over is: the attempt (from 1) and the connection ids of
// C1, C18 and C19 (zero when that session is not open). For atomic and two-step, Rename1 is the
// rename session C2 and Rename2 is zero.
type StepInfo struct {
	Attempt                int
	Lock, Rename1, Rename2 int64
}

// TestSeams let tests act at a chosen step (the command line never sets them). BeforeStep runs
// just before step begins; an error it returns fails the attempt like any other error.
type TestSeams struct {
	BeforeStep func(ctx context.Context, step Step, info StepInfo) error
}

// Steps the algorithms share. Each runs its test seam first, so a kill injected "before step X"
// always lands before anything of X reached the server.

// lockAndSync is every algorithm's start: C1 locks tables (bounded; the server's
// lock_wait_timeout fires first), then the sentinel proves every write made before the lock is
// in the ghost.
func (a *attempt) lockAndSync(ctx context.Context, tables string) error {
	if err := a.beforeStep(ctx, StepLock); err != nil {
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
	if err := a.beforeStep(ctx, step); err != nil {
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
	if err := a.beforeStep(ctx, step); err != nil {
		return err
	}
	if err := a.observe(ctx, rs...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// awaitSentinel runs step 2 of every algorithm: with the original locked, the migrator proves
// (bounded by the lock timeout) that every change before the lock is in the ghost.
func (a *attempt) awaitSentinel(ctx context.Context) error {
	return a.awaitWith(ctx, "await sentinel under the lock", a.sentinel.Await)
}

// awaitWith is awaitSentinel with the proof made by await (what names it in errors).
func (a *attempt) awaitWith(ctx context.Context, what string, await func(context.Context) error) error {
	if err := a.beforeStep(ctx, StepSentinel); err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer cancel()
	if err := await(sctx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	a.sentinelOK = true
	if a.cfg.UnderLock != nil {
		a.underLock = true
		if err := a.cfg.UnderLock(sctx); err != nil {
			return fmt.Errorf("under the lock: %w", err)
		}
	}
	return nil
}

// observe polls until every rename in rs waits on a metadata lock (on the original itself, when
// performance_schema can tell) and then proves C1 still holds the lock. Bounded by LockTimeout.
// A rename that was already seen waiting (all but the first) must keep waiting at every poll.
func (a *attempt) observe(ctx context.Context, rs ...*renamer) error {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer cancel()
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.id
	}
	for {
		ready, err := a.observeOnce(ctx, ids, rs)
		if err != nil {
			return err
		}
		if ready == "" {
			return a.lockAlive(ctx)
		}
		if err := sleep(ctx, a.cfg.PollInterval); err != nil {
			return fmt.Errorf("renames not in place within %s (%s): %w", a.cfg.LockTimeout, ready, err)
		}
	}
}

// observeOnce returns "" when the renames are in place, or what is still missing.
func (a *attempt) observeOnce(ctx context.Context, ids []int64, rs []*renamer) (string, error) {
	ps, err := processState(ctx, a.obs.conn, a.caps.processlist, ids...)
	if err != nil {
		return "", err
	}
	for i, r := range rs {
		ok, err := a.queued(r, ps)
		if err != nil {
			return "", err
		}
		if !ok && i > 0 {
			return "", fmt.Errorf("%s (connection %d) stopped waiting: state %q", r.name, r.id, ps[r.id][0])
		}
		if !ok {
			return fmt.Sprintf("%s not yet waiting (state %q)", r.name, ps[r.id][0]), nil
		}
	}
	if a.caps.mdl {
		ok, why, err := a.pendingOnOriginal(ctx, rs...)
		if err != nil || !ok {
			return why, err
		}
	}
	return "", nil
}
