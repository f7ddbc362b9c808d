package cutover

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/rs/zerolog"
)

// Recovery after the process itself died during a cut-over (--recover-cut-over).
//
// A run killed between "RENAME tbl TO old" and "RENAME ghost TO tbl" leaves the original under its
// old name and no table under the original's name: the application's writes fail until someone
// renames it back. An attempt repairs this itself after any error it sees (recover.go), but not
// when the process is gone. A later run therefore recognises the state (CheckCrashed, which the
// migrator calls before anything else looks at the table) and refuses, and RecoverCrashed repairs
// it. The caller holds the per-table mutex, so it never races a live migration of the table.
//
//   - It kills nothing: it waits (up to the lock timeout) until no session on the server still
//     runs a RENAME TABLE naming our tables (a rename of a silently cut client can stay queued
//     and run later), and refuses if one remains.
//   - It reads which names exist (the same state model as an attempt, with the newest old table,
//     plain or timestamped, as the old name), and acts only on a layout a cut-over can leave:
//     renamed away (original missing, old and ghost present): RENAME old TO tbl, then drop the
//     ghost and the changelog, so a fresh run can start (the ghost is incomplete by
//     construction: rows written after the crash never reached it);
//     nothing renamed (original and ghost, no old): nothing to recover;
//     swapped (original and old, ghost gone): the swap completed, nothing to recover;
//     the original alone: nothing to recover;
//     anything else: refuse, describe, change nothing.
//   - It returns nil only when the original's name holds a table at the end.
//
// A --revert's cut-over (the migrator's revert.go) swaps other names: its "ghost" is the old
// table the migration left, its "old" name is _tbl_rev_del (or _tbl_del when reverting a revert).
// The migrator reads them from the revert's changelog (changelog.ReadRevert) and passes them as
// CrashConfig.Revert; the same layouts are then decided on those names, with one difference:
// renamed away, only the changelog is dropped after the live table's name is restored, since the revert's ghost is the old table
// the migration kept (the revert can run again from its checkpoint).

// CrashConfig is what recovering after a crashed run needs.
type CrashConfig struct {
	DB            *sql.DB // pool on the primary where the tables live
	Schema, Table string  // the migrated table; the ghost, changelog and old names derive from it
	// LockTimeout bounds the wait for queued renames and each lock of the repair
	// (--cut-over-lock-timeout-seconds).
	LockTimeout time.Duration
	Logger      zerolog.Logger
	// Revert, when set, says the run that died was a --revert, with its names (see above).
	Revert *changelog.RevertNames
}

// leftovers is what runs of one table may have left, read in one query: the state of the three
// names of a cut-over, the changelog, and every old table. The state's old name is the newest
// old table (the one the latest run created).
type leftovers struct {
	tables    Tables
	state     state
	changelog bool
	olds      []string // _tbl_del and _tbl_<timestamp>_del that exist, sorted (a revert's old name)
	revert    bool     // the names are a revert's (changelog.RevertNames)
}

// timestampedOld matches a --timestamp-old-table name of tbl: _<tbl>_<yyyymmddhhmmss>_del.
func timestampedOld(tbl string) *regexp.Regexp {
	return regexp.MustCompile(`^_` + regexp.QuoteMeta(tbl) + `_[0-9]{14}_del$`)
}

// likePrefilter is a LIKE pattern matching every _<tbl>_<timestamp>_del name, and maybe others:
// no escape is used (its character depends on sql_mode); the exact match is done in Go.
func likePrefilter(tbl string) string {
	return "_" + strings.ReplaceAll(tbl, `\`, "_") + "_%_del"
}

// readLeftovers reads, in one query, which of the names runs of schema.tbl use exist: a
// migration's (with every timestamped old table), or a revert's when rev is set.
func readLeftovers(ctx context.Context, q dbconn.Querier, schema, tbl string, rev *changelog.RevertNames) (leftovers, error) {
	ghost, changes, old, like := table.GhostName(tbl), table.ChangelogName(tbl), table.OldName(tbl, ""), likePrefilter(tbl)
	if rev != nil {
		ghost, old, like = rev.Ghost, rev.Old, ""
	}
	lo := leftovers{tables: Tables{Schema: schema, Original: tbl, Ghost: ghost, Old: old}, revert: rev != nil}
	found, err := existingTables(ctx, q, schema, tbl, []string{tbl, ghost, changes, old}, like)
	if err != nil {
		return lo, err
	}
	stamped := timestampedOld(tbl)
	for _, name := range found {
		switch {
		case name == tbl:
			lo.state.original.exists = true
		case name == ghost:
			lo.state.ghost.exists = true
		case name == changes:
			lo.changelog = true
		case name == old || (rev == nil && stamped.MatchString(name)):
			lo.olds = append(lo.olds, name)
		}
	}
	slices.Sort(lo.olds)
	if len(lo.olds) > 0 {
		lo.tables.Old, lo.state.old.exists = lo.olds[len(lo.olds)-1], true
	}
	return lo, nil
}

// layout is the state's layout (table ids are not known after a crash). A missing original with
// a plain and a timestamped old table is an unknown one: which was renamed last cannot be told.
func (lo leftovers) layout() layout {
	l := lo.state.layout(identities{})
	if l == layoutRenamedAway && len(lo.olds) > 1 && slices.Contains(lo.olds, table.OldName(lo.tables.Original, "")) {
		return layoutUnknown
	}
	return l
}

// describe lists the state for a message: "t missing, _t_gho present, _t_ghc present, old: _t_del".
func (lo leftovers) describe() string {
	presence := func(b bool) string {
		if b {
			return "present"
		}
		return "missing"
	}
	olds := "none"
	if len(lo.olds) > 0 {
		olds = strings.Join(lo.olds, ", ")
	}
	t := lo.tables
	return fmt.Sprintf("%s %s, %s %s, %s %s, old table(s): %s", t.Original, presence(lo.state.original.exists),
		t.Ghost, presence(lo.state.ghost.exists), table.ChangelogName(t.Original), presence(lo.changelog), olds)
}

// CheckCrashed returns the refusal for a missing original left by a run that died during its
// cut-over, or nil when the state is anything else (the usual checks then apply). rev is set when
// the table's changelog names a revert's tables.
func CheckCrashed(ctx context.Context, q dbconn.Querier, schema, tbl string, rev *changelog.RevertNames) error {
	lo, err := readLeftovers(ctx, q, schema, tbl, rev)
	if err != nil {
		return err
	}
	if lo.layout() != layoutRenamedAway {
		return nil
	}
	run := "run"
	if rev != nil {
		run = "--revert"
	}
	return fmt.Errorf("%s.%s is missing but %s and %s exist: a previous %s died during its cut-over; run again with --recover-cut-over to restore %s (nothing was changed)",
		schema, tbl, lo.tables.Old, lo.tables.Ghost, run, tbl)
}

// RecoverCrashed repairs what a run that died during its cut-over left (see above). The caller
// holds the per-table mutex.
func RecoverCrashed(ctx context.Context, c CrashConfig) error {
	schema, tbl := c.Schema, c.Table
	log := c.Logger.With().Str("component", "cutover").Str("schema", schema).Str("table", tbl).Logger()
	if err := waitQueuedRenames(ctx, c.DB, schema, tbl, c.Revert, c.LockTimeout); err != nil {
		return err
	}
	lo, err := readLeftovers(ctx, c.DB, schema, tbl, c.Revert)
	if err != nil {
		return err
	}
	desc := lo.describe()
	switch lo.layout() {
	case layoutRenamedAway:
		log.Warn().Str("state", desc).Bool("revert", lo.revert).Msgf("%s.%s is missing: a run died during its cut-over; renaming %s back", schema, tbl, lo.tables.Old)
		return restoreCrashed(ctx, c, lo, log)
	case layoutNothingRenamed:
		next := "a new migration needs --initially-drop-ghost-table"
		if lo.revert {
			next = fmt.Sprintf("the revert can run again (%s is the old table it swaps back)", lo.tables.Ghost)
		}
		log.Info().Str("state", desc).Msgf("nothing to recover: %s.%s is in place and was never renamed; %s", schema, tbl, next)
		return nil
	case layoutSwapped:
		log.Info().Str("state", desc).Msgf("nothing to recover: the swap completed, %s.%s is the migrated table and the original is kept as %s; drop the old and changelog tables when you no longer need them",
			schema, tbl, strings.Join(lo.olds, ", "))
		return nil
	case layoutOriginalAlone:
		log.Info().Str("state", desc).Msgf("nothing to recover: %s.%s is in place and no cut-over left tables behind", schema, tbl)
		return nil
	}
	return fmt.Errorf("cannot recover %s.%s: the tables are in a state a cut-over does not leave (%s); nothing was changed, look at them by hand", schema, tbl, desc)
}

// restoreCrashed renames t.Old back to the original's name, then drops the ghost (not a revert's:
// it is the old table the migration kept) and the changelog, all on one session whose locks wait
// at most the lock timeout.
func restoreCrashed(ctx context.Context, c CrashConfig, lo leftovers, log zerolog.Logger) error {
	t := lo.tables
	schema, tbl := t.Schema, t.Original
	s, err := openSessionWaiting(ctx, c.DB, "restore", dbconn.CeilSeconds(c.LockTimeout))
	if err != nil {
		return fmt.Errorf("open a session to restore %s.%s: %w", schema, tbl, err)
	}
	defer s.discard()
	start := time.Now()
	stmt := fmt.Sprintf("RENAME TABLE %s TO %s", table.Qualify(schema, t.Old), table.Qualify(schema, tbl))
	if _, err := s.conn.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("restore %s.%s (%s): %w; nothing else was changed", schema, tbl, stmt, err)
	}
	log.Warn().Str("took", logfmt.Duration(time.Since(start))).Msgf("restored: %s.%s is in place again", schema, tbl)
	drop, next := []string{t.Ghost, table.ChangelogName(tbl)}, "a new migration can start"
	if lo.revert {
		drop = drop[1:]
		next = fmt.Sprintf("%s (the old table) and the checkpoint are kept: the revert can run again", t.Ghost)
	}
	for _, name := range drop {
		if _, err := s.conn.ExecContext(ctx, "DROP TABLE IF EXISTS "+table.Qualify(schema, name)); err != nil {
			return fmt.Errorf("%s.%s is restored, but dropping %s failed: %w; drop it by hand", schema, tbl, name, err)
		}
	}
	log.Info().Msgf("dropped %s: %s", strings.Join(drop, " and "), next)
	if found, err := existingTables(ctx, c.DB, schema, tbl, []string{tbl}, ""); err != nil || !slices.Contains(found, tbl) {
		return fmt.Errorf("after restoring, %s.%s is still not found (%v)", schema, tbl, err)
	}
	return nil
}

// waitQueuedRenames waits up to timeout until no other session runs a RENAME TABLE that names
// tbl, its ghost or an old table of it (or a revert's names), and fails naming them if some
// remain. It kills nothing: those sessions are not ours.
func waitQueuedRenames(ctx context.Context, q dbconn.Querier, schema, tbl string, rev *changelog.RevertNames, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	processlist := dbconn.ProcesslistTable(ctx, q)
	for {
		found, err := queuedRenames(ctx, q, processlist, schema, tbl, rev)
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
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return fmt.Errorf("wait for queued renames of %s.%s: %w", schema, tbl, err)
		}
	}
}

// queuedRenames lists "connection <id>: <statement>" for sessions running a RENAME TABLE
// naming one of our tables, read from the processlist table (dbconn.ProcesslistTable).
func queuedRenames(ctx context.Context, q dbconn.Querier, processlist, schema, tbl string, rev *changelog.RevertNames) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT ID, INFO FROM `+processlist+`
		WHERE ID <> CONNECTION_ID() AND INFO LIKE 'RENAME%'`)
	if err != nil {
		return nil, fmt.Errorf("read the processlist for queued renames: %w", err)
	}
	defer rows.Close()
	quotedStamped := regexp.MustCompile("`_" + regexp.QuoteMeta(tbl) + "_[0-9]{14}_del`")
	names := []string{tbl, table.GhostName(tbl), table.OldName(tbl, "")}
	if rev != nil {
		names = append(names, rev.Ghost, rev.Old)
	}
	var found []string
	for rows.Next() {
		var id int64
		var info sql.NullString
		if err := rows.Scan(&id, &info); err != nil {
			return nil, fmt.Errorf("read the processlist for queued renames: %w", err)
		}
		stmt := info.String
		mentions := quotedStamped.MatchString(stmt)
		for _, name := range names {
			mentions = mentions || strings.Contains(stmt, table.QuoteIdent(name)) || strings.Contains(stmt, schema+"."+name)
		}
		if mentions {
			found = append(found, fmt.Sprintf("connection %d: %s", id, stmt))
		}
	}
	return found, rows.Err()
}
