package checksum

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"sync"
)

// job is a span to compare and its place in key order (bad spans are reported in key order).
type job struct {
	seq int
	sp  span
}

// found are the differing chunks of one job.
type found struct {
	seq   int
	spans []span
}

// round opens a snapshot in every session it needs and compares the given spans (nil: the whole
// table, in ranges of c.size rows, walked by a session of its own while the others compare). A
// differing range of the full pass is narrowed down to the copy's chunks that differ. It returns
// those chunks, in key order.
func (c *Checksum) round(ctx context.Context, n int, only []span) ([]span, error) {
	if h := c.cfg.Test.BeforeSnapshot; h != nil {
		if err := h(ctx, n); err != nil {
			return nil, err
		}
	}
	workers := c.cfg.Sessions
	if c.whole != "" {
		workers = 1 // one range
	}
	if only != nil {
		workers = min(workers, len(only))
	}
	sessions := workers
	if only == nil {
		sessions++ // the walker
	}
	conns, err := c.snapshot(ctx, sessions)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, conn := range conns {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
			conn.Close()
		}
	}()
	if only != nil {
		return c.compareAll(ctx, conns, false, func(ctx context.Context, emit func(span) error) error {
			for _, sp := range only {
				if err := emit(sp); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return c.compareAll(ctx, conns[1:], true, func(ctx context.Context, emit func(span) error) error {
		return c.walk(ctx, conns[0], emit)
	})
}

// compareAll compares the spans that produce emits, one worker per session in conns, and returns
// the differing chunks in key order. The first error stops every worker and the producer.
func (c *Checksum) compareAll(ctx context.Context, conns []*sql.Conn, full bool, produce func(context.Context, func(span) error) error) ([]span, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		bad      []found
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	jobs := make(chan job, len(conns))
	for _, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					continue // drain after a failure
				}
				spans, err := c.check(ctx, conn, j.sp, full)
				if err != nil {
					fail(err)
					continue
				}
				if len(spans) > 0 {
					mu.Lock()
					bad = append(bad, found{j.seq, spans})
					mu.Unlock()
				}
			}
		}()
	}
	seq := 0
	err := produce(ctx, func(sp span) error {
		select {
		case jobs <- job{seq, sp}:
			seq++
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err != nil {
		return nil, err
	}
	sort.Slice(bad, func(i, j int) bool { return bad[i].seq < bad[j].seq })
	var out []span
	for _, f := range bad {
		out = append(out, f.spans...)
	}
	return out, nil
}

// check compares one span and returns the chunks of it that differ: in the full pass a differing
// range is narrowed down in the same snapshot; a re-checked chunk, or the whole table where the
// key changes (the ghost cannot be cut in the original's key ranges), is returned as it is.
func (c *Checksum) check(ctx context.Context, conn *sql.Conn, sp span, full bool) ([]span, error) {
	same, rows, err := c.compare(ctx, conn, sp)
	if err != nil {
		return nil, fmt.Errorf("checksum: compare keys %s: %w", c.describe(sp), err)
	}
	if full {
		c.mu.Lock()
		c.res.Ranges++
		c.res.Rows += rows
		c.mu.Unlock()
	}
	switch {
	case same:
		return nil, nil
	case full && c.whole == "":
		return c.narrow(ctx, conn, sp, rows)
	default:
		return []span{sp}, nil
	}
}
