package checkpoint

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// Position is a point of the binary log: the end of a transaction, and the GTID set there when
// the server has GTIDs ("" otherwise).
type Position struct {
	File string
	Pos  uint32
	GTID string
}

// Copy is how far a row copy is: the shared-key value up to which every row is in the ghost (nil:
// none yet) and the rows copied.
type Copy interface {
	CompleteUpTo() []sql.RawBytes
	Copied() int64
}

// Writer writes a run's checkpoints to its checkpoint table: every Interval while Due says so
// (Run), and the cut-over checkpoint a --revert starts from (WriteCutOver). A record is read in
// this order: the applier's applied position (everything before it is applied), then how far the
// copy is complete; any order would do, since a resumed run replays from the position on.
type Writer struct {
	DB            *sql.DB // the server the checkpoint table is on
	Schema, Table string  // the checkpoint table
	Interval      time.Duration
	// Due tells whether a checkpoint is due now (the run copies or is postponed).
	Due func() bool
	// Applied is where the applier stands: the end of the last transaction it applied to the
	// ghost, and how many events it applied.
	Applied func() (Position, int64)
	// Copy is the run's copy once it started, nil before.
	Copy func() Copy
	// From is the key a resumed run's copy starts above (nil: from the smallest), recorded until
	// the copy has started.
	From  []sql.RawBytes
	Alter *Alter // the run's ALTER (AlterOf)
	Log   zerolog.Logger

	written atomic.Bool  // Write wrote a checkpoint
	count   atomic.Int64 // how many, for the log line
}

// Run writes a checkpoint every Interval while Due, until ctx ends. A failed write is logged, not
// fatal: the last checkpoint is only older. It always returns nil, for an error group.
func (w *Writer) Run(ctx context.Context) error {
	t := time.NewTicker(w.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if !w.Due() {
			continue
		}
		if err := w.Write(ctx); err != nil && ctx.Err() == nil {
			w.Log.Warn().Err(err).Msg("checkpoint not written")
		}
	}
}

// Written tells whether Write wrote a checkpoint (the cut-over checkpoint does not count: it is
// for a --revert, not a --resume).
func (w *Writer) Written() bool { return w.written.Load() }

// Write records the applied position, then how far the copy is complete.
func (w *Writer) Write(ctx context.Context) error {
	w.Log.Info().Msgf("starting checkpoint at %s", time.Now().Format(time.RFC3339Nano)) // gh-ost's words
	pos, events := w.Applied()
	rec := Record{File: pos.File, Pos: pos.Pos, GTID: pos.GTID, EventsApplied: events, Key: w.From, Alter: w.Alter}
	if c := w.Copy(); c != nil {
		rec.Key, rec.RowsCopied = c.CompleteUpTo(), c.Copied()
	}
	if err := Write(ctx, w.DB, w.Schema, w.Table, rec); err != nil {
		return err
	}
	w.written.Store(true)
	// gh-ost's words, which wrappers wait for; no key values (they are row data).
	w.Log.Info().Str("checkpoint", rec.String()).
		Msgf("checkpoint success at coords=%s rows_copied=%d events_applied=%d iteration=%d", rec.Coords(), rec.RowsCopied, rec.EventsApplied, w.count.Add(1))
	return nil
}

// WriteCutOver writes the cut-over checkpoint: at, a position read under the cut-over's lock once
// every change of the original was applied, and what the swap does, for a --revert.
func (w *Writer) WriteCutOver(ctx context.Context, at Position, swap Swap) error {
	_, events := w.Applied()
	rec := Record{File: at.File, Pos: at.Pos, GTID: at.GTID, CutOver: true, EventsApplied: events, Swap: &swap, Alter: w.Alter}
	if c := w.Copy(); c != nil {
		rec.Key, rec.RowsCopied = c.CompleteUpTo(), c.Copied()
	}
	if err := Write(ctx, w.DB, w.Schema, w.Table, rec); err != nil {
		return fmt.Errorf("cut-over checkpoint: %w", err)
	}
	// gh-ost's words, which wrappers wait for; the record is what a --revert starts from.
	w.Log.Info().Str("checkpoint", rec.String()).Str("for", "--revert").
		Msgf("checkpoint success after cutover at coords=%s", rec.Coords())
	return nil
}
