package migrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/checksum"
	"github.com/go-ghostlite/go-ghostlite/copier"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/observe"
)

// checksumCatchUpTimeout bounds the wait for the applier while the checksum holds the original's
// read lock: the backlog was drained just before, so it is short unless the applier is stuck.
var checksumCatchUpTimeout = 10 * time.Second

// checksum compares the original and the ghost before the cut-over and repairs chunks that
// differ (package checksum). It runs after the postponed wait and the catch-up, so it proves the
// data as it is right before the swap. A shared key whose type, character set or collation
// changes is compared as one range (the whole table; checksum.Checksum logs it); one of whose
// columns the checksum cannot compare exactly (checksum.ErrKeyChanges) skips the checksum with a
// warning.
func (r *run) checksum(ctx context.Context) error {
	m, p := r.m, r.s.plan
	pairs := make([]checksum.Pair, len(p.Columns))
	for i, c := range p.Columns {
		pairs[i] = checksum.Pair{Original: c.Original, Ghost: c.Ghost, Select: p.SelectExpr(c, ""), Converted: c.Shift != table.ZoneNone || c.Pad.Length != 0}
	}
	cs, err := checksum.New(checksum.Config{
		Primary:        p.Primary,
		Flavor:         p.Flavor,
		Original:       p.Original,
		Ghost:          p.Ghost,
		GhostTable:     p.GhostTable,
		OriginalKey:    p.OriginalKey,
		Pairs:          pairs,
		ChunkSize:      m.checksumChunkSize,
		Rows:           r.checksumRows,
		LockTimeout:    m.cfg.CutOverLockTimeout,
		LockAttempts:   m.cfg.DefaultRetries,
		CatchUpTimeout: checksumCatchUpTimeout,
		CatchUp:        copier.CatchUpFunc(r.sent.awaitApplied),
		Logger:         m.cfg.Logger,
		Test:           checksum.TestHooks{BeforeSnapshot: m.seams.beforeSnapshot},
	})
	if errors.Is(err, checksum.ErrKeyChanges) {
		m.log.Warn().Err(err).Msg("checksum skipped: the shared key changes and the checksum cannot compare it exactly")
		r.unchecked = []string{"every column: " + err.Error()}
		m.emit(observe.EventChecksum, observe.Event{Checksum: &observe.ChecksumOutcome{Skipped: r.unchecked}})
		return nil
	}
	if err != nil {
		return err
	}
	res, err := cs.Run(ctx)
	r.unchecked = res.Skipped
	m.emit(observe.EventChecksum, observe.Event{Err: err, Checksum: &observe.ChecksumOutcome{Ranges: res.Ranges, Rows: res.Rows,
		Repaired: res.Repaired, Skipped: res.Skipped, LockHeld: res.LockHeld, Took: res.Took}})
	if err != nil {
		return fmt.Errorf("checksum before the cut-over: %w", err)
	}
	m.log.Info().
		Int64("ranges", res.Ranges).
		Int64("rows", res.Rows).
		Int("repaired", res.Repaired).
		Int("columns_not_compared", len(res.Skipped)).
		Str("lock", logfmt.Duration(res.LockHeld)).
		Str("took", logfmt.Duration(res.Took)).
		Msgf("checksum: %d rows compared in %d ranges, %d repaired, in %s", res.Rows, res.Ranges, res.Repaired, logfmt.Duration(res.Took))
	return nil
}

// uncheckedNote is what the summary line adds when the checksum left columns out: their names,
// so a run that ends 0 says what it did not prove (the reasons are in the not_checksummed field).
func (r *run) uncheckedNote() string {
	if len(r.unchecked) == 0 {
		return ""
	}
	names := make([]string, len(r.unchecked))
	for i, u := range r.unchecked {
		names[i], _, _ = strings.Cut(u, ":")
	}
	return fmt.Sprintf("; NOT compared by the checksum: %s (doc/checksum.md)", strings.Join(names, ", "))
}

// checksumRows estimates the original's rows for the checksum's ranges: the plan's estimate
// (or the exact count), or the rows this run copied when they are more.
func (r *run) checksumRows() int64 {
	n := r.rowsEstimate.Load()
	if c := r.copier.Load(); c != nil {
		n = max(n, c.Copied())
	}
	return n
}

// checksumChunkSize is the size of the checksum's chunks (it compares ranges of ten): the chunk
// size the copy uses now, or, while --chunk-time sizes the copy's chunks, --chunk-size, the size
// they started from. Chunks grown for speed (tens of thousands of rows) would leave the three
// sessions a handful of ranges to share, and make a repair copy far more rows than differ.
func (m *Migrator) checksumChunkSize() int {
	if m.cfg.ChunkTime > 0 && !m.levers.chunkSize.Fixed() {
		return m.cfg.ChunkSize
	}
	return m.levers.chunkSize.ChunkSize()
}
