package migrator

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/observe"
)

// A set is several tables of one schema migrated together (--statement with several ALTERs).
// Each table is a member: a Migrator of its own, with its ghost, changelog, checkpoint, binlog
// stream, applier, copy, checksum and checks, exactly as when it runs alone. What they share is
// the cut-over: a member that reaches it joins the set's one cut-over (jointCutOver) and waits;
// the last to join runs the cut-over of every table (cutover.Config.Also: one lock, one rename of
// each kind, one proof per table), and every member hears its result. A member that fails before
// the cut-over ends the others (they clean up as a failed run does); once the cut-over of the set
// has begun, no member leaves before it ends. No member goes past its checks (observe.StepValidated:
// stream, copy, changelog and checkpoint writes come after) before every member passed them
// (setBarrier), so a set refused for one table (a --resume with another ALTER) changes no table;
// a member failing then does not cancel the others' checks (a check cut short may leave its
// scratch table, the --resume's _<t>_ghr): they end them and stop at the barrier.

// Set runs the migrations of several tables, cut over together.
type Set struct {
	members   []*Migrator
	joint     *jointCutOver
	validated *setBarrier
	log       zerolog.Logger
}

// NewSet checks each configuration (New) and that the cut-over algorithm can swap them together
// (cutover.RefuseSet); cfgs are config.Config.PerTable's, one per table.
func NewSet(cfgs []config.Config) (*Set, error) {
	if len(cfgs) < 2 {
		return nil, fmt.Errorf("%w: a set needs two tables or more (got %d)", config.ErrUsage, len(cfgs))
	}
	if err := cutover.RefuseSet(cfgs[0].CutOver, len(cfgs)); err != nil {
		return nil, fmt.Errorf("%w: %v", config.ErrUsage, err)
	}
	j := &jointCutOver{algorithm: cfgs[0].CutOver, arrivals: make([]*arrival, len(cfgs)),
		done: make(chan struct{}), gone: make(chan struct{})}
	s := &Set{validated: newSetBarrier(len(cfgs)), log: cfgs[0].Logger.With().Str("component", "migrator").Logger()}
	var names []string
	for _, cfg := range cfgs {
		names = append(names, cfg.Table)
	}
	for i, cfg := range cfgs {
		cfg.SetTables = names
		cfg.Logger = cfg.Logger.With().Str("table", cfg.Table).Logger()
		// One binlog stream per table: a server serves one reader per server id. The command line
		// gives every table --replica-server-id N: the tables take N, N+1, ...
		if sameServerIDs(cfgs) {
			cfg.ReplicaServerID = cfgs[0].ReplicaServerID + uint32(i)
		}
		m, err := New(cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.Table, err)
		}
		m.joint, m.jointIndex = j, i
		m.GateStep(s.validated.gate(i))
		s.members = append(s.members, m)
	}
	s.joint = j
	return s, nil
}

// sameServerIDs says whether every configuration has the same --replica-server-id.
func sameServerIDs(cfgs []config.Config) bool {
	for _, c := range cfgs {
		if c.ReplicaServerID != cfgs[0].ReplicaServerID {
			return false
		}
	}
	return true
}

// Members are the set's migrations, in the order of the statements.
func (s *Set) Members() []*Migrator { return s.members }

// Run runs every member at once and returns nil when all succeeded. The first member to fail
// cancels the others; the error names each table that failed.
func (s *Set) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(s.members))
	var wg sync.WaitGroup
	for i, m := range s.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch errs[i] = m.Run(ctx); {
			case errs[i] == nil:
				s.validated.arrive(i) // a member ended without passing it (--recover-cut-over) holds no one
			case !s.validated.fail(): // the others are past their checks
				cancel()
			}
			s.joint.leave() // no-op once the cut-over began: a member done without it ends the set's

		}()
	}
	wg.Wait()
	if err := setError(s.members, errs, s.joint.began()); err != nil {
		return err
	}
	s.logRevertHint()
	return nil
}

// logRevertHint says, after a set that kept its checkpoints, how to revert it: each member's
// last line names its own table alone, and a --revert of one table of a set would swap it back
// without the others.
func (s *Set) logRevertHint() {
	var tables, olds, checkpoints []string
	for _, m := range s.members {
		if !newKind(m.cfg).traits().keepsCheckpoint {
			return
		}
		st := m.Status()
		tables, olds = append(tables, m.cfg.Table), append(olds, st.OldTable)
		checkpoints = append(checkpoints, table.CheckpointName(m.cfg.Table))
	}
	done := "Done migrating"
	if s.members[0].cfg.Revert {
		done = "Done reverting"
	}
	s.log.Info().Msgf("%s the set %s; to revert it together: the same --database and --statement with --revert --old-table=%s --execute (checkpoints %s kept)",
		done, strings.Join(tables, ", "), strings.Join(olds, ","), strings.Join(checkpoints, ", "))
}

// setError is nil when every member succeeded, else one line: the first failure that is not
// only the cancellation caused by another, then the tables that stopped because of it. It says
// "nothing swapped" only while the set's cut-over had not begun (cutOverBegan false): once it
// began, the cut-over's own lines say where each table stands.
func setError(members []*Migrator, errs []error, cutOverBegan bool) error {
	var first error
	var firstTable string
	var stopped []string
	for i, err := range errs {
		switch {
		case err == nil:
		case first == nil && !errors.Is(err, context.Canceled) && !errors.Is(err, errSetLeft):
			first, firstTable = err, members[i].cfg.Table
		default:
			stopped = append(stopped, members[i].cfg.Table)
		}
	}
	if first == nil && len(stopped) == 0 {
		return nil
	}
	if first == nil { // only cancellations: the caller's context ended
		for _, err := range errs {
			if err != nil {
				return fmt.Errorf("tables %s: %w", strings.Join(stopped, ", "), err)
			}
		}
	}
	if len(stopped) == 0 {
		return fmt.Errorf("table %s: %w", firstTable, first)
	}
	if cutOverBegan {
		return fmt.Errorf("table %s: %w (the migration of %s stopped with it, in the set's cut-over: its lines above say where each table stands)", firstTable, first, strings.Join(stopped, ", "))
	}
	return fmt.Errorf("table %s: %w (the migration of %s stopped with it, nothing swapped)", firstTable, first, strings.Join(stopped, ", "))
}

// setBarrier holds every member at observe.StepValidated until all have passed their checks, or
// one failed before that (then every member stops there, with errSetLeft).
type setBarrier struct {
	mu      sync.Mutex
	arrived []bool
	missing int
	all     chan struct{} // closed when every member arrived
	broken  chan struct{} // closed when a member failed before
}

func newSetBarrier(n int) *setBarrier {
	return &setBarrier{arrived: make([]bool, n), missing: n, all: make(chan struct{}), broken: make(chan struct{})}
}

// arrive marks member i arrived (once); the last to arrive releases them all, unless one failed.
func (b *setBarrier) arrive(i int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.arrived[i] || b.isBroken() {
		return
	}
	b.arrived[i] = true
	if b.missing--; b.missing == 0 {
		close(b.all)
	}
}

// fail records that a member failed. Before the barrier released the members it breaks it and
// returns true (they stop at it); after, false (they are past their checks: cancel them).
func (b *setBarrier) fail() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.missing == 0 {
		return false
	}
	if !b.isBroken() {
		close(b.broken)
	}
	return true
}

// isBroken says whether a member failed before the release (b.mu held).
func (b *setBarrier) isBroken() bool {
	select {
	case <-b.broken:
		return true
	default:
		return false
	}
}

// gate is member i's step gate: at StepValidated it arrives and waits for the others. When one
// failed before (or its context ends), it stops the member, which abandons its run with nothing
// streamed, copied or written.
func (b *setBarrier) gate(i int) func(context.Context, observe.Step) error {
	return func(ctx context.Context, at observe.Step) error {
		if at != observe.StepValidated {
			return nil
		}
		b.arrive(i)
		select {
		case <-b.all:
			return nil
		case <-b.broken:
			return errSetLeft
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// errSetLeft is the error of a member whose set will never cut over: another member left first.
var errSetLeft = errors.New("another table of the set stopped before the cut-over")

// arrival is what a member brings to the joint cut-over: its cut-over configuration, its
// sentinel, and its catch-up outside the lock.
type arrival struct {
	cc      cutover.Config
	sent    *sentinel
	catchUp func(context.Context) error
}

// jointCutOver is the one cut-over of a set. Members join it (join) as they reach their
// cut-over; the last runs it for all.
type jointCutOver struct {
	algorithm string

	mu       sync.Mutex
	arrivals []*arrival // by member index
	joined   int
	started  bool               // the cut-over of the set began: nobody leaves before it ends
	left     bool               // a member left before it began: it never will
	cancel   context.CancelFunc // ends the running cut-over (a member's run ended meanwhile)
	done     chan struct{}      // closed once err is set
	err      error
	gone     chan struct{} // closed when left is set: the members waiting leave too
}

// began says whether the set's cut-over began (then it may have swapped tables).
func (j *jointCutOver) began() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.started
}

// leave marks the set as never cutting over unless its cut-over began: a member's run ended
// (failed, or ended without a cut-over) before joining or while waiting.
func (j *jointCutOver) leave() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.leaveLocked()
}

// leaveLocked is leave with j.mu held.
func (j *jointCutOver) leaveLocked() {
	if !j.started && !j.left {
		j.left = true
		close(j.gone)
	}
}

// join adds member i's arrival and returns the set's cut-over result: the last member to join
// runs it. A member whose ctx ends before it began leaves (the set never cuts over); once it
// began, the member ends it early (its context is cancelled, the cut-over recovers as from any
// cancellation) and waits for its result, so its tables are never dropped under it.
func (j *jointCutOver) join(ctx context.Context, i int, a *arrival) error {
	j.mu.Lock()
	if j.left {
		j.mu.Unlock()
		return errSetLeft
	}
	j.arrivals[i] = a
	j.joined++
	if j.joined == len(j.arrivals) { // the last: run the set's cut-over
		j.started = true
		jctx, cancel := context.WithCancel(ctx)
		j.cancel = cancel
		j.mu.Unlock()
		j.err = j.run(jctx)
		cancel()
		close(j.done)
		return j.err
	}
	j.mu.Unlock()
	select {
	case <-j.done:
		return j.err
	case <-j.gone:
		return errSetLeft
	case <-ctx.Done():
	}
	j.mu.Lock()
	if !j.started {
		j.leaveLocked()
		j.mu.Unlock()
		return ctx.Err()
	}
	j.cancel()
	j.mu.Unlock()
	<-j.done
	return j.err
}

// run catches every member's applier up outside the lock, then cuts every table over at once.
func (j *jointCutOver) run(ctx context.Context) error {
	if err := eachAtOnce(ctx, j.arrivals, func(ctx context.Context, a *arrival) error { return a.catchUp(ctx) }); err != nil {
		return err
	}
	return cutover.Run(ctx, j.algorithm, j.config(), setSentinel(j.arrivals))
}

// config is the first member's cut-over configuration with the others' tables in Also and every
// member's callbacks run in turn.
func (j *jointCutOver) config() cutover.Config {
	cc := j.arrivals[0].cc
	cc.Also = nil
	var gates []func(context.Context, int) error
	var under, undo []func(context.Context) error
	var after []func(cutover.AttemptOutcome)
	for i, a := range j.arrivals {
		c := a.cc
		if i > 0 {
			cc.Also = append(cc.Also, c.Tables)
		}
		if c.BeforeAttempt != nil {
			gates = append(gates, c.BeforeAttempt)
		}
		if c.UnderLock != nil {
			under = append(under, c.UnderLock)
		}
		if c.UndoUnderLock != nil {
			undo = append(undo, c.UndoUnderLock)
		}
		if c.AfterAttempt != nil {
			after = append(after, c.AfterAttempt)
		}
	}
	cc.BeforeAttempt = func(ctx context.Context, n int) error {
		for _, gate := range gates {
			if err := gate(ctx, n); err != nil {
				return err
			}
		}
		return nil
	}
	cc.UnderLock, cc.UndoUnderLock = inTurn(under), inTurn(undo)
	cc.AfterAttempt = func(o cutover.AttemptOutcome) {
		for _, f := range after {
			f(o)
		}
	}
	return cc
}

// inTurn runs fs one after another, stopping at the first error; nil when fs is empty.
func inTurn(fs []func(context.Context) error) func(context.Context) error {
	if len(fs) == 0 {
		return nil
	}
	return func(ctx context.Context) error {
		for _, f := range fs {
			if err := f(ctx); err != nil {
				return err
			}
		}
		return nil
	}
}

// eachAtOnce runs fn for every arrival at once and returns the first error.
func eachAtOnce(ctx context.Context, arrivals []*arrival, fn func(context.Context, *arrival) error) error {
	errs := make([]error, len(arrivals))
	var wg sync.WaitGroup
	for i, a := range arrivals {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = fn(ctx, a) }()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// setSentinel proves every member's ghost in sync (cutover.LockedSentinel): Await runs each
// member's proof at once; for lock-rename, Hold holds every member's applier and AwaitOn applies
// each member's tail on the locking session in turn.
type setSentinel []*arrival

func (s setSentinel) Await(ctx context.Context) error {
	return eachAtOnce(ctx, s, func(ctx context.Context, a *arrival) error { return a.sent.Await(ctx) })
}

func (s setSentinel) Hold(ctx context.Context) (release func(), err error) {
	var releases []func()
	releaseAll := func() {
		for _, r := range releases {
			r()
		}
	}
	for _, a := range s {
		r, err := a.sent.Hold(ctx)
		if err != nil {
			if r != nil {
				r()
			}
			releaseAll()
			return func() {}, err
		}
		releases = append(releases, r)
	}
	return releaseAll, nil
}

func (s setSentinel) AwaitOn(ctx context.Context, conn *sql.Conn) error {
	for _, a := range s {
		if err := a.sent.AwaitOn(ctx, conn); err != nil {
			return err
		}
	}
	return nil
}
