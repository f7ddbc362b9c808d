package binlogapply

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Keys touched while a chunk is copied, and their re-application (the row copy's lock-free read).
//
// The row copy reads the original without row locks (a consistent read), so a chunk's INSERT can
// write a row of its snapshot after the applier has already applied a newer change of that row:
// a delete, an update, a key change committed after the snapshot and applied before the INSERT
// reached the row. The ghost then holds a stale row (or a row deleted from the original). To undo
// that, the copy brackets each chunk with Track:
//
//	Track     (before the chunk's INSERT starts) registers a record; from then on every batch the
//	          applier commits adds, for each shared key it wrote in the chunk's range, the key's
//	          last state as applied: the after image, or "absent" (a delete, the old key of a key
//	          change). The range filters only a one-column integer key (table.KeySpan); any other
//	          key is recorded whatever its value.
//	settle    (after the chunk's INSERT committed) asks the applying goroutine, between two
//	          batches, to unregister the record and apply each recorded key's state once more:
//	          delete the key from the ghost, insert the image when there is one, as an applied
//	          change does (clashes on other unique keys displace rows as usual, displaced.go).
//
// Why the ghost converges on the original. Let S be the chunk's snapshot (taken when its INSERT
// starts, after Track). A change C of a row in the chunk's range is, by the time the applier
// commits it:
//   - committed before Track returned: C precedes S, the snapshot holds C's effect or a later
//     one; an INSERT that finds the row's key in the ghost skips it (the ghost row is C's or
//     newer; a newer change of the snapshot is ahead in the binary log), one that does not
//     writes a state at least as new as C; either way the later changes converge it;
//   - committed while the record is registered: its key is recorded (the record is read after
//     each commit, on the applying goroutine), and settle re-applies the key's last applied
//     state after the INSERT committed, overwriting whatever stale image the INSERT wrote;
//   - committed after settle unregistered: the INSERT had committed before settle was asked, so
//     C is applied over the INSERT's rows, as with a locking read.
//
// Re-applying a state the applier already applied is idempotent (full images, by shared key), and
// every change of a key after the recorded state is applied after it (one goroutine applies both).

// tracker holds the records registered by Track.
type tracker struct {
	mu      sync.Mutex
	records map[*keyRecord]bool
	settles chan settleRequest // carries settle to the applying goroutine (apply)
}

// keyRecord is the last applied state of each shared key written while it was registered, of the
// keys inside its span (the chunk's range: a key outside it cannot have been written by the chunk).
type keyRecord struct {
	span  table.KeySpan
	keyOf string             // the original's column of a one-column shared key ("": several, span unused)
	last  map[string]*change // keyString -> a change that writes the key's state (insert) or deletes it
	order []string           // keys in first-written order, for a stable re-application
}

// settleRequest asks the applying goroutine to settle rec and report on done.
type settleRequest struct {
	rec  *keyRecord
	done chan error
}

func newTracker() tracker {
	return tracker{records: map[*keyRecord]bool{}, settles: make(chan settleRequest)}
}

// Track registers a record of the keys in span (the zero span: every key) the applier writes
// from now on; settle, called once the chunk copied meanwhile has committed, re-applies their last
// states on the applying goroutine and returns when they are committed (or the applier stopped,
// or ctx ended). Call settle exactly once. Track and settle may be called from several goroutines
// at once.
func (a *Applier) Track(span table.KeySpan) (settle func(ctx context.Context) error) {
	rec := &keyRecord{last: map[string]*change{}, span: span}
	if len(a.plan.key) == 1 {
		rec.keyOf = a.plan.key[0].col.Name
	}
	a.track.mu.Lock()
	a.track.records[rec] = true
	a.track.mu.Unlock()
	return func(ctx context.Context) error {
		req := settleRequest{rec: rec, done: make(chan error, 1)}
		select {
		case a.track.settles <- req:
		case <-ctx.Done():
			a.untrack(rec)
			return ctx.Err()
		case <-a.stopped:
			a.untrack(rec)
			return errors.New("re-apply the keys written during a chunk: the binlog applier has stopped")
		}
		select {
		case err := <-req.done:
			return err
		case <-a.stopped:
			return errors.New("re-apply the keys written during a chunk: the binlog applier has stopped")
		}
	}
}

func (a *Applier) untrack(rec *keyRecord) {
	a.track.mu.Lock()
	delete(a.track.records, rec)
	a.track.mu.Unlock()
}

// recordApplied adds the keys of the committed batch to every registered record.
func (a *Applier) recordApplied(batch []item) {
	a.track.mu.Lock()
	defer a.track.mu.Unlock()
	if len(a.track.records) == 0 {
		return
	}
	for _, it := range batch {
		if it.kind != itemChange {
			continue
		}
		for rec := range a.track.records {
			rec.add(it.ch)
		}
	}
}

// add records the states change ch leaves: its old key absent when the key changed or the row
// was deleted, its new key holding the after image.
func (r *keyRecord) add(ch *change) {
	if ch.kind != chInsert && (ch.kind == chDelete || keyString(ch.oldKey) != keyString(ch.newKey)) {
		r.set(ch.oldKey, &change{kind: chDelete, oldKey: ch.oldKey})
	}
	if ch.kind != chDelete {
		r.set(ch.newKey, &change{kind: chInsert, newKey: ch.newKey, values: ch.values, size: ch.size, relax: ch.relax})
	}
}

func (r *keyRecord) set(key []any, state *change) {
	if r.keyOf != "" && r.span.Excludes(r.keyOf, key[0]) {
		return
	}
	k := keyString(key)
	if _, ok := r.last[k]; !ok {
		r.order = append(r.order, k)
	}
	r.last[k] = state
}

// settle unregisters req's record and re-applies its keys' states in one transaction on the
// applier's session (between two batches: apply calls it). The re-applied keys count as written
// for the records still registered.
func (a *Applier) settle(ctx context.Context, conn *sql.Conn, req settleRequest) error {
	a.untrack(req.rec)
	if len(req.rec.order) == 0 {
		req.done <- nil
		return nil
	}
	items := make([]item, 0, len(req.rec.order))
	for _, k := range req.rec.order {
		items = append(items, item{kind: itemChange, ch: req.rec.last[k]})
	}
	err := a.retryTransient(ctx, func() error { return a.writeChanges(ctx, conn, items) })
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil {
		a.recordApplied(items)
	} else {
		err = fmt.Errorf("re-apply %d keys written during a chunk's copy: %w", len(items), err)
	}
	req.done <- err
	return err
}
