package copier

import (
	"context"
	"database/sql"
	"fmt"
)

// chunk is one range of the shared key: (lower, upper], or [lower, upper] when inclusive. Parts
// of a chunk copied separately keep its number n.
type chunk struct {
	n            int64
	lower, upper []sql.RawBytes
	inclusive    bool
	size         int // the chunk size it was planned with
}

// planChunks sends the chunks of the table, from its smallest to its largest key as they are when
// the copy starts (rows added later are the applier's), then closes out. It reads the chunk ends
// on a connection of its own, as far ahead as out's buffer lets it; each chunk has the chunk size
// the knobs hold when its end is read.
func (c *Copier) planChunks(ctx context.Context, out chan<- chunk) error {
	defer close(out)
	conn, err := c.cfg.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("row copy: connect: %w", err)
	}
	defer conn.Close()
	min, max, err := c.key.bounds(ctx, conn)
	if err != nil {
		return fmt.Errorf("row copy: read key bounds: %w", err)
	}
	if min == nil {
		c.log.Info().Msg("original table is empty: nothing to copy")
		return nil
	}
	lower, inclusive := min, true
	if start := c.cfg.StartAfter; start != nil {
		// A resumed copy: the ghost is complete up to start. Nothing above it: nothing to copy.
		more, err := c.key.anyAbove(ctx, conn, start)
		if err != nil {
			return fmt.Errorf("row copy: look for keys above the resume point: %w", err)
		}
		if !more {
			c.log.Info().Msg("the ghost is complete up to the largest key: nothing left to copy")
			return nil
		}
		lower, inclusive = start, false
	}
	for n := int64(1); ; n++ {
		size := c.cfg.Knobs.ChunkSize()
		upper, err := c.key.chunkEnd(ctx, conn, lower, inclusive, max, size)
		if err != nil {
			return fmt.Errorf("row copy: find end of chunk %d: %w", n, err)
		}
		select {
		case out <- chunk{n: n, lower: lower, upper: upper, inclusive: inclusive, size: size}:
		case <-ctx.Done():
			return ctx.Err()
		}
		if c.key.equal(upper, max) {
			return nil
		}
		lower, inclusive = upper, false
	}
}
