package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/ddl"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// sentinel implements cutover.Sentinel: it writes a unique token to the changelog and waits until
// the applier has applied every event before it (changelog.Table.AwaitSentinel).
type sentinel struct {
	db      *sql.DB
	plan    *plan.Plan
	applier *binlogapply.Applier
	// mutex checks the run still holds its migration lock (nil: not checked). Await checks it
	// under every cut-over attempt's lock, before any rename: the tables must still be ours.
	mutex func(context.Context) error
	log   zerolog.Logger
}

// Await is the cut-over's proof that the ghost is in sync. It fails, as unsafe so the cut-over
// does not retry, when rows the applier displaced (clashing on a unique key of the ghost) could
// not be put back once everything up to the sentinel was applied: the cut-over calls it while the
// original is locked, so those rows of the original clash for good and the ALTER would drop them.
func (s *sentinel) Await(ctx context.Context) error {
	if s.mutex != nil {
		if err := s.mutex(ctx); err != nil {
			return fmt.Errorf("%w (%w)", err, cutover.ErrUnsafe)
		}
	}
	if err := s.awaitUpToLock(ctx, func() error { return s.awaitApplied(ctx) }); err != nil {
		return err
	}
	if err := s.applier.Displaced().Err(); err != nil {
		return fmt.Errorf("%w (%w)", err, cutover.ErrUnsafe)
	}
	// Under the lock: no id can be handed out by the original any more (ddl/autoinc.go).
	return ddl.CarryAutoIncrement(ctx, s.db, s.plan, s.plan.AlterSetsAutoIncrement)
}

// Hold parks the applier between two of its transactions (cutover.LockedSentinel).
func (s *sentinel) Hold(ctx context.Context) (release func(), err error) { return s.applier.Hold(ctx) }

// AwaitOn is Await for --cut-over=lock-rename: the cut-over's locking session conn holds the
// original and the ghost, so the applier applies the tail up to a new sentinel on conn, and the
// AUTO_INCREMENT counter is carried there too.
func (s *sentinel) AwaitOn(ctx context.Context, conn *sql.Conn) error {
	if s.mutex != nil {
		if err := s.mutex(ctx); err != nil {
			return fmt.Errorf("%w (%w)", err, cutover.ErrUnsafe)
		}
	}
	token, err := changelog.SentinelToken()
	if err != nil {
		return err
	}
	if err := changelogOf(s.plan).WriteSentinel(ctx, s.db, token); err != nil {
		return err
	}
	if err := s.awaitUpToLock(ctx, func() error { return s.applier.ApplyOn(ctx, conn, token) }); err != nil {
		return err
	}
	if err := s.applier.Displaced().Err(); err != nil {
		return fmt.Errorf("%w (%w)", err, cutover.ErrUnsafe)
	}
	return ddl.CarryAutoIncrementOn(ctx, conn, s.plan, s.plan.AlterSetsAutoIncrement)
}

// awaitUpToLock runs apply, the wait for every event written before the cut-over's lock, between
// gh-ost's lines for it, which wrappers watch.
func (s *sentinel) awaitUpToLock(ctx context.Context, apply func() error) error {
	s.log.Info().Msg("Waiting for events up to lock")
	start := time.Now()
	if err := apply(); err != nil {
		return err
	}
	s.log.Info().Msgf("Done waiting for events up to lock; duration=%s", logfmt.Duration(time.Since(start)))
	return nil
}

// awaitApplied writes a sentinel and waits until the applier has applied every event before it.
func (s *sentinel) awaitApplied(ctx context.Context) error {
	return changelogOf(s.plan).AwaitSentinel(ctx, s.db, s.applier.ExpectSentinel)
}

// awaitWithin is awaitApplied bounded by d. It ignores displaced rows: the copy uses it to let the
// applier catch up, when rows copied "from the future" may still clash.
func (s *sentinel) awaitWithin(ctx context.Context, d time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return s.awaitApplied(ctx)
}

// displacedPatience is how long, once the copy is done, a row displaced by the applier may stay
// displaced before the migration fails instead of cutting over.
var displacedPatience = 10 * time.Second

// displacedPoll is the pause between sentinels while displaced rows are waited for.
const displacedPoll = 200 * time.Millisecond

// awaitDisplacedBack runs once the copy is done and the applier has caught up: it writes sentinels
// (each makes the applier repair displaced rows) until no row is displaced. A row displaced since
// before the wait and still displaced after patience could not be put back by any repair: the
// original has held a row clashing with it on a unique key of the ghost all that time, and the
// migration fails here rather than in cut-over attempts. Rows displaced during the wait (a busy
// table moving unique values around) are left to Await's final check under the cut-over's lock.
func (s *sentinel) awaitDisplacedBack(ctx context.Context, patience time.Duration) error {
	start := time.Now()
	for {
		d := s.applier.Displaced()
		if d.Count == 0 {
			return nil
		}
		if time.Since(start) >= patience {
			if d.Oldest.Before(start) {
				return d.Err()
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(displacedPoll):
		}
		if err := s.awaitWithin(ctx, time.Minute); err != nil {
			return fmt.Errorf("wait for the binlog applier to put displaced rows back: %w", err)
		}
	}
}
