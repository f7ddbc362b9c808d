package copier

import (
	"cmp"
	"database/sql"
	"slices"
	"sync"
	"sync/atomic"
)

// completion is the bookkeeping behind CompleteUpTo. With several copy sessions, chunks finish
// out of order: chunk 7 may be proven while chunk 5 is still being copied. The mark moves to the
// upper key of chunk n only once every chunk numbered up to n is proven; a deferred chunk stops it
// there until the deferred chunks are proven at the end of the copy. Safe for concurrent use.
type completion struct {
	upTo atomic.Pointer[[]sql.RawBytes] // what CompleteUpTo returns (nil: nothing proven yet)

	mu sync.Mutex
	// next is the lowest chunk number not yet proven (chunks are numbered from 1).
	next int64
	// ahead holds the upper keys of chunks proven above next, by number, until the gap closes.
	ahead map[int64][]sql.RawBytes
	// frozenAt is the lowest deferred chunk number (0: none): the mark never passes it before
	// finish. Chunks proven above it are not kept.
	frozenAt int64
	deferred []chunk
	// last is the upper key of the highest-numbered chunk seen: the mark once everything is proven.
	last  []sql.RawBytes
	lastN int64
}

func newCompletion(start []sql.RawBytes) *completion {
	c := &completion{next: 1, ahead: map[int64][]sql.RawBytes{}}
	if start != nil {
		c.upTo.Store(&start)
	}
	return c
}

// load is the current mark (nil: nothing proven yet).
func (c *completion) load() []sql.RawBytes {
	if p := c.upTo.Load(); p != nil {
		return *p
	}
	return nil
}

// proven records chunk ch as proven complete and moves the mark over every chunk now proven
// without a gap below it.
func (c *completion) proven(ch chunk) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen(ch)
	if c.frozenAt != 0 && ch.n > c.frozenAt {
		return // the mark stops at the deferred chunk until finish
	}
	c.ahead[ch.n] = ch.upper
	var upper []sql.RawBytes
	for {
		u, ok := c.ahead[c.next]
		if !ok {
			break
		}
		delete(c.ahead, c.next)
		upper = u
		c.next++
	}
	if upper != nil {
		c.upTo.Store(&upper)
	}
}

// deferChunk records ch as having rows missing from the ghost: it is copied again at the end,
// and the mark stays below it until then.
func (c *completion) deferChunk(ch chunk) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen(ch)
	c.deferred = append(c.deferred, ch)
	if c.frozenAt == 0 || ch.n < c.frozenAt {
		c.frozenAt = ch.n
	}
	for n := range c.ahead {
		if n > c.frozenAt {
			delete(c.ahead, n)
		}
	}
}

// seen keeps the upper key of the highest-numbered chunk. Called with mu held.
func (c *completion) seen(ch chunk) {
	if ch.n > c.lastN {
		c.lastN, c.last = ch.n, ch.upper
	}
}

// deferredChunks are the deferred chunks in key order.
func (c *completion) deferredChunks() []chunk {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.deferred)
	slices.SortFunc(out, func(a, b chunk) int { return cmp.Compare(a.n, b.n) })
	return out
}

// finish moves the mark to the largest key copied: every chunk, deferred ones included, is proven.
func (c *completion) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last != nil {
		last := c.last
		c.upTo.Store(&last)
	}
}
