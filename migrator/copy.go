package migrator

import (
	"time"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/copier"
	"github.com/go-ghostlite/go-ghostlite/throttle"
)

// newCopier sets up the row copy of s's plan. The copy waits while the applier has a backlog
// (applying changes comes before copying), and lets the applier catch up through the sentinel
// before it judges rows missing from the ghost.
func (m *Migrator) newCopier(s *session, a *binlogapply.Applier, sent *sentinel) (*copier.Copier, error) {
	var c *copier.Copier // set below, before Run asks the gate
	cfg := copierConfig(s.plan)
	cfg.DB = s.primary
	cfg.Retries = m.cfg.DefaultRetries
	cfg.StartAfter = s.resumeKey() // --resume: above the checkpoint's key
	cfg.Knobs = m.levers.chunkSize
	if m.cfg.ChunkTime > 0 { // --chunk-time: --chunk-size is the first chunks' size
		cfg.Adaptive = &copier.Adaptive{Target: m.cfg.ChunkTime, Min: 10, Max: 100000}
	}
	// --nice-ratio's rest, then the throttle's rules (throttle.go).
	cfg.Throttler = copyGate{
		nice:      throttle.Nice{Ratio: m.levers.signals.nice},
		lastChunk: func() time.Duration { return c.LastChunkTime() },
		throttler: m.levers.throttler,
		log:       m.log,
	}
	cfg.CatchUp = copier.CatchUpFunc(sent.awaitApplied)
	cfg.Logger = m.cfg.Logger
	cfg.Test = copier.TestHooks{BeforeChunk: m.cfg.copyTest.beforeChunk, MaxErrorCount: m.cfg.copyTest.maxErrorCount}
	c, err := copier.New(cfg)
	return c, err
}

// copierConfig is what the copy takes from the plan: the tables, the shared key and the columns.
func copierConfig(p *Plan) copier.Config {
	return copier.Config{
		Primary:       p.Primary,
		Original:      p.Original,
		GhostTable:    p.GhostTable,
		OriginalKey:   p.OriginalKey,
		GhostKey:      p.GhostKey,
		GhostColumns:  p.GhostColumns(),
		SelectExprs:   p.SelectExprs(""),
		GhostKeyExprs: p.GhostKeyExprs(p.Original.QualifiedName()),
		EstimatedRows: p.EstimatedRows,
	}
}
