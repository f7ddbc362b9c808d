package migrator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/ddl"
	"github.com/go-ghostlite/go-ghostlite/observe"
)

// The dry run (no --execute) stops after preparation: the ALTER has been proven on the ghost, the
// plan is printed (plan.Plan.Lines), the ghost dropped and the lock released. It never writes
// the original table.

// dryRun prints the plan, drops the ghost and releases the session.
func (m *Migrator) dryRun(ctx context.Context, s *session) error {
	defer s.close()
	p := s.plan
	for _, line := range s.plan.Lines(s.pre.Config.Alter, s.pre.Config.ReplicaMode(), m.cfg.ExactRowcount) {
		m.log.Info().Msg(line)
	}
	m.log.Info().Strs("checks", s.pre.Ran).Msgf("checks passed (%d): %s", len(s.pre.Ran), strings.Join(s.pre.Ran, ", "))
	review := ddl.ReviewLines(ctx, s.pre) // a reviewer's remarks: advice only
	for _, line := range review {
		m.log.Warn().Msg("review: " + line)
	}
	m.emit(observe.EventReviewed, observe.Event{Review: review})
	m.log.Info().
		Str("flavor", p.Flavor.String()).
		Str("binlog_from", p.Inspected.Addr()).
		Str("writes_to", p.Primary.Addr()).
		Str("shared_key", p.OriginalKey.Name).
		Int("columns", len(p.Columns)).
		Int64("estimated_rows", p.EstimatedRows).
		Msg("dry run: the ALTER works on the ghost table; pass --execute to migrate")
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := s.dropGhost(cctx); err != nil {
		return fmt.Errorf("dry run: %w", err)
	}
	return nil
}
