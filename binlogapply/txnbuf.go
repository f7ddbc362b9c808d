package binlogapply

import (
	"context"
	"fmt"
)

// The reader holds a transaction's items (row changes of the original, changelog heartbeats and
// sentinels) until the transaction's real end, so that nothing a rollback undoes reaches the ghost:
//
//   - XID or COMMIT: the items are queued for the applier, then the transaction's end position.
//   - ROLLBACK: the items are dropped. ROLLBACK TO SAVEPOINT s: the items read after SAVEPOINT s
//     are dropped (and the savepoints set after s forgotten).
//   - XA PREPARE: the items are set aside under the xid until XA COMMIT (queued at that point of
//     the binlog: the prepared transaction holds its row locks until then) or XA ROLLBACK (dropped).
//     Prepared transactions survive reconnections: the resume position is past their PREPARE.
//
// Memory is bounded by MaxTxnBytes over the open transaction and the prepared XA transactions.
// Beyond it, a transaction that cannot roll back (MariaDB marks a group that touched only
// transactional tables, and the server never logs the undone rows of such a group) is streamed:
// what was held is queued and the rest goes straight to the queue. Any other transaction beyond
// it stops Run with a message; holding it on disk is not implemented.
//
// Positions move only at transaction ends, so a new connection re-reads an unfinished transaction
// from its start: what was held is dropped at reconnection, and rows already streamed are skipped
// by count (fresh).

// txnBuf is the open transaction of the reader.
type txnBuf struct {
	items      []item
	bytes      int
	savepoints []savepoint
	safe       bool // the group cannot end in a rollback (MariaDB's FL_TRANSACTIONAL, not XA)
	streaming  bool // beyond MaxTxnBytes: items go straight to the queue
}

type savepoint struct {
	name  string
	at    int // len(items) when it was set
	bytes int
}

// preparedXA is a transaction logged at XA PREPARE, waiting for its XA COMMIT or XA ROLLBACK.
type preparedXA struct {
	items []item
	bytes int
}

// itemBytes is a rough size of an item held in memory.
func itemBytes(it item) int {
	n := 64
	if it.ch != nil {
		n += it.ch.size + 16*(len(it.ch.oldKey)+len(it.ch.newKey))
	}
	return n + len(it.value)
}

// reset starts a new transaction (or drops what a lost connection left unfinished).
func (t *txnBuf) reset(safe bool) {
	clear(t.items)
	t.items, t.bytes, t.savepoints, t.safe, t.streaming = t.items[:0], 0, t.savepoints[:0], safe, false
}

// hold adds an item of the open transaction, streaming it when the transaction has to be.
func (r *reader) hold(ctx context.Context, it item) error {
	t := &r.txn
	if t.streaming {
		return r.emit(ctx, it)
	}
	t.items = append(t.items, it)
	t.bytes += itemBytes(it)
	if t.bytes+r.xaBytes <= r.a.cfg.MaxTxnBytes {
		return nil
	}
	if !t.safe {
		return fatal{fmt.Errorf("a transaction read at %s:%d holds more than %d bytes of changes to %s.%s "+
			"(with the prepared XA transactions) and may still be rolled back (it touched a non-transactional table, "+
			"is an XA transaction, or the server does not say): it is too large to hold until its end; "+
			"split it into smaller transactions, or raise the applier's transaction buffer",
			r.file, r.lastPos, r.a.cfg.MaxTxnBytes, r.a.cfg.Schema, r.a.cfg.Original.Name)}
	}
	t.streaming = true
	r.a.log.Debug().Int("bytes", t.bytes).Msg("large transaction that cannot roll back: streaming its changes")
	return r.flushHeld(ctx)
}

// flushHeld queues what the open transaction holds.
func (r *reader) flushHeld(ctx context.Context) error {
	t := &r.txn
	for _, it := range t.items {
		if err := r.emit(ctx, it); err != nil {
			return err
		}
	}
	clear(t.items)
	t.items, t.bytes, t.savepoints = t.items[:0], 0, t.savepoints[:0]
	return nil
}

// emit queues one item of a transaction, unless a previous connection already queued it.
func (r *reader) emit(ctx context.Context, it item) error {
	if !r.fresh() {
		return nil
	}
	if it.kind == itemChange {
		r.a.backlog.Add(1)
	}
	return r.send(ctx, it)
}

// setSavepoint marks the open transaction (a savepoint set again moves).
func (r *reader) setSavepoint(name string) {
	t := &r.txn
	for i, s := range t.savepoints {
		if s.name == name {
			t.savepoints = append(t.savepoints[:i], t.savepoints[i+1:]...)
			break
		}
	}
	t.savepoints = append(t.savepoints, savepoint{name: name, at: len(t.items), bytes: t.bytes})
}

// rollbackTo drops the items held since savepoint name, which stays set.
func (r *reader) rollbackTo(name string) error {
	t := &r.txn
	for i, s := range t.savepoints {
		if s.name != name {
			continue
		}
		if t.streaming {
			break
		}
		clear(t.items[s.at:])
		t.items, t.bytes, t.savepoints = t.items[:s.at], s.bytes, t.savepoints[:i+1]
		return nil
	}
	return fatal{fmt.Errorf("ROLLBACK TO SAVEPOINT read at %s:%d cannot be undone: %s; the changes rolled back "+
		"may already be applied", r.file, r.lastPos, r.rollbackProblem(name))}
}

func (r *reader) rollbackProblem(name string) string {
	if r.txn.streaming {
		return "the transaction was streamed (too large to hold) although the server marked it as unable to roll back"
	}
	return fmt.Sprintf("savepoint %q was not read in this transaction", name)
}

// prepareXA sets the open transaction aside under xid until its XA COMMIT or XA ROLLBACK.
func (r *reader) prepareXA(key string) error {
	t := &r.txn
	if t.streaming {
		return fatal{fmt.Errorf("XA PREPARE read at %s:%d for a transaction that was streamed", r.file, r.lastPos)}
	}
	if old, ok := r.prepared[key]; ok {
		r.xaBytes -= old.bytes
	}
	r.prepared[key] = &preparedXA{items: append([]item(nil), t.items...), bytes: t.bytes}
	r.xaBytes += t.bytes
	t.reset(false)
	return nil
}

// finishXA queues (commit) or drops the items of prepared transaction xid.
func (r *reader) finishXA(ctx context.Context, key string, commit bool) error {
	p, ok := r.prepared[key]
	if !ok {
		if commit {
			return fatal{fmt.Errorf("XA COMMIT read at %s:%d for a transaction prepared before the binlog stream "+
				"started: its changes cannot be read; run the migration again once no XA transaction is prepared "+
				"(XA RECOVER lists them)", r.file, r.lastPos)}
		}
		return nil // rolled back: nothing of it was ours to apply
	}
	delete(r.prepared, key)
	r.xaBytes -= p.bytes
	if !commit {
		return nil
	}
	for _, it := range p.items {
		if it.kind == itemChange {
			r.a.backlog.Add(1)
		}
		if err := r.send(ctx, it); err != nil {
			return err
		}
	}
	return nil
}
