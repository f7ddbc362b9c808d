package migrator

import (
	"context"
	"fmt"

	"github.com/go-ghostlite/go-ghostlite/cutover"
)

// recoverCutOver is Run with --recover-cut-over: after a run died during its cut-over, the
// cutover package repairs the tables (cutover.RecoverCrashed); the migrator connects to the
// primary and holds the per-table mutex meanwhile, so the repair never races a live migration.
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
	return cutover.RecoverCrashed(ctx, cutover.CrashConfig{
		DB: s.primary, Schema: schema, Table: tbl, LockTimeout: cfg.CutOverLockTimeout, Logger: cfg.Logger,
	})
}
