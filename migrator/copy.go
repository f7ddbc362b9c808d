package migrator

import (
	"context"

	"github.com/go-ghostlite/go-ghostlite/copier"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// newCopier sets up the row copy of the run's plan. The copy waits while the applier has a backlog
// (applying changes comes before copying), and lets the applier catch up through the sentinel
// before it judges rows missing from the ghost.
func (r *run) newCopier(ctx context.Context) (*copier.Copier, error) {
	m, s := r.m, r.s
	cfg := copierConfig(s.plan)
	threads, err := r.copyThreads(ctx)
	if err != nil {
		return nil, err
	}
	cfg.Threads = threads
	cfg.DB = s.primary
	cfg.Retries = m.cfg.DefaultRetries
	cfg.StartAfter = s.kind.startAfter() // --resume: above the checkpoint's key
	cfg.Knobs = m.levers.chunkSize
	if m.cfg.ChunkTime > 0 { // --chunk-time: --chunk-size is the first chunks' size
		cfg.Adaptive = &copier.Adaptive{Target: m.cfg.ChunkTime, Min: 10, Max: 100000}
	}
	// --nice-ratio's rest, then the throttle's rules (throttle.go).
	cfg.Throttler = m.levers.monitor.CopyGate()
	cfg.CatchUp = copier.CatchUpFunc(r.sent.awaitApplied)
	cfg.Tracker = r.applier // a lock-free read of the original, made exact by the applier (copier/copycheck.go)
	cfg.Logger = m.cfg.Logger
	cfg.Test = copier.TestHooks{BeforeChunk: m.seams.beforeChunk, MaxErrorCount: m.seams.maxErrorCount}
	return copier.New(cfg)
}

// copierConfig is what the copy takes from the plan: the tables, the shared key and the columns.
func copierConfig(p *plan.Plan) copier.Config {
	return copier.Config{
		Primary:       p.Primary,
		Original:      p.Original,
		GhostTable:    p.GhostTable,
		OriginalKey:   p.OriginalKey,
		GhostKey:      p.GhostKey,
		GhostColumns:  append(p.GhostColumns(), p.FillColumns()...),
		SelectExprs:   append(p.SelectExprs(""), p.FillExprs()...),
		GhostKeyExprs: p.GhostKeyExprs(p.Original.QualifiedName()),
		GhostKeyBytes: p.GhostKeyBytesMatch(p.Original.QualifiedName(), "g"),
		EstimatedRows: p.EstimatedRows,
	}
}

// copyThreads is the number of copy sessions: --copy-threads, or when 0 the one
// copier.AutoThreads chooses from the primary. It logs the number and why, once per copy.
func (r *run) copyThreads(ctx context.Context) (int, error) {
	n, why := r.m.cfg.CopyThreads, "--copy-threads"
	if n == 0 {
		var err error
		if n, why, err = copier.AutoThreads(ctx, r.s.primary); err != nil {
			return 0, err
		}
	}
	r.m.log.Info().Int("copy_threads", n).Str("why", why).Msg("row copy sessions")
	return n, nil
}
