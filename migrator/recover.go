package migrator

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// recoverCutOver is Run with --recover-cut-over: after a run died during its cut-over, the
// cutover package repairs the tables (cutover.RecoverCrashed); the migrator connects to the
// primary and holds the per-table mutex meanwhile, so the repair never races a live migration.
// When the run that died was a --revert, its changelog names its tables (revertNames) and the
// repair uses them; --revert --old-table, when given, must name the same old table.
func (m *Migrator) recoverCutOver(ctx context.Context) error {
	cfg := m.cfg
	schema, tbl := cfg.Database, cfg.Table
	log := m.cfg.Logger.With().Str("component", "recover").Str("schema", schema).Str("table", tbl).Logger()
	s := newSession(cfg, log)
	defer s.close()
	if err := m.connectPrimary(ctx, s); err != nil {
		return err
	}
	addr := s.plan.Primary.Addr()
	var err error
	if s.mutex, s.mutexName, err = acquireMutex(ctx, s.primary, addr, schema, tbl); err != nil {
		return fmt.Errorf("recover the cut-over of %s.%s: %w", schema, tbl, err)
	}
	rev, err := revertNames(ctx, s.primary, schema, tbl)
	if err != nil {
		return fmt.Errorf("recover the cut-over of %s.%s: %w", schema, tbl, err)
	}
	if err := cfg.checkRecoveredRevert(rev); err != nil {
		return err
	}
	return cutover.RecoverCrashed(ctx, cutover.CrashConfig{
		DB: s.primary, Schema: schema, Table: tbl, LockTimeout: cfg.CutOverLockTimeout, Logger: cfg.Logger, Revert: rev,
	})
}

// checkRecoveredRevert refuses --recover-cut-over --revert --old-table=X unless the changelog
// names the revert of X (rev): the tables found are another run's.
func (c *Config) checkRecoveredRevert(rev *cutover.RevertNames) error {
	switch {
	case !c.Revert:
		return nil
	case rev == nil:
		return fmt.Errorf("--recover-cut-over --revert: %s holds no revert's tables, so no revert of %s.%s is left to recover (nothing was changed): run --recover-cut-over without --revert and --old-table",
			table.ChangelogName(c.Table), c.Database, c.Table)
	case !strings.EqualFold(rev.Ghost, c.OldTableName):
		return fmt.Errorf("--recover-cut-over --revert: the revert left in %s swaps back %s, not --old-table=%s (nothing was changed): give --old-table=%s, or leave out --revert and --old-table",
			table.ChangelogName(c.Table), rev.Ghost, c.OldTableName, rev.Ghost)
	}
	return nil
}

// recordRevertNames writes the revert's cut-over names to its changelog (table.HintRevert), right
// after creating it and long before its cut-over renames anything.
func (m *Migrator) recordRevertNames(ctx context.Context, s *session) error {
	p := s.plan
	b, err := json.Marshal(cutover.RevertNames{Ghost: p.GhostTable, Old: p.OldTable})
	if err != nil {
		return fmt.Errorf("--revert: %w", err)
	}
	if _, err := s.primary.ExecContext(ctx, table.ChangelogUpsert(p.Original.Schema, p.ChangelogTable), table.HintRevert, string(b)); err != nil {
		return fmt.Errorf("--revert: record its tables in %s: %w", p.ChangelogTable, err)
	}
	return nil
}

// revertNames reads the names a revert recorded in tbl's changelog: nil when there is no
// changelog, it is not a revert's, or the table under its name is not a changelog at all.
func revertNames(ctx context.Context, db *sql.DB, schema, tbl string) (*cutover.RevertNames, error) {
	changelog := table.ChangelogName(tbl)
	if ok, err := dbconn.TableExists(ctx, db, schema, changelog); err != nil || !ok {
		return nil, err
	}
	var value string
	err := db.QueryRowContext(ctx, "SELECT value FROM "+table.Qualify(schema, changelog)+" WHERE hint = ?", table.HintRevert).Scan(&value)
	var me *mysql.MySQLError
	if errors.Is(err, sql.ErrNoRows) || (errors.As(err, &me) && (me.Number == 1054 || me.Number == 1146)) { // no such column, or table
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s.%s: %w", schema, changelog, err)
	}
	var rev cutover.RevertNames
	if err := json.Unmarshal([]byte(value), &rev); err != nil || rev.Ghost == "" || rev.Old == "" {
		return nil, fmt.Errorf("%s.%s: the revert's tables %q cannot be read (%v): look at the tables by hand", schema, changelog, value, err)
	}
	return &rev, nil
}
