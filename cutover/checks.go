package cutover

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// minMaxWriteLockCount is the lowest @@max_write_lock_count we accept: below it, writes queued
// behind the lock may be served ahead of the renames (FACTS: metadata locks).
const minMaxWriteLockCount = 1000

// mdlWaitState is the processlist STATE of a statement waiting on a metadata lock.
const mdlWaitState = "Waiting for table metadata lock"

// capabilities are the checks the server lets us make, probed once per cut-over.
type capabilities struct {
	flavor   dbconn.Flavor
	mdl      bool   // performance_schema.metadata_locks is usable
	mdlWhy   string // why not, when mdl is false
	idSource string // where table ids are read (dbconn.TableIDSources), "" when none is readable
	// processlist is where the sessions' STATE and INFO are read (dbconn.ProcesslistTable)
	processlist string
}

// probe refuses a server where the renames could be overtaken, and finds which checks it allows.
func probe(ctx context.Context, db *sql.DB, log zerolog.Logger) (capabilities, error) {
	var c capabilities
	var mwlc uint64
	var err error
	if err = db.QueryRowContext(ctx, "SELECT @@GLOBAL.max_write_lock_count").Scan(&mwlc); err != nil {
		return c, fmt.Errorf("cut-over: read max_write_lock_count: %w", err)
	}
	if c.flavor, err = dbconn.DetectFlavor(ctx, db); err != nil {
		return c, fmt.Errorf("cut-over: %w", err)
	}
	if mwlc < minMaxWriteLockCount {
		return c, fmt.Errorf("%w: @@max_write_lock_count is %d (< %d): writes queued behind the lock could run before the renames; raise it to its default",
			ErrUnsafe, mwlc, minMaxWriteLockCount)
	}
	c.mdl, c.mdlWhy = dbconn.MetadataLocksVisible(ctx, db)
	c.idSource = dbconn.ReadableTableIDSource(ctx, db)
	c.processlist = dbconn.ProcesslistTable(ctx, db)
	ev := log.Info().Bool("processlist_check", true).Bool("liveness_token", true).
		Uint64("max_write_lock_count", mwlc).Bool("metadata_locks_check", c.mdl).
		Str("table_identity_source", c.idSource).Str("processlist", c.processlist)
	if !c.mdl {
		ev = ev.Str("metadata_locks_unavailable", c.mdlWhy)
	}
	ev.Msg("cut-over checks available")
	if !c.mdl {
		log.Warn().Msg("performance_schema metadata locks are not visible: only LOCK TABLES on the ghost can be detected (SHOW OPEN TABLES); an idle transaction holding the ghost would leave the original name missing after the first rename")
	}
	return c, nil
}

// mdlLock is one metadata lock from performance_schema, with the owner's connection id.
type mdlLock struct {
	conn       int64
	objectType string
	schema     string
	name       string
	lockType   string
	status     string
}

func (l mdlLock) String() string {
	return fmt.Sprintf("connection %d %s %s on %s %s.%s", l.conn, l.status, l.lockType, l.objectType, l.schema, l.name)
}

// tableLocks lists the metadata locks on schema.name.
func tableLocks(ctx context.Context, q dbconn.Querier, schema, name string) ([]mdlLock, error) {
	return queryLocks(ctx, q, `SELECT COALESCE(t.PROCESSLIST_ID, 0), m.OBJECT_TYPE, COALESCE(m.OBJECT_SCHEMA, ''),
		COALESCE(m.OBJECT_NAME, ''), m.LOCK_TYPE, m.LOCK_STATUS
		FROM performance_schema.metadata_locks m LEFT JOIN performance_schema.threads t ON t.THREAD_ID = m.OWNER_THREAD_ID
		WHERE m.OBJECT_TYPE = 'TABLE' AND m.OBJECT_SCHEMA = ? AND m.OBJECT_NAME = ?`, schema, name)
}

// pendingLocks lists the metadata locks the given connections are waiting for.
func pendingLocks(ctx context.Context, q dbconn.Querier, conns ...int64) ([]mdlLock, error) {
	args := make([]any, len(conns))
	for i, c := range conns {
		args[i] = c
	}
	return queryLocks(ctx, q, `SELECT t.PROCESSLIST_ID, m.OBJECT_TYPE, COALESCE(m.OBJECT_SCHEMA, ''),
		COALESCE(m.OBJECT_NAME, ''), m.LOCK_TYPE, m.LOCK_STATUS
		FROM performance_schema.metadata_locks m JOIN performance_schema.threads t ON t.THREAD_ID = m.OWNER_THREAD_ID
		WHERE m.LOCK_STATUS = 'PENDING' AND t.PROCESSLIST_ID IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(conns)), ", ")+`)`, args...)
}

func queryLocks(ctx context.Context, q dbconn.Querier, query string, args ...any) ([]mdlLock, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read performance_schema.metadata_locks: %w", err)
	}
	defer rows.Close()
	var out []mdlLock
	for rows.Next() {
		var l mdlLock
		if err := rows.Scan(&l.conn, &l.objectType, &l.schema, &l.name, &l.lockType, &l.status); err != nil {
			return nil, fmt.Errorf("read performance_schema.metadata_locks: %w", err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// checkGhostUnlocked refuses to start while another session holds a lock on the ghost: RENAME
// ghost TO tbl would then wait on the ghost, not behind rename 1, and the original name would go
// missing after UNLOCK. A lock held by a short transaction (the applier's) comes and goes, so the
// check passes as soon as one poll sees the ghost free, and refuses after a whole LockTimeout.
// Without performance_schema it falls back to SHOW OPEN TABLES, which sees LOCK TABLES and
// running statements but not an idle transaction's metadata lock.
// Each ghost of a set is checked in turn.
func (a *attempt) checkGhostUnlocked(ctx context.Context, q dbconn.Querier) error {
	deadline := time.Now().Add(a.cfg.LockTimeout)
	for _, t := range a.cfg.set() {
		for {
			held, err := a.ghostHolders(ctx, q, t)
			if err != nil {
				return fmt.Errorf("check locks on ghost %s: %w", t.Ghost, err)
			}
			if len(held) == 0 {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%w: other sessions hold locks on the ghost table %s for %s (%s): the second rename would wait on the ghost and leave %s missing; end those sessions",
					ErrUnsafe, t.Ghost, a.cfg.LockTimeout, strings.Join(held, "; "), t.Original)
			}
			if err := sleep(ctx, a.cfg.PollInterval); err != nil {
				return err
			}
		}
	}
	return nil
}

// ghostHolders describes who holds t's ghost now (empty: nobody we can see).
func (a *attempt) ghostHolders(ctx context.Context, q dbconn.Querier, t Tables) ([]string, error) {
	var held []string
	if a.caps.mdl {
		locks, err := tableLocks(ctx, q, t.Schema, t.Ghost)
		if err != nil {
			return nil, err
		}
		for _, l := range locks {
			if l.status == "GRANTED" {
				held = append(held, l.String())
			}
		}
		return held, nil
	}
	rows, err := q.QueryContext(ctx, "SHOW OPEN TABLES FROM "+table.QuoteIdent(t.Schema))
	if err != nil {
		return nil, fmt.Errorf("show open tables: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var db, name string
		var inUse, nameLocked int64
		if err := rows.Scan(&db, &name, &inUse, &nameLocked); err != nil {
			return nil, fmt.Errorf("show open tables: %w", err)
		}
		if name == t.Ghost && inUse > 0 {
			held = append(held, fmt.Sprintf("%s in use by %d session(s) (SHOW OPEN TABLES)", name, inUse))
		}
	}
	return held, rows.Err()
}

// lockAlive proves C1 still holds the table lock: its liveness token is held by its connection id.
// Bounded by the lock timeout: on a silently cut connection the query would otherwise wait forever.
// A set's other lock sessions are proven alive the same way.
func (a *attempt) lockAlive(ctx context.Context) error {
	if err := a.tokenHeld(ctx, a.token, a.lock, "lock session C1"); err != nil {
		return err
	}
	return a.setLocksAlive(ctx)
}

// tokenHeld proves the liveness token is held by s's connection id.
func (a *attempt) tokenHeld(ctx context.Context, token string, s *session, what string) error {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.LockTimeout)
	defer cancel()
	var holder sql.NullInt64
	if err := a.obs.conn.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", token).Scan(&holder); err != nil {
		return fmt.Errorf("check %s is alive: %w", what, err)
	}
	if !holder.Valid || holder.Int64 != s.id {
		return fmt.Errorf("%s (connection %d) is gone: liveness token held by %v", what, s.id, holder)
	}
	return nil
}

// processState reads STATE and INFO of the given connections from the processlist table
// (dbconn.ProcesslistTable); a missing connection is absent from the map.
func processState(ctx context.Context, q dbconn.Querier, processlist string, conns ...int64) (map[int64][2]string, error) {
	args := make([]any, len(conns))
	for i, c := range conns {
		args[i] = c
	}
	rows, err := q.QueryContext(ctx, `SELECT ID, COALESCE(STATE, ''), COALESCE(INFO, '') FROM `+processlist+`
		WHERE ID IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(conns)), ", ")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("read processlist: %w", err)
	}
	defer rows.Close()
	out := map[int64][2]string{}
	for rows.Next() {
		var id int64
		var state, info string
		if err := rows.Scan(&id, &state, &info); err != nil {
			return nil, fmt.Errorf("read processlist: %w", err)
		}
		out[id] = [2]string{state, info}
	}
	return out, rows.Err()
}

// queued says whether r's RENAME is in the processlist waiting on a metadata lock; an error
// means it never will be (it finished or its session is gone).
func (a *attempt) queued(r *renamer, ps map[int64][2]string) (bool, error) {
	if done, err := r.poll(); done {
		return false, fmt.Errorf("%s (connection %d) finished before the unlock: %v", r.name, r.id, err)
	}
	p, ok := ps[r.id]
	if !ok {
		return false, fmt.Errorf("%s (connection %d) is gone from the processlist", r.name, r.id)
	}
	return p[0] == mdlWaitState && p[1] == r.stmt, nil
}

// lockedNames are the tables C1 holds locked, so the only ones a queued rename may wait on: the
// originals of the set, plus the sentry (named like old) for the atomic algorithm.
func (a *attempt) lockedNames() []string {
	if a.sentry != "" {
		return []string{a.cfg.Tables.Original, a.cfg.Tables.Old}
	}
	return a.cfg.originals()
}

func (a *attempt) mayWaitOn(name string) bool {
	for _, n := range a.lockedNames() {
		if n == name {
			return true
		}
	}
	return false
}

// pendingOnOriginal says whether each rename waits for exactly one lock: EXCLUSIVE on a table
// C1 holds (the original; for atomic also the sentry), never on the ghost.
func (a *attempt) pendingOnOriginal(ctx context.Context, rs ...*renamer) (bool, string, error) {
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.id
	}
	locks, err := pendingLocks(ctx, a.obs.conn, ids...)
	if err != nil {
		return false, "", err
	}
	t := a.cfg.Tables
	for _, r := range rs {
		var mine []mdlLock
		for _, l := range locks {
			if l.conn == r.id {
				mine = append(mine, l)
			}
		}
		if len(mine) != 1 {
			return false, fmt.Sprintf("%s waits for %d locks: %v", r.name, len(mine), mine), nil
		}
		l := mine[0]
		if l.objectType != "TABLE" || l.schema != t.Schema || !a.mayWaitOn(l.name) || l.lockType != "EXCLUSIVE" {
			return false, fmt.Sprintf("%s waits on %s, not on %s", r.name, l, strings.Join(a.lockedNames(), " or ")), nil
		}
	}
	return true, "", nil
}

func sleep(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}
