package cutover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// verifySwapped checks the end state of a successful attempt: for each table of the set, the
// former ghost is named like the original, the original is named old, and the ghost name is free.
func (a *attempt) verifySwapped(ctx context.Context) error {
	set := a.cfg.set()
	ss, err := readStates(ctx, a.obs.conn, set, a.caps.idSource)
	if err != nil {
		return err
	}
	for i, st := range ss {
		if !st.original.exists || !st.old.exists || st.ghost.exists ||
			!sameTable(st.original.id, a.before[i].ghost) || !sameTable(st.old.id, a.before[i].original) {
			return fmt.Errorf("renames reported success but the state is %s", ss.describe(set))
		}
	}
	return nil
}

// freshState reads the real state of the three names of each table on a fresh, proven session:
// an idle pooled connection may sit on a silently cut path and hang.
func (a *attempt) freshState(ctx context.Context) (states, error) {
	s, err := openSession(ctx, a.cfg.DB, "state reader")
	if err != nil {
		return nil, err
	}
	defer s.discard()
	return readStates(ctx, s.conn, a.cfg.set(), a.caps.idSource)
}

// settle is how every algorithm's recovery starts: within a bounded context that survives the
// caller's cancellation, kill our rename sessions and confirm they are gone, release C1, then
// read the real state. The returned context bounds the recovery's own actions; call cancel.
func (a *attempt) settle(ctx context.Context, cause error) (context.Context, context.CancelFunc, states, error) {
	t := a.cfg.Tables
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*a.cfg.LockTimeout+10*time.Second)
	a.log.Warn().Err(cause).Msg("cut-over attempt failed: killing our rename sessions, then reading the tables' state")
	if err := a.stopSessions(rctx); err != nil {
		return rctx, cancel, nil, fmt.Errorf("%w: cannot confirm our rename sessions are gone (%v), so the state of %s, %s and %s%s cannot be trusted; check them by hand (attempt failed: %v)",
			ErrUnknownState, err, t.Original, t.Old, t.Ghost, a.andTheOthers(), cause)
	}
	st, err := a.freshState(rctx)
	if err != nil {
		return rctx, cancel, st, fmt.Errorf("%w: %v (attempt failed: %v)", ErrUnknownState, err, cause)
	}
	return rctx, cancel, st, nil
}

// andTheOthers is " (and those of t2, t3)" for a set, "" for one table.
func (a *attempt) andTheOthers() string {
	if len(a.cfg.Also) == 0 {
		return ""
	}
	return " (and those of " + strings.Join(a.cfg.originals()[1:], ", ") + ")"
}

// unknownState is the error for a state no step of ours can produce: nothing is touched.
func (a *attempt) unknownState(st states, cause error) error {
	var ids []string
	for i, b := range a.before {
		ids = append(ids, fmt.Sprintf("%s: original id %d, ghost id %d", a.cfg.set()[i].Original, b.original, b.ghost))
	}
	return fmt.Errorf("%w after a failed attempt: %s (before: %s); touching nothing (attempt failed: %v)",
		ErrUnknownState, st.describe(a.cfg.set()), strings.Join(ids, "; "), cause)
}

// remedy is what a recovery decides from one reading of the state: either a final answer
// (act is nil), or one action that brings the tables to a known state, after which the answer
// is then. byHand is the statement a person would run for the same effect.
type remedy struct {
	result error // final answer when act is nil: nil means the swap is complete
	what   string
	act    func(context.Context) error
	byHand string
	then   error
}

// final is a remedy that only answers.
func final(result error) remedy { return remedy{result: result} }

// renameRemedy runs one RENAME TABLE of every table of the set from its from name to its to name
// (Config.renameList) and then answers then.
func (a *attempt) renameRemedy(what string, from, to func(Tables) string, then error) remedy {
	return a.renameRemedyOf(what, a.cfg.set(), from, to, then)
}

// renameRemedyOf is renameRemedy for the tables ts only.
func (a *attempt) renameRemedyOf(what string, ts []Tables, from, to func(Tables) string, then error) remedy {
	stmt := "RENAME TABLE " + renameList(ts, from, to)
	return remedy{what: what, then: then, byHand: stmt,
		act: func(ctx context.Context) error { return a.renameOnce(ctx, what, stmt) }}
}

// recoveryRounds bounds how often a recovery acts and reads the state again.
const recoveryRounds = 3

// recover runs after any failure of an attempt, whatever the algorithm: settle (our sessions
// gone, C1 released, state read), then decide from the state and act. It returns nil when the
// swap completed (roll forward), cause when the original is in place (possibly after rolling
// back), and an error wrapping ErrUnknownState when it cannot tell or cannot restore.
// An action that fails is never retried blindly: the state is read again and decided again
// (something else may have renamed meanwhile, e.g. a rename the server was still completing),
// for at most recoveryRounds actions. When it gives up, its advice comes from the last state
// read, so it never contradicts the tables.
func (a *attempt) recover(ctx context.Context, cause error) error {
	err := a.recoverTables(ctx, cause)
	if err != nil && !a.undone && a.underLock && a.cfg.UndoUnderLock != nil && !errors.Is(err, ErrUnknownState) {
		// The original is in place again (rolled back): the ghost must lose what UnderLock did.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*a.cfg.LockTimeout+10*time.Second)
		a.undoUnderLock(uctx)
		cancel()
	}
	if a.undoErr != nil && err != nil && !errors.Is(err, ErrUnknownState) {
		// The original is in place, but the ghost may keep what UnderLock did: no retry.
		return fmt.Errorf("%w: the work done under the lock could not be undone (%v): %w", ErrUnsafe, a.undoErr, err)
	}
	return err
}

// recoverTables is recover but for the undo of Config.UnderLock (done by settle).
func (a *attempt) recoverTables(ctx context.Context, cause error) error {
	set := a.cfg.set()
	rctx, cancel, st, err := a.settle(ctx, cause)
	defer cancel()
	if err != nil {
		return err
	}

	var last error
	for round := 1; ; round++ {
		r := a.decide(st, cause)
		if r.act == nil {
			return r.result
		}
		if round > recoveryRounds {
			return fmt.Errorf("%w: %s failed %d times (last: %v); the tables are now %s: run %s by hand (attempt failed: %v)",
				ErrUnknownState, r.what, recoveryRounds, last, st.describe(set), r.byHand, cause)
		}
		if last = r.act(rctx); last == nil {
			return r.then
		}
		a.log.Warn().Err(last).Str("action", r.what).Msg("recovery action failed: reading the tables' state again")
		if err := sleep(rctx, 10*a.cfg.PollInterval); err != nil {
			return fmt.Errorf("%w: %s failed (%v) and the recovery ran out of time; the tables were %s (attempt failed: %v)",
				ErrUnknownState, r.what, last, st.describe(set), cause)
		}
		if st, err = a.freshState(rctx); err != nil {
			return fmt.Errorf("%w: %s failed (%v), then %v (attempt failed: %v)", ErrUnknownState, r.what, last, err, cause)
		}
	}
}

// decide is every algorithm's recovery decision from one reading of the state. The layouts any
// attempt can leave are decided here; the two that only some algorithms leave are decided by the
// algorithm (registry.go), and are unknown states for the others.
func (a *attempt) decide(st states, cause error) remedy {
	desc := st.describe(a.cfg.set())
	switch st.layout(a.before) {
	case layoutNothingRenamed:
		a.log.Info().Str("state", desc).Msg("nothing was renamed: the original is in place")
		return final(cause)
	case layoutSwapped:
		a.log.Warn().Str("state", desc).Err(cause).Msgf("%s ran despite the failure: the swap is complete, rolling forward", a.algo.swap)
		return final(nil)
	case layoutRenamedAway:
		if a.algo.renamedAway != nil {
			return a.algo.renamedAway(a, st, cause)
		}
	case layoutUnknown:
		if a.algo.renamedAway != nil && st.partlyRenamedAway(a.before) {
			return a.algo.renamedAway(a, st, cause)
		}
	case layoutOldTaken:
		if a.algo.oldTaken != nil {
			return a.algo.oldTaken(a, st, cause)
		}
	}
	return final(a.unknownState(st, cause))
}

// rollBack is the remedy for a missing original: rename old back to the original's name, for
// every table of the set renamed away in st (one statement).
func (a *attempt) rollBack(st states, cause error) remedy {
	var away []Tables
	var names []string
	for i, t := range a.cfg.set() {
		if st[i].layout(a.before[i]) == layoutRenamedAway {
			away, names = append(away, t), append(names, t.Original)
		}
	}
	return a.renameRemedyOf("roll back", away, oldName, originalName,
		fmt.Errorf("rolled back (%s was briefly missing): %w", strings.Join(names, ", "), cause))
}

// partlyRenamedAway says whether some tables of a set are renamed away and every other one is
// as it was (three-step renames a set's tables away one statement each: a failure between them
// leaves that).
func (st states) partlyRenamedAway(befores []identities) bool {
	away := false
	for i, s := range st {
		switch s.layout(befores[i]) {
		case layoutRenamedAway:
			away = true
		case layoutNothingRenamed:
		default:
			return false
		}
	}
	return away
}

// stopSessions kills rename 1 (each of a set's renames away), then rename 2 (a lone rename 2 is
// harmless, a lone rename 1 is an outage), unless the server reported it done, confirms each is gone, then releases C1 (killing
// it, and waiting until it is gone, when it cannot unlock) and closes everything.
func (a *attempt) stopSessions(ctx context.Context) error {
	defer func() {
		if a.obs != nil && a.obs.conn != nil {
			_ = a.obs.conn.Close()
			a.obs.conn = nil
		}
	}()
	killer, err := openSession(ctx, a.cfg.DB, "killer")
	if err != nil {
		return err
	}
	defer killer.discard()
	for _, r := range a.renamers() {
		if r == nil || r.session == nil {
			continue
		}
		// Only a RENAME the server answered with success is known to be over. One that failed on
		// our side (a killed or cut connection) may still be running, or about to be granted,
		// on the server: end it and wait until the server no longer shows the session.
		if done, res := r.poll(); r.started && (!done || res != nil) {
			if err := a.kill(ctx, killer, r.session); err != nil {
				return err
			}
		}
		r.close(ctx)
		a.log.Info().Str("session", r.name).Int64("connection", r.id).Bool("issued", r.started).
			AnErr("rename_result", r.result).Msg("rename session ended")
	}
	// Undo UnderLock while C1 still holds the lock, when the original and the ghost are still under
	// their names (nothing of ours was renamed: the original stays);
	// any other layout is undone, if the original ends in place, once the recovery decided.
	if a.underLock && a.cfg.UndoUnderLock != nil {
		if st, err := a.freshState(ctx); err == nil {
			if l := st.layout(a.before); l == layoutNothingRenamed || l == layoutOldTaken { // the atomic sentry may hold the old name
				a.undoUnderLock(ctx)
			}
		}
	}
	if a.lock == nil || a.lock.conn == nil {
		return a.releaseSetLocks(ctx, killer)
	}
	uctx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer cancel()
	if err := a.lock.exec(uctx, "UNLOCK TABLES"); err != nil {
		a.log.Warn().Err(err).Msg("C1 cannot unlock: killing it")
		if err := a.kill(ctx, killer, a.lock); err != nil {
			return err
		}
	}
	a.lock.discard()
	return a.releaseSetLocks(ctx, killer)
}

// kill ends one of our own sessions by id and waits until the processlist no longer shows it.
func (a *attempt) kill(ctx context.Context, killer, s *session) error {
	_, err := killer.conn.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", s.id))
	var me *mysql.MySQLError
	if err != nil && !(errors.As(err, &me) && me.Number == 1094) { // 1094: unknown thread id: already gone
		return fmt.Errorf("kill %s (connection %d): %w", s.name, s.id, err)
	}
	wctx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout+5*time.Second)
	defer cancel()
	for {
		ps, err := processState(wctx, killer.conn, a.caps.processlist, s.id)
		if err != nil {
			return fmt.Errorf("confirm %s (connection %d) is gone: %w", s.name, s.id, err)
		}
		if _, alive := ps[s.id]; !alive {
			a.log.Debug().Int64("connection", s.id).Str("session", s.name).Msg("killed")
			return nil
		}
		if err := sleep(wctx, a.cfg.PollInterval); err != nil {
			return fmt.Errorf("%s (connection %d) still in the processlist after KILL: %w", s.name, s.id, err)
		}
	}
}

// renameOnce runs the RENAME TABLE stmt on a fresh session, waiting at most the lock timeout.
func (a *attempt) renameOnce(ctx context.Context, what, stmt string) error {
	s, err := openSessionWaiting(ctx, a.cfg.DB, what, a.lockWaitSeconds())
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer s.discard()
	if err := s.exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	a.log.Warn().Str("statement", stmt).Msgf("%s done", what)
	return nil
}

// undoUnderLock runs Config.UndoUnderLock once; its failure is kept in undoErr (the run stops).
func (a *attempt) undoUnderLock(ctx context.Context) {
	a.undone = true
	if err := a.cfg.UndoUnderLock(ctx); err != nil {
		a.undoErr = err
		a.log.Error().Err(err).Msg("cannot undo the work done under the lock")
	}
}
