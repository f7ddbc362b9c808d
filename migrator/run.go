package migrator

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/copier"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/ddl"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/preflight"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// run is one executing migration: what preparation produced (the session: plan, connections,
// lock), the binlog applier and its pool, the row copier, the sentinel, the phase tracker, and
// the goroutines that live beside the phases under one error group. Every step of the execution
// is a method of run (here and in the file of its topic); m is read for the configuration, the
// observers and the levers.
type run struct {
	m      *Migrator
	s      *session
	kind   runKind // fresh, resume or revert (kind.go)
	phases *phases

	bg        *background // binlog applier, heartbeat, panic-flag watch, throttle, checkpoints, status, count
	applier   *binlogapply.Applier
	applierDB *sql.DB
	copier    atomic.Pointer[copier.Copier] // set when the copy starts; read by Status
	sent      *sentinel

	rowsEstimate       atomic.Int64 // the plan's estimate, then the concurrent exact count (ddl/rowcount.go)
	copyStart, copyEnd atomic.Int64 // UnixNano; 0 until the copy starts, ends
	rate               status.Rate  // the copy's recent speed (status.go)

	checkpoints *checkpoint.Writer // set once the stream is positioned (checkpoint.go)
	// unchecked is what the checksum did not compare ("column: why", or the whole table when it
	// could not run): the summary line names it (checksum.go).
	unchecked []string
	swapped   bool // the cut-over succeeded: nothing is cleaned up after a later failure

	started, cutStart, cutDone time.Time
}

// do enters phase p (status.PhaseNone: stays in the current phase) and runs fn under the background
// group's context. When fn fails because a background goroutine failed, that failure is returned.
func (r *run) do(ctx context.Context, p status.Phase, fn func(context.Context) error) error {
	if p != status.PhaseNone {
		r.phases.Enter(ctx, p)
	}
	if err := fn(r.bg.ctx); err != nil { //nolint:contextcheck // the group's context derives from the run's (start)
		if bgErr := r.bg.Err(); bgErr != nil {
			return bgErr
		}
		return err
	}
	return nil
}

// start creates the changelog, positions the binlog stream, starts the applier, the heartbeat and
// the panic-flag watch, and proves the stream delivers before anything is copied.
func (r *run) start(ctx context.Context) error {
	m, s, p := r.m, r.s, r.s.plan
	if err := r.kind.helpers(ctx, r); err != nil {
		return err
	}
	r.phases.recordWith(func(ctx context.Context, ph status.Phase) { r.writeState(ctx, ph.String()) })
	s.own(ctx, p.OldTable, p.Original.Name) // the original, under the name it takes at the swap

	pos, err := r.kind.streamStart(ctx, r)
	if err != nil {
		return err
	}
	if r.applier, r.applierDB, err = r.newApplier(ctx, pos); err != nil {
		return err
	}
	m.cur.Store(r) // Status and the levers see the applier from here on
	r.bg = newBackground(ctx)
	r.bg.Go(m.watchPanicFlag)
	r.bg.Go(func(ctx context.Context) error {
		if err := r.applier.Run(ctx); err != nil {
			return r.kind.applyFailed(p, err)
		}
		return nil
	})
	// A first heartbeat before the lag is first read, so the copy does not start throttled by
	// "no heartbeat yet".
	if err := r.writeHeartbeat(ctx, time.Now()); err != nil {
		return err
	}
	r.bg.Go(r.heartbeat)
	r.startThrottleReadings() // throttle.go
	// The checkpoint writer (checkpoint.go), also used by the cut-over for its checkpoint.
	r.checkpoints = r.newCheckpointWriter()
	if r.kind.traits().writesCheckpoints {
		r.bg.Go(r.checkpoints.Run)
	}

	r.sent = &sentinel{db: s.primary, plan: p, applier: r.applier, mutex: s.checkMutex, log: m.log}
	return r.do(ctx, status.PhaseNone, func(ctx context.Context) error {
		m.log.Info().Msgf("Waiting for ghost table to be migrated. Current lag is %s", m.inspectedLag()) // gh-ost's words
		if err := r.sent.awaitWithin(ctx, 30*time.Second); err != nil {
			return fmt.Errorf("binlog stream from %s does not deliver changelog events: %w", p.Inspected.Addr(), err)
		}
		return nil
	})
}

// copyRows copies every row of the original into the ghost, logging progress meanwhile.
func (r *run) copyRows(ctx context.Context) error {
	c, err := r.newCopier(ctx)
	if err != nil {
		return err
	}
	r.m.emit(observe.EventBeforeRowCopy, observe.Event{}) // before the copy's clock starts: its time is still 0
	if err := r.m.pass(ctx, observe.StepBeforeRowCopy); err != nil {
		return err
	}
	began := time.Now()
	r.copyStart.Store(began.UnixNano())
	r.rate.Observe(began, c.Copied()) // the first status has a rate: rows since the start
	r.copier.Store(c)
	r.bg.Go(r.m.logStatus) // until the run ends (end)
	stopCount := func() {}
	if r.m.cfg.CountsConcurrently() { // cancelled when the copy ends
		counted := func(n int64) { r.rowsEstimate.Store(n); r.m.emit(observe.EventRowCountComplete, observe.Event{}) }
		count, kill := ddl.CountRowsBeside(r.s.inspected, r.s.plan.Original.Schema, r.s.plan.Original.Name, r.m.log, counted)
		stopCount = r.bg.goUntil(ctx, count, kill)
	}
	err = c.Run(ctx)
	end := time.Now()
	r.copyEnd.Store(end.UnixNano())
	stopCount()
	if err != nil {
		return err
	}
	// gh-ost's words, which wrappers wait for: the copy is done (the postponed wait, the catch-up
	// and the cut-over come after).
	r.m.log.Info().Int64("rows_copied", c.Copied()).Str("copy", logfmt.Duration(end.Sub(time.Unix(0, r.copyStart.Load())))).Msg("Row copy complete")
	r.m.emit(observe.EventRowCopyComplete, observe.Event{At: end})
	return r.m.pass(ctx, observe.StepRowCopyComplete)
}

// copyTime is how long the copy has run at now, or ran once it ended.
func (r *run) copyTime(now time.Time) time.Duration {
	start := r.copyStart.Load()
	if start == 0 {
		return 0
	}
	if end := r.copyEnd.Load(); end != 0 {
		return time.Duration(end - start)
	}
	return now.Sub(time.Unix(0, start))
}

// postponeCutOver is status.PhasePostponed while the cut-over is postponed (flagfiles.go).
func (r *run) postponeCutOver(ctx context.Context) error {
	if !r.m.postponing() {
		return nil
	}
	r.phases.Enter(ctx, status.PhasePostponed)
	return r.m.awaitUnpostponed(ctx)
}

// catchUp drains the backlog outside the lock, so the locked phase has little left to apply, and
// waits for rows the applier displaced to be put back.
func (r *run) catchUp(ctx context.Context) error {
	if err := r.sent.awaitWithin(ctx, 10*time.Minute); err != nil {
		return fmt.Errorf("wait for the binlog applier to catch up: %w", err)
	}
	return r.sent.awaitDisplacedBack(ctx, displacedPatience)
}

// cutOver swaps the ghost in place of the original (replica modes act around it: replica.go).
func (r *run) cutOver(ctx context.Context) error {
	m, s, p := r.m, r.s, r.s.plan
	t := r.kind.traits()
	m.log.Info().Msg(t.cutOverMessage)
	if t.analyzeGhost {
		if err := ddl.AnalyzeGhost(ctx, s.pre); err != nil {
			return err
		}
	}
	if err := m.pass(ctx, observe.StepBeforeCutOver); err != nil { // once, before the attempts and any lock
		return err
	}
	r.applier.BeginCutOver()
	r.cutStart = time.Now()
	if err := r.beforeCutOver(ctx); err != nil {
		return err
	}
	// The cut-over renames the tables under the helper names: only while they are this run's.
	if err := s.checkMutex(ctx); err != nil {
		return fmt.Errorf("before the cut-over: %w", err)
	}
	cc := cutover.Config{
		DB:                 s.primary,
		Tables:             cutover.Tables{Schema: p.Original.Schema, Original: p.Original.Name, Ghost: p.GhostTable, Old: p.OldTable},
		LockTimeout:        m.cfg.CutOverLockTimeout,
		Retries:            m.cfg.DefaultRetries,
		ExponentialBackoff: m.cfg.CutOverExponentialBackoff,
		MaxBackoff:         m.cfg.ExponentialBackoffMaxInterval,
		Seams:              m.seams.cutOver,
		BeforeAttempt:      m.beforeAttempt,
		AfterAttempt:       m.afterAttempt,
		Logger:             m.cfg.Logger,
	}
	cc.UnderLock, cc.UndoUnderLock = s.underCutOverLock()
	cc.UnderLock = r.withCutOverCheckpoint(cc.UnderLock) // revert.go
	err := r.runCutOver(ctx, cc)
	if err == nil && !m.cfg.TestOnReplica {
		if err = r.confirmSwapRead(ctx); err != nil {
			r.swapped = true // the tables are swapped: nothing of the failure cleanup applies
			return fmt.Errorf("after the cut-over: %w", err)
		}
	}
	// --test-on-replica swaps back (replica.go).
	if err := r.afterCutOver(ctx, err); err != nil {
		return fmt.Errorf("cut-over: %w", err)
	}
	r.swapped = true
	r.cutDone = time.Now()
	return nil
}

// runCutOver runs the cut-over of this table, or joins the one of its set (set.go).
func (r *run) runCutOver(ctx context.Context, cc cutover.Config) error {
	m := r.m
	if m.joint == nil {
		return cutover.Run(ctx, m.cfg.CutOver, cc, r.sent)
	}
	m.log.Info().Msg("ready for the cut-over: waiting for every table of the set to be ready")
	return m.joint.join(ctx, m.jointIndex, &arrival{cc: cc, sent: r.sent, catchUp: r.catchUp})
}

// swapReadPatience bounds how long a completed swap waits for the applier to read its RENAME.
var swapReadPatience = 30 * time.Second

// confirmSwapRead waits until the binlog applier has read the RENAME that put the ghost in the
// original's place. A change of the original written after the cut-over's lock was lost (its
// holder died and a write queued on the original was served before the rename) is read before
// that RENAME and stops the applier with binlogapply.ErrLateRows, naming its keys and binlog
// range: the run then fails with that report instead of ending as if nothing were missing.
func (r *run) confirmSwapRead(ctx context.Context) error {
	wctx, cancel := context.WithTimeout(ctx, swapReadPatience)
	defer cancel()
	err := r.applier.AwaitSwapped(wctx)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, binlogapply.ErrStopped):
		if bgErr := r.bg.stop(); bgErr != nil { // the applier's own error (its goroutine has returned)
			return bgErr
		}
		return err
	case ctx.Err() == nil:
		return fmt.Errorf("the swap is complete, but the binlog applier did not read its RENAME within %s: it cannot be proven that no write reached the original after the cut-over's lock; compare %s with %s",
			swapReadPatience, r.s.plan.OldTable, r.s.plan.Original.Name)
	}
	return err
}

// end stops the background goroutines and folds their failure into the run's.
func (r *run) end(err error) error {
	if r.bg != nil {
		bgErr := r.bg.stop()
		switch {
		case bgErr == nil:
		case err == nil:
			err = bgErr
		case !errors.Is(err, bgErr):
			err = fmt.Errorf("%w (%v)", err, bgErr)
		}
	}
	if r.applierDB != nil {
		r.applierDB.Close()
	}
	return err
}

// after is what follows the run's last phase change (Migrator.Run): the summary line after done;
// after failed, unless the tables were swapped, the helper tables the kind drops.
func (r *run) after(err error) {
	if err == nil {
		r.summary()
		return
	}
	if r.swapped {
		return
	}
	if drop := r.kind.failureDrops(r); drop != nil {
		r.cleanupAfterFailure(drop)
	}
}

// summary logs the last line of a run that succeeded.
func (r *run) summary() {
	m, p := r.m, r.s.plan
	st := r.applier.Stats()
	ev := m.log.Info().
		Int64("rows_copied", r.rowsCopied()).
		Int64("events_applied", st.EventsApplied).
		Int64("apply_transactions", st.Transactions).
		Str("copy", logfmt.Duration(time.Unix(0, r.copyEnd.Load()).Sub(r.started))).
		Str("cut_over", logfmt.Duration(r.cutDone.Sub(r.cutStart))).
		Str("total", logfmt.Duration(time.Since(r.started)))
	if m.cfg.TestOnReplica {
		// Swapped back (replica.go): the original has its name again, the migrated copy is the
		// ghost's; no old table exists.
		ev = ev.Str("migrated_copy", p.GhostTable)
	} else {
		ev = ev.Str("old_table", p.OldTable).Bool("old_table_dropped", m.cfg.OkToDropTable)
	}
	ev.Strs("not_checksummed", r.unchecked).
		Msg(r.doneMessage() + r.uncheckedNote()) // revert.go, checksum.go
}

// underCutOverLock is what runs under the cut-over's lock once the ghost is in sync, and its undo:
// the checks before the cut-over (preflight: the ghost still the table this run built, the
// nullable key's proof again, on the ghost, the original being locked; the triggers still the
// original's), then the triggers created on the ghost (ddl/triggers.go). The undo is nil
// without triggers.
func (s *session) underCutOverLock() (do, undo func(context.Context) error) {
	p := s.plan
	schema := p.Original.Schema
	do = func(ctx context.Context) error {
		s.refreshRebuilt(ctx) // tables.go: an OPTIMIZE TABLE of ours is no replacement
		if err := preflight.Run(ctx, s.pre, preflight.BeforeCutOver); err != nil {
			if preflight.IsFinal(err) {
				return fmt.Errorf("%w: %w", cutover.ErrUnsafe, err)
			}
			return err
		}
		if len(s.plan.Triggers) == 0 {
			return nil
		}
		return ddl.CreateTriggers(ctx, s.primary, schema, p.GhostTable, s.plan.Triggers)
	}
	if len(s.plan.Triggers) == 0 {
		return do, nil
	}
	undo = func(ctx context.Context) error {
		return ddl.DropTriggersFrom(ctx, s.primary, schema, p.GhostTable, s.plan.Triggers)
	}
	return do, undo
}
