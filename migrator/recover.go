package migrator

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/tablelock"
)

// recoverCutOver is Run with --recover-cut-over: after a run died during its cut-over, the
// cutover package repairs the tables (cutover.RecoverCrashed); the migrator connects to the
// primary and holds the per-table mutex meanwhile, so the repair never races a live migration.
// When the run that died was a --revert, its changelog names its tables (changelog.ReadRevert)
// and the repair uses them; --revert --old-table, when given, must name the same old table.
func (m *Migrator) recoverCutOver(ctx context.Context) error {
	cfg := m.cfg
	schema, tbl := cfg.Database, cfg.Table
	log := m.cfg.Logger.With().Str("component", "recover").Str("schema", schema).Str("table", tbl).Logger()
	s := newSession(cfg, log)
	defer s.close()
	if err := s.connectPrimary(ctx); err != nil {
		return err
	}
	addr := s.plan.Primary.Addr()
	var err error
	if s.lock, err = tablelock.Acquire(ctx, s.primary, addr, schema, tbl); err != nil {
		return fmt.Errorf("recover the cut-over of %s.%s: %w", schema, tbl, err)
	}
	rev, err := changelog.ReadRevert(ctx, s.primary, schema, tbl)
	if err != nil {
		return fmt.Errorf("recover the cut-over of %s.%s: %w", schema, tbl, err)
	}
	if err := checkRecoveredRevert(&cfg, rev); err != nil {
		return err
	}
	return cutover.RecoverCrashed(ctx, cutover.CrashConfig{
		DB: s.primary, Schema: schema, Table: tbl, LockTimeout: cfg.CutOverLockTimeout, Logger: cfg.Logger, Revert: rev,
	})
}

// checkRecoveredRevert refuses --recover-cut-over --revert --old-table=X unless the changelog
// names the revert of X (rev): the tables found are another run's.
func checkRecoveredRevert(c *config.Config, rev *changelog.RevertNames) error {
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
