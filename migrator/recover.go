package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Recovery after the process itself died during a cut-over (--recover-cut-over).
//
// A run killed between "RENAME tbl TO old" and "RENAME ghost TO tbl" leaves the original under its
// old name and no table under the original's name: the application's writes fail until someone
// renames it back. The cut-over package repairs this itself after any error it sees, but not when
// the process is gone. A later run therefore recognises the state (cutOverDiedError, called by
// checkTable before anything else happens) and refuses, and --recover-cut-over repairs it:
//
//   - it takes the per-table mutex, so it never races a live migration of the table;
//   - it kills nothing: it waits (up to the cut-over lock timeout) until no session on the server
//     still runs a RENAME TABLE naming our tables (a rename of a silently cut client can stay queued
//     and run later), and refuses if one remains;
//   - it reads which names exist, and acts only on a state a cut-over can leave:
//     original missing, old and ghost present: RENAME old TO tbl, then drop the ghost and the
//     changelog, so a fresh run can start (the ghost is incomplete by construction: rows written
//     after the crash never reached it);
//     original and ghost present, no old: nothing was renamed, nothing to recover;
//     original and old present, ghost gone: the swap completed, nothing to recover;
//     anything else: refuse, describe, change nothing.
//   - it returns nil only when the original's name holds a table at the end.

// timestampedOld matches a --timestamp-old-table name of tbl: _<tbl>_<yyyymmddhhmmss>_del.
func timestampedOld(tbl string) *regexp.Regexp {
	return regexp.MustCompile(`^_` + regexp.QuoteMeta(tbl) + `_[0-9]{14}_del$`)
}

// names is what exists under the names a cut-over of one table uses.
type names struct {
	original, ghost, changelog bool
	olds                       []string // _tbl_del and _tbl_<timestamp>_del that exist, sorted
}

// readNames reads, in one query, which of the cut-over's names exist in schema.
func readNames(ctx context.Context, db *sql.DB, schema, tbl string) (names, error) {
	var n names
	ghost, changelog, old := table.GhostName(tbl), table.ChangelogName(tbl), table.OldName(tbl, "")
	stamped := timestampedOld(tbl)
	rows, err := db.QueryContext(ctx, `SELECT TABLE_NAME FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND (TABLE_NAME IN (?, ?, ?, ?) OR TABLE_NAME LIKE ?)`,
		schema, tbl, ghost, changelog, old, likePrefilter(tbl))
	if err != nil {
		return n, fmt.Errorf("read which tables of %s.%s exist: %w", schema, tbl, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return n, fmt.Errorf("read which tables of %s.%s exist: %w", schema, tbl, err)
		}
		// information_schema may compare case-insensitively: names must match exactly here.
		switch {
		case name == tbl:
			n.original = true
		case name == ghost:
			n.ghost = true
		case name == changelog:
			n.changelog = true
		case name == old || stamped.MatchString(name):
			n.olds = append(n.olds, name)
		}
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("read which tables of %s.%s exist: %w", schema, tbl, err)
	}
	slices.Sort(n.olds)
	return n, nil
}

// likePrefilter is a LIKE pattern matching every _<tbl>_<timestamp>_del name, and maybe others:
// no escape is used (its character depends on sql_mode); the exact match is done in Go.
func likePrefilter(tbl string) string {
	return "_" + strings.ReplaceAll(tbl, `\`, "_") + "_%_del"
}

// describe lists the state for a message: "t missing, _t_gho present, _t_ghc present, old: _t_del".
func (n names) describe(tbl string) string {
	state := func(b bool) string {
		if b {
			return "present"
		}
		return "missing"
	}
	olds := "none"
	if len(n.olds) > 0 {
		olds = strings.Join(n.olds, ", ")
	}
	return fmt.Sprintf("%s %s, %s %s, %s %s, old table(s): %s", tbl, state(n.original),
		table.GhostName(tbl), state(n.ghost), table.ChangelogName(tbl), state(n.changelog), olds)
}

// diedOld returns the old table to rename back when the state is exactly what a run killed
// between the two renames leaves: the original missing, the ghost present and one old table
// (several timestamped ones: the newest, which the latest run created). ok is false otherwise.
func (n names) diedOld(tbl string) (old string, ok bool) {
	if n.original || !n.ghost || len(n.olds) == 0 {
		return "", false
	}
	plain := table.OldName(tbl, "")
	if len(n.olds) > 1 && slices.Contains(n.olds, plain) {
		return "", false // a plain and a timestamped old table: cannot tell which one was renamed last
	}
	return n.olds[len(n.olds)-1], true
}

// cutOverDiedError returns the refusal for a missing original left by a run that died during its
// cut-over, or nil when the state is anything else (the usual checks then apply).
func cutOverDiedError(ctx context.Context, db *sql.DB, schema, tbl string) error {
	n, err := readNames(ctx, db, schema, tbl)
	if err != nil {
		return err
	}
	old, ok := n.diedOld(tbl)
	if !ok {
		return nil
	}
	return fmt.Errorf("%s.%s is missing but %s and %s exist: a previous run died during its cut-over; run again with --recover-cut-over to restore %s (nothing was changed)",
		schema, tbl, old, table.GhostName(tbl), tbl)
}

// recoverCutOver is Run with --recover-cut-over.
func (m *Migrator) recoverCutOver(ctx context.Context) error {
	cfg := m.cfg
	schema, tbl := cfg.Database, cfg.Table
	log := m.cfg.Logger.With().Str("component", "recover").Str("schema", schema).Str("table", tbl).Logger()
	s := &session{plan: &Plan{}, log: log}
	defer s.close()
	if err := m.connectPrimary(ctx, s); err != nil {
		return err
	}
	addr := s.plan.Primary.Addr()
	var err error
	if s.mutex, s.mutexName, err = acquireMutex(ctx, s.primary, addr, schema, tbl); err != nil {
		return fmt.Errorf("recover the cut-over of %s.%s: %w", schema, tbl, err)
	}
	if err := waitQueuedRenames(ctx, s.primary, schema, tbl, cfg.CutOverLockTimeout); err != nil {
		return err
	}
	n, err := readNames(ctx, s.primary, schema, tbl)
	if err != nil {
		return err
	}
	desc := n.describe(tbl)
	if old, ok := n.diedOld(tbl); ok {
		return m.rollBack(ctx, s, old, desc)
	}
	switch {
	case n.original && n.ghost && len(n.olds) == 0:
		log.Info().Str("state", desc).Msgf("nothing to recover: %s.%s is in place and was never renamed; a new migration needs --initially-drop-ghost-table", schema, tbl)
		return nil
	case n.original && !n.ghost && len(n.olds) > 0:
		log.Info().Str("state", desc).Msgf("nothing to recover: the swap completed, %s.%s is the migrated table and the original is kept as %s; drop the old and changelog tables when you no longer need them",
			schema, tbl, strings.Join(n.olds, ", "))
		return nil
	case n.original && !n.ghost:
		log.Info().Str("state", desc).Msgf("nothing to recover: %s.%s is in place and no cut-over left tables behind", schema, tbl)
		return nil
	}
	return fmt.Errorf("cannot recover %s.%s: the tables are in a state a cut-over does not leave (%s); nothing was changed, look at them by hand", schema, tbl, desc)
}

// connectPrimary opens the --host server and, when it is a replica, its primary: the tables are
// renamed there.
func (m *Migrator) connectPrimary(ctx context.Context, s *session) error {
	cfg, p := m.cfg, s.plan
	var err error
	if s.inspected, err = openServer(ctx, cfg.Conn, cfg.Database); err != nil {
		return err
	}
	if p.Flavor, err = dbconn.DetectFlavor(ctx, s.inspected); err != nil {
		return fmt.Errorf("on %s: %w", cfg.Conn.Addr(), err)
	}
	rs, err := readReplicaStatus(ctx, s.inspected, p.Flavor, cfg.Conn.Addr())
	if err != nil {
		return err
	}
	if p.Primary, p.InspectedIsReplica, err = resolvePrimary(cfg, rs); err != nil {
		return err
	}
	s.primary = s.inspected
	if p.InspectedIsReplica {
		if s.primary, err = openServer(ctx, p.Primary, cfg.Database); err != nil {
			return fmt.Errorf("connect to the primary of %s: %w", cfg.Conn.Addr(), err)
		}
	}
	return nil
}

// rollBack renames old back to the original's name, then drops the ghost and the changelog.
func (m *Migrator) rollBack(ctx context.Context, s *session, old, desc string) error {
	schema, tbl := m.cfg.Database, m.cfg.Table
	log := s.log
	log.Warn().Str("state", desc).Msgf("%s.%s is missing: a run died during its cut-over; renaming %s back", schema, tbl, old)
	conn, err := s.primary.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open a session to restore %s.%s: %w", schema, tbl, err)
	}
	defer conn.Close()
	secs := max(int64(m.cfg.CutOverLockTimeout/time.Second), 1)
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", secs)); err != nil {
		return fmt.Errorf("set up the session to restore %s.%s: %w", schema, tbl, err)
	}
	start := time.Now()
	stmt := fmt.Sprintf("RENAME TABLE %s TO %s", table.Qualify(schema, old), table.Qualify(schema, tbl))
	if _, err := conn.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("restore %s.%s (%s): %w; nothing else was changed", schema, tbl, stmt, err)
	}
	log.Warn().Dur("took", time.Since(start)).Msgf("restored: %s.%s is in place again", schema, tbl)
	for _, name := range []string{table.GhostName(tbl), table.ChangelogName(tbl)} {
		if _, err := conn.ExecContext(ctx, "DROP TABLE IF EXISTS "+table.Qualify(schema, name)); err != nil {
			return fmt.Errorf("%s.%s is restored, but dropping %s failed: %w; drop it by hand", schema, tbl, name, err)
		}
	}
	log.Info().Msgf("dropped %s and %s: a new migration can start", table.GhostName(tbl), table.ChangelogName(tbl))
	if ok, err := tableExists(ctx, s.primary, schema, tbl); err != nil || !ok {
		return fmt.Errorf("after restoring, %s.%s is still not found (%v)", schema, tbl, err)
	}
	return nil
}

// waitQueuedRenames waits up to timeout until no other session runs a RENAME TABLE that names
// tbl, its ghost or an old table of it, and fails naming them if some remain. It kills nothing:
// those sessions are not ours.
func waitQueuedRenames(ctx context.Context, db *sql.DB, schema, tbl string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		found, err := queuedRenames(ctx, db, schema, tbl)
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cannot recover %s.%s: RENAME TABLE still queued on the server after %s (%s); nothing was changed: if these sessions belong to a dead run, KILL them and run again",
				schema, tbl, timeout, strings.Join(found, "; "))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for queued renames of %s.%s: %w", schema, tbl, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// queuedRenames lists "connection <id>: <statement>" for sessions running a RENAME TABLE
// naming one of our tables.
func queuedRenames(ctx context.Context, db *sql.DB, schema, tbl string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT ID, INFO FROM information_schema.PROCESSLIST
		WHERE ID <> CONNECTION_ID() AND INFO LIKE 'RENAME%'`)
	if err != nil {
		return nil, fmt.Errorf("read the processlist for queued renames: %w", err)
	}
	defer rows.Close()
	quotedStamped := regexp.MustCompile("`_" + regexp.QuoteMeta(tbl) + "_[0-9]{14}_del`")
	var found []string
	for rows.Next() {
		var id int64
		var info sql.NullString
		if err := rows.Scan(&id, &info); err != nil {
			return nil, fmt.Errorf("read the processlist for queued renames: %w", err)
		}
		q := info.String
		mentions := quotedStamped.MatchString(q)
		for _, name := range []string{tbl, table.GhostName(tbl), table.OldName(tbl, "")} {
			mentions = mentions || strings.Contains(q, table.QuoteIdent(name)) || strings.Contains(q, schema+"."+name)
		}
		if mentions {
			found = append(found, fmt.Sprintf("connection %d: %s", id, q))
		}
	}
	return found, rows.Err()
}
