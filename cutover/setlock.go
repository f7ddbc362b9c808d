package cutover

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// The lock of a set in three-step. Each original is write-locked by a session of its own (C1
// holds the first), so that the originals can be released one at a time, in the order rename 2
// asks for them. Rename 2 (every ghost in, one statement) takes its metadata locks one after
// another and waits on one table at a time. Were every original released at once, a table rename 2
// had not reached yet would be free between its rename away and rename 2: the writes queued on it
// would find no table (error 1146, an outage). Released in turn, each original is released only
// once rename 2 waits on it, so its pending exclusive lock, queued behind that table's rename
// away, is served before the writes, which then find the new table.
//
// Where performance_schema does not show metadata locks, the order cannot be seen: every
// original is released at once (the outage is possible, nothing is lost).

// tableLock is a session holding one original of a set write-locked, with its liveness token.
type tableLock struct {
	table string
	s     *session
	token string
}

// openLockHolder opens a session with bounded timeouts that takes a fresh liveness token.
func (a *attempt) openLockHolder(ctx context.Context, name string) (*session, string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, "", fmt.Errorf("make liveness token: %w", err)
	}
	token := "ghostlite-cutover-" + hex.EncodeToString(b[:])
	s, err := openSession(ctx, a.cfg.DB, name)
	if err != nil {
		return nil, "", err
	}
	if err := s.exec(ctx,
		fmt.Sprintf("SET SESSION lock_wait_timeout = %d", a.lockWaitSeconds()),
		fmt.Sprintf("SET SESSION wait_timeout = %d", a.c1WaitTimeout())); err != nil {
		s.discard()
		return nil, "", err
	}
	var got int
	if err := s.conn.QueryRowContext(ctx, "SELECT COALESCE(GET_LOCK(?, 0), 0)", token).Scan(&got); err != nil || got != 1 {
		s.discard()
		return nil, "", fmt.Errorf("take liveness token %s on %s (got %d): %v", token, name, got, err)
	}
	return s, token, nil
}

// openSetLocks opens a lock session for each original of the set but the first (C1's).
func (a *attempt) openSetLocks(ctx context.Context) error {
	for _, t := range a.cfg.Also {
		s, token, err := a.openLockHolder(ctx, "lock of "+t.Original)
		if err != nil {
			return err
		}
		a.setLocks = append(a.setLocks, &tableLock{table: t.Original, s: s, token: token})
	}
	return nil
}

// lockSetAndSync is lockAndSync for a set: C1 locks the first original, each other lock session
// its own, then the sentinel proves every write before the locks is in the ghosts.
func (a *attempt) lockSetAndSync(ctx context.Context) error {
	if err := a.beforeStep(ctx, StepLock); err != nil {
		return err
	}
	lctx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout+time.Second)
	defer cancel()
	if err := a.lock.exec(lctx, "LOCK TABLES "+qualifiedWrite(a.cfg.Tables)); err != nil {
		return err
	}
	a.lockedAt = time.Now()
	for i, l := range a.setLocks {
		if err := l.s.exec(lctx, "LOCK TABLES "+qualifiedWrite(a.cfg.Also[i])); err != nil {
			return err
		}
	}
	return a.awaitSentinel(ctx)
}

// qualifiedWrite is "`schema`.`original` WRITE".
func qualifiedWrite(t Tables) string {
	q, _, _ := t.qualified()
	return q + " WRITE"
}

// setLocksAlive proves each other lock session of a set still holds its token (lockAlive checks C1).
func (a *attempt) setLocksAlive(ctx context.Context) error {
	for _, l := range a.setLocks {
		if err := a.tokenHeld(ctx, l.token, l.s, "lock session of "+l.table); err != nil {
			return err
		}
	}
	return nil
}

// unlockInTurn releases the originals of a set in the order rename 2 waits on them: the one it
// waits on, then, once it waits on another, that one, and so on; whatever it does not wait on
// (it ran, or metadata locks are not visible) is released at once.
func (a *attempt) unlockInTurn(ctx context.Context) error {
	held := map[string]*tableLock{a.cfg.Tables.Original: {table: a.cfg.Tables.Original, s: a.lock, token: a.token}}
	for _, l := range a.setLocks {
		held[l.table] = l
	}
	for len(held) > 0 {
		name := ""
		if a.caps.mdl {
			var err error
			if name, err = a.waitsOn(ctx, a.r2); err != nil {
				return err
			}
		}
		l, ok := held[name]
		if !ok { // rename 2 waits on none of them: release the rest together
			for n, l := range held {
				if err := a.release(ctx, l); err != nil {
					return err
				}
				delete(held, n)
			}
			break
		}
		if err := a.release(ctx, l); err != nil {
			return err
		}
		delete(held, name)
		if err := a.awaitMovedOn(ctx, name); err != nil {
			return err
		}
	}
	a.unlockedAt = time.Now()
	return nil
}

// release unlocks l's table. A lock session that died (its token is free) released it already:
// the release goes on, as after an UNLOCK.
func (a *attempt) release(ctx context.Context, l *tableLock) error {
	err := l.s.exec(ctx, "UNLOCK TABLES")
	if err == nil {
		return nil
	}
	if a.tokenHeld(ctx, l.token, l.s, l.s.name) != nil {
		a.log.Warn().Err(err).Str("session", l.s.name).Msg("lock session gone: its table is released")
		return nil
	}
	return err
}

// waitsOn is the table r's statement waits for a metadata lock on, "" when it waits on none.
func (a *attempt) waitsOn(ctx context.Context, r *renamer) (string, error) {
	if done, _ := r.poll(); done {
		return "", nil
	}
	locks, err := pendingLocks(ctx, a.obs.conn, r.id)
	if err != nil {
		return "", err
	}
	for _, l := range locks {
		if l.objectType == "TABLE" && l.schema == a.cfg.Tables.Schema {
			return l.name, nil
		}
	}
	return "", nil
}

// awaitMovedOn waits (bounded by the lock timeout) until rename 2 no longer waits on name: it
// took that table's lock (after the table's rename away) and waits on the next, or ran.
func (a *attempt) awaitMovedOn(ctx context.Context, name string) error {
	wctx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer cancel()
	for {
		on, err := a.waitsOn(wctx, a.r2)
		if err != nil {
			return err
		}
		if on != name {
			return nil
		}
		if err := sleep(wctx, a.cfg.PollInterval); err != nil {
			return fmt.Errorf("rename 2 still waits on %s after its release: %w", name, err)
		}
	}
}

// releaseSetLocks ends each other lock session of a set after a failure: UNLOCK TABLES, or a
// kill (confirmed) when it cannot.
func (a *attempt) releaseSetLocks(ctx context.Context, killer *session) error {
	for _, l := range a.setLocks {
		if l.s == nil || l.s.conn == nil {
			continue
		}
		uctx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
		err := l.s.exec(uctx, "UNLOCK TABLES")
		cancel()
		if err != nil {
			a.log.Warn().Err(err).Str("session", l.s.name).Msg("cannot unlock: killing it")
			if err := a.kill(ctx, killer, l.s); err != nil {
				return err
			}
		}
		l.s.discard()
	}
	return nil
}
