package cutover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/rs/zerolog"
)

// attempt is one try of a cut-over algorithm, with everything its recovery needs to undo it.
type attempt struct {
	cfg      Config
	algo     algorithm
	n        int
	sentinel Sentinel
	caps     capabilities
	log      zerolog.Logger

	token  string   // liveness GET_LOCK name held by C1
	obs    *session // observer
	lock   *session // C1
	r1, r2 *renamer // three-step: C18, C19; atomic and two-step: C2 (r1) only
	// more are three-step's renames away of a set's other tables (Config.Also), one per table;
	// setLocks hold those tables locked, each on its own (setlock.go).
	more     []*renamer
	setLocks []*tableLock
	before   []identities // of each table of the set (Config.set), read by checkStart

	lockedAt, unlockedAt time.Time

	// sentry is the COMMENT of the atomic algorithm's sentry table while it exists and C1 holds
	// it locked ("" before it is created and once it is dropped).
	sentry string
	// sentinelOK is set once the sentinel was confirmed applied in this attempt.
	sentinelOK bool
	// underLock is set once Config.UnderLock was called in this attempt, undone once its undo
	// ran; undoErr is the failure of the undo (the run stops then).
	underLock, undone bool
	undoErr           error
}

// runAttempts runs attempts of algo until one succeeds, a failure is final (unsafe, unknown
// state, ctx ended), or cfg.Retries attempts failed; it waits backoff(n) between attempts.
func runAttempts(ctx context.Context, algo algorithm, cfg Config, s Sentinel) error {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return err
	}
	if err := refuseSet(algo, len(cfg.Also)+1); err != nil {
		return err
	}
	t, name := cfg.Tables, cfg.setName()
	log := cfg.Logger.With().Str("component", "cutover").Str("algorithm", algo.name).Str("schema", t.Schema).Str("table", strings.Join(cfg.originals(), ",")).Logger()
	caps, err := probe(ctx, cfg.DB, log)
	if err != nil {
		return err
	}
	if err := RefuseOn(algo.name, caps.flavor); err != nil {
		return err
	}
	var last error
	for n := 1; n <= cfg.Retries; n++ {
		if n > 1 {
			wait := backoff(cfg.RetryBackoff, cfg.MaxBackoff, cfg.ExponentialBackoff, n-1)
			log.Info().Int("attempt", n).Str("backoff", logfmt.Duration(wait)).Msg("waiting before the next cut-over attempt")
			select {
			case <-ctx.Done():
				return fmt.Errorf("cut-over of %s aborted before attempt %d (last failure: %v): %w", name, n, last, ctx.Err())
			case <-time.After(wait):
			}
		}
		a := &attempt{cfg: cfg, algo: algo, n: n, sentinel: s, caps: caps,
			log: log.With().Int("attempt", n).Logger()}
		began := time.Now()
		err := a.runAndRecover(ctx)
		if cfg.AfterAttempt != nil {
			cfg.AfterAttempt(AttemptOutcome{Attempt: n, Took: time.Since(began), Locked: a.lockHeld(), Err: err})
		}
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrUnsafe) || errors.Is(err, ErrUnknownState) {
			return err
		}
		if why := neverSucceeds(err); why != "" { // permanent.go
			return fmt.Errorf("%w: cut-over of %s stopped after attempt %d: %s; %s in place under its name",
				ErrNeverSucceeds, name, n, why, inPlace(cfg))
		}
		last = err
		a.log.Warn().Err(err).Msg("cut-over attempt failed; original restored")
		if ctx.Err() != nil {
			return fmt.Errorf("cut-over of %s aborted in attempt %d; %s in place under its name: %w", name, n, inPlace(cfg), err)
		}
	}
	return fmt.Errorf("cut-over of %s failed after %d attempt(s); %s in place under its name: %w",
		name, cfg.Retries, inPlace(cfg), last)
}

// inPlace names the originals for "... in place under its name": "t is" or "t1, t2 are each".
func inPlace(cfg Config) string {
	if len(cfg.Also) == 0 {
		return cfg.Tables.Original + " is"
	}
	return strings.Join(cfg.originals(), ", ") + " are each"
}

// runAndRecover checks the starting state, runs the attempt and, on any failure, restores a
// known state. It returns nil only when the ghost is in place under the original's name.
func (a *attempt) runAndRecover(ctx context.Context) error {
	if gate := a.cfg.BeforeAttempt; gate != nil {
		if err := gate(ctx, a.n); err != nil {
			return fmt.Errorf("before cut-over attempt %d: %w", a.n, err)
		}
	}
	if err := a.checkStart(ctx); err != nil {
		return err
	}
	err := a.algo.run(a, ctx)
	if err == nil {
		a.closeSessions(ctx)
		return nil
	}
	return a.recover(ctx, err)
}

// checkStart requires, for each table of the set, tbl and ghost and no old table, and records
// which table is which.
func (a *attempt) checkStart(ctx context.Context) error {
	ss, err := a.freshState(ctx)
	if err != nil {
		return err
	}
	a.before = make([]identities, len(ss))
	for i, t := range a.cfg.set() {
		st := ss[i]
		switch {
		case !st.original.exists:
			return fmt.Errorf("%w: the original table %s.%s does not exist", ErrUnknownState, t.Schema, t.Original)
		case !st.ghost.exists:
			return fmt.Errorf("%w: the ghost table %s.%s does not exist", ErrUnknownState, t.Schema, t.Ghost)
		case st.old.exists:
			return fmt.Errorf("%w: a table named %s.%s already exists; the original cannot take that name: drop or rename it", ErrUnsafe, t.Schema, t.Old)
		}
		a.before[i] = identities{original: st.original.id, ghost: st.ghost.id}
	}
	return nil
}

// timeouts of the sessions. C1 is idle from LOCK TABLES to UNLOCK TABLES for at most three
// bounded steps (sentinel, two observations): its wait_timeout is a little more, so the server
// drops the lock if we freeze. The renames wait longer than that, so a frozen tool never leaves
// rename 2 timing out alone after rename 1 ran (C1 dies first and both renames run).
func (a *attempt) lockWaitSeconds() int64 { return dbconn.CeilSeconds(a.cfg.LockTimeout) }
func (a *attempt) c1WaitTimeout() int64   { return 4*a.lockWaitSeconds() + 1 }
func (a *attempt) renameLockWait() int64  { return 2*a.c1WaitTimeout() + a.lockWaitSeconds() }

// beforeStep runs the test seam for step, if any.
func (a *attempt) beforeStep(ctx context.Context, step Step) error {
	if a.cfg.Seams.BeforeStep == nil {
		return nil
	}
	info := StepInfo{Attempt: a.n}
	if a.lock != nil {
		info.Lock = a.lock.id
	}
	if a.r1 != nil {
		info.Rename1 = a.r1.id
	}
	if a.r2 != nil {
		info.Rename2 = a.r2.id
	}
	if err := a.cfg.Seams.BeforeStep(ctx, step, info); err != nil {
		return fmt.Errorf("before step %d (%s): %w", int(step), step, err)
	}
	return nil
}

// openObserverAndLock opens the sessions every algorithm starts with, before anything is locked
// (so the locked phase never waits for a connection): the observer, then, once no other session
// holds the ghost, C1 with its liveness token. openCtx bounds the opening; ctx bounds the wait
// for the ghost, which has its own limit (the lock timeout).
func (a *attempt) openObserverAndLock(ctx, openCtx context.Context) error {
	var err error
	if a.obs, err = openSession(openCtx, a.cfg.DB, "observer"); err != nil {
		return err
	}
	// A lock on the ghost would make the rename of the ghost wait on it, not behind C1.
	if err := a.checkGhostUnlocked(ctx, a.obs.conn); err != nil {
		return err
	}
	return a.openLockSession(openCtx)
}

// openLockSession opens C1 with bounded timeouts and makes it take a fresh liveness token.
func (a *attempt) openLockSession(ctx context.Context) error {
	var err error
	a.lock, a.token, err = a.openLockHolder(ctx, "lock C1")
	return err
}

// openRenamer opens a rename session for stmt that waits at most waitSeconds for each lock.
func (a *attempt) openRenamer(ctx context.Context, name, stmt string, waitSeconds int64) (*renamer, error) {
	s, err := openSessionWaiting(ctx, a.cfg.DB, name, waitSeconds)
	if err != nil {
		return nil, err
	}
	return newRenamer(s, stmt), nil
}

// unlock releases C1's table locks: the queued renames run first.
func (a *attempt) unlock(ctx context.Context) error {
	if err := a.lock.exec(ctx, "UNLOCK TABLES"); err != nil {
		return err
	}
	a.unlockedAt = time.Now()
	return nil
}

// renamers are the attempt's rename sessions, those that rename an original away first (a lone
// rename of a ghost in is harmless, a lone rename away is an outage), nil ones included.
func (a *attempt) renamers() []*renamer {
	return append(append([]*renamer{a.r1}, a.more...), a.r2)
}

// closeSessions releases every session of a successful attempt.
func (a *attempt) closeSessions(ctx context.Context) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.LockTimeout)
	defer cancel()
	for _, r := range a.renamers() {
		r.close(cctx)
	}
	a.lock.discard()
	for _, l := range a.setLocks {
		l.s.discard()
	}
	if a.obs != nil && a.obs.conn != nil {
		_ = a.obs.conn.Close()
	}
}

// logLockAndRename logs gh-ost's line for how long the original's writes were blocked: from the
// lock to renamed, the moment the swap completed (wrappers and runbooks watch it).
func (a *attempt) logLockAndRename(renamed time.Time) {
	quoted := make([]string, 0, len(a.cfg.Also)+1)
	for _, name := range a.cfg.originals() {
		quoted = append(quoted, table.QuoteIdent(name))
	}
	a.log.Info().Msgf("Lock & rename duration: %s. During mgtr time, queries on %s were blocked",
		renamed.Sub(a.lockedAt), strings.Join(quoted, ", "))
}

// lockHeld is how long the attempt held the original locked: up to its unlock, or up to now when
// it never unlocked itself (its session was killed or closed); 0 when it never locked.
func (a *attempt) lockHeld() time.Duration {
	switch {
	case a.lockedAt.IsZero():
		return 0
	case a.unlockedAt.After(a.lockedAt):
		return a.unlockedAt.Sub(a.lockedAt)
	}
	return time.Since(a.lockedAt)
}
