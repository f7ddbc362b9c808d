package cutover

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/rs/zerolog"
)

// attempt is one try of the three-step cut-over, with everything recover needs to undo it.
type attempt struct {
	cfg      Config
	n        int
	sentinel Sentinel
	caps     capabilities
	log      zerolog.Logger

	token  string   // liveness GET_LOCK name held by C1
	obs    *session // observer
	lock   *session // C1
	r1, r2 *renamer // C18, C19
	before identities

	lockedAt, unlockedAt time.Time

	// algo selects the algorithm of this attempt ("" is three-step).
	algo string
	// sentry is the COMMENT of the atomic algorithm's sentry table ("" until created).
	sentry string
	// sentryDropped: C1 dropped the sentry, so a queued rename may wait only on the original.
	sentryDropped bool
	// sentinelOK is set once the sentinel was confirmed applied in this attempt.
	sentinelOK bool
}

// secondsCeil is d in whole seconds, rounded up, at least 1 (session timeouts are integers).
func secondsCeil(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}

// timeouts of the sessions. C1 is idle from LOCK TABLES to UNLOCK TABLES for at most three
// bounded steps (sentinel, two observations): its wait_timeout is a little more, so the server
// drops the lock if we freeze. The renames wait longer than that, so a frozen tool never leaves
// rename 2 timing out alone after rename 1 ran (C1 dies first and both renames run).
func (a *attempt) lockWaitSeconds() int64 { return secondsCeil(a.cfg.LockTimeout) }
func (a *attempt) c1WaitTimeout() int64   { return 4*a.lockWaitSeconds() + 1 }
func (a *attempt) renameLockWait() int64  { return 2*a.c1WaitTimeout() + a.lockWaitSeconds() }

func (a *attempt) hook(ctx context.Context, step Step) error {
	if a.cfg.Hooks.BeforeStep == nil {
		return nil
	}
	info := HookInfo{Attempt: a.n}
	if a.lock != nil {
		info.Lock = a.lock.id
	}
	if a.r1 != nil {
		info.Rename1 = a.r1.id
	}
	if a.r2 != nil {
		info.Rename2 = a.r2.id
	}
	if err := a.cfg.Hooks.BeforeStep(ctx, step, info); err != nil {
		return fmt.Errorf("before step %d (%s): %w", int(step), step, err)
	}
	return nil
}

// runAndRecover checks the starting state, runs the attempt and, on any failure, restores a
// known state. It returns nil only when the ghost is in place under the original's name.
func (a *attempt) runAndRecover(ctx context.Context) error {
	if err := a.checkStart(ctx); err != nil {
		return err
	}
	run, recover := a.run, a.recover
	switch a.algo {
	case AlgorithmAtomic:
		run, recover = a.runAtomic, a.recoverAtomic
	case AlgorithmTwoStep:
		run, recover = a.runTwoStep, a.recoverTwoStep
	}
	err := run(ctx)
	if err == nil {
		a.closeSessions(ctx)
		return nil
	}
	return recover(ctx, err)
}

// checkStart requires tbl and ghost, and no old table, and records which table is which.
func (a *attempt) checkStart(ctx context.Context) error {
	t := a.cfg.Tables
	st, err := a.freshState(ctx)
	if err != nil {
		return err
	}
	switch {
	case !st.original.exists:
		return fmt.Errorf("%w: the original table %s.%s does not exist", ErrUnknownState, t.Schema, t.Original)
	case !st.ghost.exists:
		return fmt.Errorf("%w: the ghost table %s.%s does not exist", ErrUnknownState, t.Schema, t.Ghost)
	case st.old.exists:
		return fmt.Errorf("%w: a table named %s.%s already exists; the original cannot take that name: drop or rename it", ErrUnsafe, t.Schema, t.Old)
	}
	a.before = identities{original: st.original.id, ghost: st.ghost.id}
	return nil
}

// run performs steps 1 to 7. Any error leaves cleanup to recover.
func (a *attempt) run(ctx context.Context) error {
	t := a.cfg.Tables
	lt := a.cfg.LockTimeout
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("make liveness token: %w", err)
	}
	a.token = "ghostlite-cutover-" + hex.EncodeToString(b[:])
	qOrig, qOld, qGhost := table.Qualify(t.Schema, t.Original), table.Qualify(t.Schema, t.Old), table.Qualify(t.Schema, t.Ghost)

	// Open every session before locking, so the locked phase never waits for a connection.
	octx, cancel := context.WithTimeout(ctx, lt)
	defer cancel()
	var err error
	if a.obs, err = openSession(octx, a.cfg.DB, "observer"); err != nil {
		return err
	}
	if err := a.checkGhostUnlocked(ctx, a.obs.conn); err != nil {
		return err
	}
	if a.lock, err = openSession(octx, a.cfg.DB, "lock C1"); err != nil {
		return err
	}
	s1, err := openSession(octx, a.cfg.DB, "rename 1 C18")
	if err != nil {
		return err
	}
	a.r1 = newRenamer(s1, fmt.Sprintf("RENAME TABLE %s TO %s", qOrig, qOld))
	s2, err := openSession(octx, a.cfg.DB, "rename 2 C19")
	if err != nil {
		return err
	}
	a.r2 = newRenamer(s2, fmt.Sprintf("RENAME TABLE %s TO %s", qGhost, qOrig))
	for _, r := range []*renamer{a.r1, a.r2} {
		if err := r.exec(octx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", a.renameLockWait())); err != nil {
			return err
		}
	}
	if err := a.lock.exec(octx,
		fmt.Sprintf("SET SESSION lock_wait_timeout = %d", a.lockWaitSeconds()),
		fmt.Sprintf("SET SESSION wait_timeout = %d", a.c1WaitTimeout())); err != nil {
		return err
	}
	var got int
	if err := a.lock.conn.QueryRowContext(octx, "SELECT COALESCE(GET_LOCK(?, 0), 0)", a.token).Scan(&got); err != nil || got != 1 {
		return fmt.Errorf("take liveness token %s on C1 (got %d): %v", a.token, got, err)
	}
	a.log.Debug().Int64("c1", a.lock.id).Int64("c18", a.r1.id).Int64("c19", a.r2.id).Str("token", a.token).Msg("sessions open")

	// Steps 1 and 2: lock the original; every write before the lock reached the ghost.
	if err := a.lockAndSync(ctx, qOrig+" WRITE"); err != nil {
		return err
	}
	// Steps 3 and 4: queue rename 1 while C1 provably holds the lock; see it waiting.
	if err := a.queueRename(ctx, StepRename1, a.r1, "rename 1"); err != nil {
		return err
	}
	if err := a.observeAt(ctx, StepObserve1, "observe rename 1", a.r1); err != nil {
		return err
	}
	// Steps 5 and 6: queue rename 2 behind rename 1; both wait, on the original, behind a live C1.
	if err := a.queueRename(ctx, StepRename2, a.r2, "rename 2"); err != nil {
		return err
	}
	if err := a.observeAt(ctx, StepObserve2, "observe rename 2", a.r2, a.r1); err != nil {
		return err
	}

	// Step 7: release; rename 1 then rename 2 run before the queued writes.
	if err := a.hook(ctx, StepUnlock); err != nil {
		return err
	}
	uctx, ucancel := context.WithTimeout(ctx, lt)
	defer ucancel()
	if err := a.lock.exec(uctx, "UNLOCK TABLES"); err != nil {
		return err
	}
	a.unlockedAt = time.Now()
	if err := a.r1.wait(uctx); err != nil {
		return fmt.Errorf("rename 1 after unlock: %w", err)
	}
	if err := a.r2.wait(uctx); err != nil {
		return fmt.Errorf("rename 2 after unlock: %w", err)
	}
	swapped := time.Now()
	if err := a.verifySwapped(ctx); err != nil {
		return err
	}
	a.log.Info().Dur("locked", a.unlockedAt.Sub(a.lockedAt)).Dur("renames_after_unlock", swapped.Sub(a.unlockedAt)).
		Msgf("cut-over complete: %s is the former ghost, the original is %s", t.Original, t.Old)
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
	why := "not polled"
	for {
		ready, err := a.observeOnce(ctx, ids, rs)
		if err != nil {
			return err
		}
		if ready == "" {
			return a.lockAlive(ctx)
		}
		why = ready
		if err := sleep(ctx, a.cfg.PollInterval); err != nil {
			return fmt.Errorf("renames not in place within %s (%s): %w", a.cfg.LockTimeout, why, err)
		}
	}
}

// observeOnce returns "" when the renames are in place, or what is still missing.
func (a *attempt) observeOnce(ctx context.Context, ids []int64, rs []*renamer) (string, error) {
	ps, err := processState(ctx, a.obs.conn, ids...)
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

// closeSessions releases every session of a successful attempt.
func (a *attempt) closeSessions(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.LockTimeout)
	defer cancel()
	a.r1.close(cctx)
	a.r2.close(cctx)
	a.lock.discard()
	if a.obs != nil && a.obs.conn != nil {
		_ = a.obs.conn.Close()
	}
}

// awaitSentinel runs step 2 of every algorithm: with the original locked, the migrator proves
// (bounded by the lock timeout) that every change before the lock is in the ghost.
func (a *attempt) awaitSentinel(ctx context.Context) error {
	if err := a.hook(ctx, StepSentinel); err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer cancel()
	if err := a.sentinel.Await(sctx); err != nil {
		return fmt.Errorf("await sentinel under the lock: %w", err)
	}
	a.sentinelOK = true
	return nil
}
