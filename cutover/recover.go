package cutover

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-sql-driver/mysql"
)

// tableState says whether a name exists and, when the server shows it, its InnoDB table id.
type tableState struct {
	exists bool
	id     int64 // 0 when unknown
}

func (s tableState) String() string {
	if !s.exists {
		return "missing"
	}
	if s.id == 0 {
		return "present"
	}
	return fmt.Sprintf("present(id %d)", s.id)
}

// state is what exists under the three names of a cut-over.
type state struct{ original, old, ghost tableState }

func (s state) describe(t Tables) string {
	return fmt.Sprintf("%s %s, %s %s, %s %s", t.Original, s.original, t.Old, s.old, t.Ghost, s.ghost)
}

// identities are the InnoDB ids of the original and the ghost before an attempt (0: unknown).
type identities struct{ original, ghost int64 }

// sameTable is false only when both ids are known and differ.
func sameTable(got, want int64) bool { return got == 0 || want == 0 || got == want }

// readState reads which of the three names exist, with their table ids when idSource is set.
func readState(ctx context.Context, q querier, t Tables, idSource string) (state, error) {
	var st state
	rows, err := q.QueryContext(ctx, `SELECT TABLE_NAME FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (?, ?, ?)`, t.Schema, t.Original, t.Old, t.Ghost)
	if err != nil {
		return st, fmt.Errorf("read state of %s.%s: %w", t.Schema, t.Original, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return st, fmt.Errorf("read state of %s.%s: %w", t.Schema, t.Original, err)
		}
		// information_schema compares case-insensitively; names are exact here.
		switch name {
		case t.Original:
			st.original.exists = true
		case t.Old:
			st.old.exists = true
		case t.Ghost:
			st.ghost.exists = true
		}
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("read state of %s.%s: %w", t.Schema, t.Original, err)
	}
	if idSource == "" {
		return st, nil
	}
	for _, x := range []struct {
		name string
		ts   *tableState
	}{{t.Original, &st.original}, {t.Old, &st.old}, {t.Ghost, &st.ghost}} {
		if !x.ts.exists {
			continue
		}
		// NAME is schema/table in the server's file-name encoding: plain names match, others
		// are simply not found and stay unknown (0).
		err := q.QueryRowContext(ctx, "SELECT TABLE_ID FROM information_schema."+idSource+" WHERE NAME = ?",
			t.Schema+"/"+x.name).Scan(&x.ts.id)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return st, fmt.Errorf("read table id of %s.%s: %w", t.Schema, x.name, err)
		}
	}
	return st, nil
}

// verifySwapped checks the end state of a successful attempt: the former ghost is named like
// the original, the original is named old, and the ghost name is free.
func (a *attempt) verifySwapped(ctx context.Context) error {
	t := a.cfg.Tables
	st, err := readState(ctx, a.obs.conn, t, a.caps.idSource)
	if err != nil {
		return err
	}
	if !st.original.exists || !st.old.exists || st.ghost.exists ||
		!sameTable(st.original.id, a.before.ghost) || !sameTable(st.old.id, a.before.original) {
		return fmt.Errorf("renames reported success but the state is %s", st.describe(t))
	}
	return nil
}

// freshState reads the real state of the three names on a fresh, proven session: an idle pooled
// connection may sit on a silently cut path and hang.
func (a *attempt) freshState(ctx context.Context) (state, error) {
	s, err := openSession(ctx, a.cfg.DB, "state reader")
	if err != nil {
		return state{}, err
	}
	defer s.discard()
	return readState(ctx, s.conn, a.cfg.Tables, a.caps.idSource)
}

// settle is how every algorithm's recovery starts: within a bounded context that survives the
// caller's cancellation, kill our rename sessions and confirm they are gone, release C1, then
// read the real state. The returned context bounds the recovery's own actions; call cancel.
func (a *attempt) settle(ctx context.Context, cause error) (context.Context, context.CancelFunc, state, error) {
	t := a.cfg.Tables
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*a.cfg.LockTimeout+10*time.Second)
	a.log.Warn().Err(cause).Msg("cut-over attempt failed: killing our rename sessions, then reading the tables' state")
	if err := a.stopSessions(rctx); err != nil {
		return rctx, cancel, state{}, fmt.Errorf("%w: cannot confirm our rename sessions are gone (%v), so the state of %s, %s and %s cannot be trusted; check them by hand (attempt failed: %v)",
			ErrUnknownState, err, t.Original, t.Old, t.Ghost, cause)
	}
	st, err := a.freshState(rctx)
	if err != nil {
		return rctx, cancel, st, fmt.Errorf("%w: %v (attempt failed: %v)", ErrUnknownState, err, cause)
	}
	return rctx, cancel, st, nil
}

// originalInPlace: the original still has its name and the ghost its own (old may be a sentry).
func (a *attempt) originalInPlace(st state) bool {
	return st.original.exists && st.ghost.exists && sameTable(st.original.id, a.before.original)
}

// swapCompleted: the former ghost carries the original's name and the original is the old table.
func (a *attempt) swapCompleted(st state) bool {
	return st.original.exists && st.old.exists && !st.ghost.exists &&
		sameTable(st.original.id, a.before.ghost) && sameTable(st.old.id, a.before.original)
}

// unknownState is the error for a state no step of ours can produce: nothing is touched.
func (a *attempt) unknownState(st state, cause error) error {
	return fmt.Errorf("%w after a failed attempt: %s (before: original id %d, ghost id %d); touching nothing (attempt failed: %v)",
		ErrUnknownState, st.describe(a.cfg.Tables), a.before.original, a.before.ghost, cause)
}

// recover runs after any failure of an attempt: kill our renames and confirm they are gone,
// release C1, read the real state, and act on it. It returns nil when the swap completed (roll
// forward), cause when the original is in place (possibly after rolling back), and an error
// wrapping ErrUnknownState when it cannot tell or cannot restore.
func (a *attempt) recover(ctx context.Context, cause error) error {
	t := a.cfg.Tables
	rctx, cancel, st, err := a.settle(ctx, cause)
	defer cancel()
	if err != nil {
		return err
	}
	desc := st.describe(t)
	switch {
	case a.originalInPlace(st) && !st.old.exists:
		a.log.Info().Str("state", desc).Msg("nothing was renamed: the original is in place")
		return cause
	case !st.original.exists && st.old.exists && st.ghost.exists && sameTable(st.old.id, a.before.original):
		a.log.Error().Str("state", desc).Msgf("rename 1 ran without rename 2: %s is missing; rolling back", t.Original)
		if err := a.rollback(rctx); err != nil {
			return fmt.Errorf("%w: %s is missing and rolling back failed (%v); run RENAME TABLE %s TO %s by hand (attempt failed: %v)",
				ErrUnknownState, t.Original, err, table.Qualify(t.Schema, t.Old), table.Qualify(t.Schema, t.Original), cause)
		}
		return fmt.Errorf("rolled back (%s was briefly missing): %w", t.Original, cause)
	case a.swapCompleted(st):
		a.log.Warn().Str("state", desc).Err(cause).Msg("both renames ran despite the failure: the swap is complete, rolling forward")
		return nil
	default:
		return a.unknownState(st, cause)
	}
}

// stopSessions kills rename 1, then rename 2 (a lone rename 2 is harmless, a lone rename 1 is an
// outage), confirms each is gone, then releases C1 and closes everything.
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
	for _, r := range []*renamer{a.r1, a.r2} {
		if r == nil || r.session == nil {
			continue
		}
		if done, _ := r.poll(); r.started && !done {
			if err := a.kill(ctx, killer, r.session); err != nil {
				return err
			}
		}
		r.close(ctx)
		a.log.Info().Str("session", r.name).Int64("connection", r.id).Bool("issued", r.started).
			AnErr("rename_result", r.result).Msg("rename session ended")
	}
	if a.lock == nil || a.lock.conn == nil {
		return nil
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
	return nil
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
		ps, err := processState(wctx, killer.conn, s.id)
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

// rollback renames old back to the original's name.
func (a *attempt) rollback(ctx context.Context) error {
	t := a.cfg.Tables
	return a.renameRetry(ctx, "roll back", table.Qualify(t.Schema, t.Old), table.Qualify(t.Schema, t.Original))
}

// renameRetry runs RENAME TABLE from TO to on a fresh session, a few times if it must.
func (a *attempt) renameRetry(ctx context.Context, what, from, to string) error {
	stmt := fmt.Sprintf("RENAME TABLE %s TO %s", from, to)
	var last error
	for i := 0; i < 3; i++ {
		if i > 0 {
			if err := sleep(ctx, a.cfg.PollInterval*10); err != nil {
				break
			}
		}
		s, err := openSession(ctx, a.cfg.DB, what)
		if err != nil {
			last = err
			continue
		}
		last = s.exec(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", a.lockWaitSeconds()), stmt)
		s.discard()
		if last == nil {
			a.log.Warn().Str("statement", stmt).Msgf("%s done", what)
			return nil
		}
	}
	return fmt.Errorf("%s: %w", what, last)
}
