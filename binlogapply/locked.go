package binlogapply

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Applying on the cut-over's locking session (--cut-over=lock-rename, MySQL 8.0.13+). That
// session holds LOCK TABLES on the original and the ghost and renames both itself, so no other
// session can write the ghost meanwhile: the binlog tail up to the cut-over's sentinel is applied
// on the locking session instead.
//
//	Hold      parks the applying goroutine between two transactions (before the lock is asked for:
//	          a transaction of the applier on the ghost would hold the lock back, and a statement
//	          of it queued behind the lock could never be handed over).
//	ApplyOn   while held: applies every queued change up to a sentinel on the given session,
//	          which runs with autocommit off (START TRANSACTION would release its table locks),
//	          committing each batch there; then publishes the markers as the applier does.
//	release   resumes the applier on its own session. A batch that failed on the locking session
//	          (a dead connection, a clash) is applied again first: applying is idempotent (delete
//	          by shared key, insert the after image), so a batch that did commit is harmless.
//
// Invariants: while held, nothing but ApplyOn writes the ghost; every change taken off the queue
// is committed on the locking session or applied again after release; displaced rows are never
// moved on the locking session (the displaced table lives on the applier's own session), a clash
// fails ApplyOn instead.

// errClashUnderLock: a change applied on the locking session clashes on a unique key of the ghost.
var errClashUnderLock = errors.New("cannot apply on the cut-over's locking session: rows of the ghost would have to be moved aside")

// holdState is one Hold: the applier parks, serves jobs, and resumes when released.
type holdState struct {
	parked  chan struct{}
	jobs    chan applyJob
	release chan struct{}
}

// applyJob asks the parked applier to apply up to sentinel on conn.
type applyJob struct {
	ctx      context.Context
	conn     *sql.Conn
	sentinel string
	done     chan error
}

// Hold parks the applying goroutine once its current transaction is committed and returns when it
// is parked (or ctx ends, or Run stopped). Call release exactly once, whatever happens.
func (a *Applier) Hold(ctx context.Context) (release func(), err error) {
	h := &holdState{parked: make(chan struct{}), jobs: make(chan applyJob), release: make(chan struct{})}
	select {
	case a.holds <- h:
	case <-ctx.Done():
		return func() {}, fmt.Errorf("hold the binlog applier: %w", ctx.Err())
	case <-a.stopped:
		return func() {}, errors.New("hold the binlog applier: it has stopped")
	}
	release = func() { close(h.release) }
	select {
	case <-h.parked:
		a.held.Store(h)
		return release, nil
	case <-ctx.Done():
		release()
		return func() {}, fmt.Errorf("hold the binlog applier: %w", ctx.Err())
	case <-a.stopped:
		return func() {}, errors.New("hold the binlog applier: it has stopped")
	}
}

// ApplyOn applies, on conn, every change queued up to the sentinel row carrying value (written by
// the caller) and publishes the markers, the sentinel's included. The applier must be held. conn
// must hold the ghost write-locked with autocommit off; ApplyOn commits on it.
func (a *Applier) ApplyOn(ctx context.Context, conn *sql.Conn, sentinel string) error {
	h := a.held.Load()
	if h == nil {
		return errors.New("apply on the locking session: the applier is not held")
	}
	job := applyJob{ctx: ctx, conn: conn, sentinel: sentinel, done: make(chan error, 1)}
	select {
	case h.jobs <- job:
	case <-ctx.Done():
		return ctx.Err()
	case <-a.stopped:
		return errors.New("apply on the locking session: the applier has stopped")
	}
	select {
	case err := <-job.done:
		return err
	case <-a.stopped:
		return errors.New("apply on the locking session: the applier has stopped")
	}
}

// serveHold runs in the applying goroutine while held: it serves ApplyOn jobs until released,
// then applies on its own session what a failed job left. A fatal item stops Run.
func (a *Applier) serveHold(ctx context.Context, conn *sql.Conn, q <-chan item, h *holdState) error {
	close(h.parked)
	var left []item
	defer a.held.Store(nil)
	for {
		select {
		case <-ctx.Done():
			return nil
		case job := <-h.jobs:
			failed, fatalErr, err := a.applyUntil(job, q)
			left = append(left, failed...)
			job.done <- err
			if fatalErr != nil {
				return fatalErr
			}
		case <-h.release:
			if len(left) == 0 {
				return nil
			}
			a.log.Info().Int("items", len(left)).Msg("applying again on the applier's session what the locking session did not commit")
			return a.applyBatch(ctx, conn, left, countChanges(left))
		}
	}
}

// applyUntil takes items off the queue and applies them on the job's session in batches until the
// job's sentinel is published. It returns the items of a batch that did not commit there (to apply
// again), a fatal error that must stop Run, and the job's error.
func (a *Applier) applyUntil(job applyJob, q <-chan item) (failed []item, fatalErr, err error) {
	if a.displaced.count > 0 {
		return nil, nil, fmt.Errorf("%w: %d rows are displaced", errClashUnderLock, a.displaced.count)
	}
	ctx := job.ctx
	applied := 0
	for {
		batch, reached, err := a.takeUntil(ctx, q, job.sentinel)
		if err != nil {
			return batch, nil, err
		}
		n := countChanges(batch)
		if n > 0 {
			if err := a.commitOn(ctx, job.conn, batch); err != nil {
				return batch, nil, a.ghostGoneLate(err)
			}
			a.recordApplied(batch) // track.go
			a.backlog.Add(int64(-n))
			a.countApplied(n)
			applied += n
		}
		if err := a.publish(batch); err != nil {
			return nil, err, err
		}
		if reached {
			a.log.Info().Int("changes", applied).Msg("binlog tail applied on the cut-over's locking session")
			return nil, nil, nil
		}
	}
}

// takeUntil takes the next batch off the queue: at most DMLBatchSize changes, ending at the
// sentinel (reached) or when the queue is empty after at least one item. It waits for a first item.
func (a *Applier) takeUntil(ctx context.Context, q <-chan item, sentinel string) (batch []item, reached bool, err error) {
	size := a.DMLBatchSize()
	n := 0
	for n < size && len(batch) < maxBatchItems {
		var it item
		if len(batch) == 0 {
			select {
			case it = <-q:
			case <-ctx.Done():
				return batch, false, fmt.Errorf("sentinel %s not applied on the locking session: %w", sentinel, ctx.Err())
			}
		} else {
			select {
			case it = <-q:
			default:
				return batch, false, nil
			}
		}
		batch = append(batch, it)
		if it.kind == itemChange {
			n++
		}
		if it.kind == itemFatal || it.kind == itemSentinel && it.value == sentinel {
			return batch, it.kind == itemSentinel, nil
		}
	}
	return batch, false, nil
}

// commitOn writes the batch's changes on the locking session and commits them there. On an error
// it rolls back (the table locks stay: autocommit is off, no transaction was started).
func (a *Applier) commitOn(ctx context.Context, conn *sql.Conn, batch []item) error {
	w := &writer{p: a.plan, tx: conn, d: a.displaced, noDisplace: true}
	w.reset()
	err := func() error {
		for _, it := range batch {
			if it.kind == itemChange {
				if err := w.add(ctx, it.ch); err != nil {
					return err
				}
			}
		}
		if err := w.flush(ctx); err != nil {
			return err
		}
		if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
			return fmt.Errorf("commit applied changes to %s on the locking session: %w", a.plan.ghostTable, err)
		}
		return nil
	}()
	if err != nil {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	}
	return err
}
