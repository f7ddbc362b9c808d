package throttle

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// CopyGate is what the copy waits on before each chunk: the rest --nice-ratio asks after the
// asking session's last chunk, then the Monitor's rules. It logs when the copy is held back and
// when it goes on: once for all the copy sessions, from the first held to the last released.
// Safe for concurrent use (one call per copy session at a time).
type CopyGate struct {
	nice      Nice
	throttler *Throttler
	log       zerolog.Logger

	held  atomic.Int32 // sessions waiting on the throttler now
	since atomic.Int64 // when the first of them began waiting, in Unix nanoseconds
}

// CopyGate is a gate for one row copy (its Wait is the copier's Throttler).
func (m *Monitor) CopyGate() *CopyGate {
	return &CopyGate{nice: Nice{Ratio: m.nice}, throttler: m.throttler, log: m.log}
}

// Wait rests after a chunk that took lastChunk, then waits while any rule throttles. It returns
// nil when the copy may go on, or ctx's error.
func (g *CopyGate) Wait(ctx context.Context, lastChunk time.Duration) error {
	if err := g.nice.Rest(ctx, lastChunk); err != nil {
		return err
	}
	throttled, reason := g.throttler.Check(ctx)
	if !throttled {
		return g.throttler.Wait(ctx)
	}
	if g.held.Add(1) == 1 {
		g.since.Store(time.Now().UnixNano())
		g.log.Info().Str("reason", reason).Msg("copy throttled; the binlog applier keeps applying")
	}
	err := g.throttler.Wait(ctx)
	if g.held.Add(-1) == 0 && err == nil {
		held := time.Since(time.Unix(0, g.since.Load()))
		g.log.Info().Str("throttled_for", held.Round(time.Millisecond).String()).Msg("copy no longer throttled")
	}
	return err
}
