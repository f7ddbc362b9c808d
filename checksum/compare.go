package checksum

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/go-ghostlite/go-ghostlite/copier"
)

// span is a range of the shared key: (lower, upper], or [lower, upper] when inclusive; a nil end
// is unbounded (the first chunk reaches below the original's smallest key and the last above its
// largest, so ghost rows outside the original's keys are counted too).
type span struct {
	lower, upper []sql.RawBytes
	inclusive    bool
}

func (c *Checksum) describe(sp span) string {
	if c.whole != "" {
		return "the whole table"
	}
	open := "("
	if sp.inclusive {
		open = "["
	}
	lo, hi := "-inf", "+inf"
	if sp.lower != nil {
		lo = copier.Format(sp.lower)
	}
	if sp.upper != nil {
		hi = copier.Format(sp.upper)
	}
	return open + lo + " .. " + hi + "]"
}

// walk emits each range of c.size rows of the original as the snapshot sees it, from the first
// key to the last, the ends unbounded (a one-column integer key is cut by its values instead,
// see valueCuts). It sets c.min and c.max before the first. Where the key changes (c.whole) it
// emits one span without bounds: the whole table.
func (c *Checksum) walk(ctx context.Context, conn *sql.Conn, emit func(span) error) error {
	if c.whole != "" {
		return emit(span{})
	}
	min, max, err := c.ranges.Bounds(ctx, conn)
	if err != nil {
		return fmt.Errorf("checksum: read key bounds: %w", err)
	}
	c.min, c.max = min, max
	if min == nil {
		return emit(span{})
	}
	if lo, hi, step, ok := c.valueCuts(min, max); ok {
		return emitCuts(lo, hi, step, emit)
	}
	lower, inclusive := min, true
	for first := true; ; first = false {
		upper, err := c.ranges.ChunkEnd(ctx, conn, lower, inclusive, max, c.size)
		if err != nil {
			return fmt.Errorf("checksum: find a chunk's end: %w", err)
		}
		sp := span{lower: lower, upper: upper, inclusive: inclusive}
		if first {
			sp.lower = nil
		}
		last := c.ranges.Equal(upper, max)
		if last {
			sp.upper = nil
		}
		if err := emit(sp); err != nil {
			return err
		}
		if last {
			return nil
		}
		lower, inclusive = upper, false
	}
}

// compare reads the count and the hash of the span on both sides; rows is the original's count.
func (c *Checksum) compare(ctx context.Context, conn *sql.Conn, sp span) (same bool, rows int64, err error) {
	ow, oa := c.ranges.Where(c.origKey, sp.lower, sp.inclusive, sp.upper)
	gw, ga := c.ranges.Where(c.ghostKey, sp.lower, sp.inclusive, sp.upper)
	q := fmt.Sprintf("SELECT 0, COUNT(*), COALESCE(BIT_XOR(%s), 0) FROM %s WHERE %s UNION ALL SELECT 1, COUNT(*), COALESCE(BIT_XOR(%s), 0) FROM %s WHERE %s",
		rowExpr(c.cols, false, c.cfg.Flavor), c.from, ow, rowExpr(c.cols, true, c.cfg.Flavor), c.ghost, gw)
	res, err := conn.QueryContext(ctx, q, append(oa, ga...)...)
	if err != nil {
		return false, 0, err
	}
	defer res.Close()
	var count [2]int64
	var sum [2]uint64
	for res.Next() {
		var side int
		var n int64
		var s uint64
		if err := res.Scan(&side, &n, &s); err != nil {
			return false, 0, err
		}
		count[side], sum[side] = n, s
	}
	if err := res.Err(); err != nil {
		return false, 0, err
	}
	return count[0] == count[1] && sum[0] == sum[1], count[0], nil
}

// narrow bisects a span that differs, holding rows of the original in this snapshot, down to
// the chunks of c.leaf rows that differ. Every cut falls a multiple of c.leaf rows after the
// span's start: where the spans start a multiple of c.leaf rows after the smallest key (a walk,
// or value cuts over keys without gaps), the chunks found are those of a walk in chunks of
// c.leaf rows, the copy's own.
func (c *Checksum) narrow(ctx context.Context, conn *sql.Conn, sp span, rows int64) ([]span, error) {
	leaf := int64(c.leaf)
	chunks := (rows + leaf - 1) / leaf
	if chunks <= 1 {
		return []span{sp}, nil
	}
	lower, inclusive, upper := sp.lower, sp.inclusive, sp.upper
	if lower == nil {
		lower, inclusive = c.min, true
	}
	if upper == nil {
		upper = c.max
	}
	mid, err := c.ranges.ChunkEnd(ctx, conn, lower, inclusive, upper, int(chunks/2*leaf))
	if err != nil {
		return nil, fmt.Errorf("checksum: split keys %s: %w", c.describe(sp), err)
	}
	var out []span
	for _, half := range []span{{lower: sp.lower, upper: mid, inclusive: sp.inclusive}, {lower: mid, upper: sp.upper}} {
		same, n, err := c.compare(ctx, conn, half)
		if err != nil {
			return nil, fmt.Errorf("checksum: compare keys %s: %w", c.describe(half), err)
		}
		if same {
			continue
		}
		sub, err := c.narrow(ctx, conn, half, n)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	if len(out) == 0 {
		return []span{sp}, nil // the halves add up to the whole in one snapshot: never, but safe
	}
	return out, nil
}
