package migrator

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// execute runs a prepared migration: changelog, binlog applier, row copy, cut-over, cleanup.
// On failure before the swap the ghost and changelog tables are dropped and the original is left
// as it was; the cut-over itself guarantees the original is under its name when it fails.
func (m *Migrator) execute(ctx context.Context, s *session) (err error) {
	p := s.plan
	started := time.Now()
	if err := m.createChangelog(ctx, s); err != nil {
		return err
	}
	s.own(ctx, p.ChangelogTable, p.ChangelogTable)
	s.own(ctx, p.OldTable, p.Original.Name) // the original, under the name it takes at the swap
	swapped := false
	defer func() {
		if err != nil && !swapped {
			m.cleanupAfterFailure(s)
		}
	}()

	pos, err := m.startPosition(ctx, s)
	if err != nil {
		return err
	}
	applier, applierDB, err := m.newApplier(ctx, p, pos)
	if err != nil {
		return err
	}
	defer applierDB.Close()

	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	applierErr := make(chan error, 2)
	wg.Add(3)
	go func() {
		defer wg.Done()
		if err := m.watchPanicFlag(runCtx); err != nil {
			applierErr <- err
			stop()
		}
	}()
	go func() {
		defer wg.Done()
		if err := applier.Run(runCtx); err != nil {
			applierErr <- fmt.Errorf("binlog applier: %w", err)
			stop()
		}
	}()
	go func() {
		defer wg.Done()
		m.heartbeat(runCtx, s)
	}()
	defer func() {
		stop()
		wg.Wait()
		select {
		case aerr := <-applierErr:
			if err == nil {
				err = aerr
			} else if !errors.Is(err, aerr) {
				err = fmt.Errorf("%w (%v)", err, aerr)
			}
		default:
		}
	}()
	// fail returns the applier's error, when it is why the run context ended.
	fail := func(e error) error {
		select {
		case aerr := <-applierErr:
			return aerr
		default:
			return e
		}
	}

	sent := &sentinel{db: s.primary, plan: p, applier: applier, mutex: s.checkMutex}
	// Prove the stream works before copying anything.
	if err := sent.awaitWithin(runCtx, 30*time.Second); err != nil {
		return fail(fmt.Errorf("binlog stream from %s does not deliver changelog events: %w", p.Inspected.Addr(), err))
	}
	m.writeState(ctx, s, "copy")

	copier := newRowCopier(m.cfg, s, applier, sent, m.log)
	status := m.startStatus(runCtx, copier, applier, started)
	copyErr := copier.run(runCtx)
	status()
	if copyErr != nil {
		return fail(copyErr)
	}
	copyDone := time.Now()

	if err := m.postponeCutOver(runCtx, s); err != nil {
		return fail(err)
	}
	// Drain the backlog outside the lock, so the locked phase has little left to apply.
	if err := sent.awaitWithin(runCtx, 10*time.Minute); err != nil {
		return fail(fmt.Errorf("wait for the binlog applier to catch up: %w", err))
	}
	if err := sent.awaitDisplacedBack(runCtx, displacedPatience); err != nil {
		return fail(err)
	}
	m.writeState(ctx, s, "cut-over")
	m.log.Info().Msg("row copy complete; cutting over")
	applier.BeginCutOver()
	cutStart := time.Now()
	if err := m.beforeCutOver(runCtx, s, sent); err != nil { // replica modes (replica.go)
		return fail(err)
	}
	// The cut-over renames the tables under the helper names: only while they are this run's.
	if err := s.checkMutex(runCtx); err != nil {
		return fmt.Errorf("before the cut-over: %w", err)
	}
	err = cutover.Run(runCtx, m.cfg.CutOver, cutover.Config{
		DB:                 s.primary,
		Tables:             cutover.Tables{Schema: p.Original.Schema, Original: p.Original.Name, Ghost: p.GhostTable, Old: p.OldTable},
		LockTimeout:        m.cfg.CutOverLockTimeout,
		Retries:            m.cfg.DefaultRetries,
		ExponentialBackoff: m.cfg.CutOverExponentialBackoff,
		MaxBackoff:         m.cfg.ExponentialBackoffMaxInterval,
		Hooks:              m.cfg.CutOverHooks,
		Logger:             m.cfg.Logger,
	}, sent)
	err = m.afterCutOver(ctx, s, err) // replica modes (replica.go): --test-on-replica swaps back
	if err != nil {
		return fail(fmt.Errorf("cut-over: %w", err))
	}
	swapped = true
	cutDone := time.Now()
	stop()
	wg.Wait()

	m.finish(ctx, s)
	st := applier.Stats()
	m.log.Info().
		Int64("rows_copied", copier.copied()).
		Int64("events_applied", st.EventsApplied).
		Dur("copy", copyDone.Sub(started)).
		Dur("cut_over", cutDone.Sub(cutStart)).
		Dur("total", time.Since(started)).
		Str("old_table", p.OldTable).
		Bool("old_table_dropped", m.cfg.OkToDropTable).
		Msgf("migration of %s.%s complete", p.Original.Schema, p.Original.Name)
	return nil
}

func columnMap(cols []ColumnPair) map[string]string {
	out := make(map[string]string, len(cols))
	for _, c := range cols {
		out[c.Original] = c.Ghost
	}
	return out
}

func (m *Migrator) createChangelog(ctx context.Context, s *session) error {
	p := s.plan
	if _, err := s.primary.ExecContext(ctx, table.ChangelogDDL(p.Original.Schema, p.ChangelogTable)); err != nil {
		return fmt.Errorf("create changelog table %s: %w", p.ChangelogTable, err)
	}
	return nil
}

// writeState records the migration's state in the changelog (best effort: it is informative).
func (m *Migrator) writeState(ctx context.Context, s *session, state string) {
	p := s.plan
	if _, err := s.primary.ExecContext(ctx, table.ChangelogUpsert(p.Original.Schema, p.ChangelogTable), table.HintState, state); err != nil {
		m.log.Warn().Err(err).Str("state", state).Msg("could not record state in the changelog")
	}
}

// heartbeat writes the changelog heartbeat every HeartbeatInterval until ctx ends.
func (m *Migrator) heartbeat(ctx context.Context, s *session) {
	p := s.plan
	q := table.ChangelogUpsert(p.Original.Schema, p.ChangelogTable)
	t := time.NewTicker(m.cfg.HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if _, err := s.primary.ExecContext(ctx, q, table.HintHeartbeat, now.UTC().Format(time.RFC3339Nano)); err != nil && ctx.Err() == nil {
				m.log.Warn().Err(err).Msg("heartbeat write failed")
			}
		}
	}
}

// finish drops the changelog and, with --ok-to-drop-table, the old table, each only while this
// run holds its lock and the table is the one it created (or migrated). The migration has already
// succeeded: failures here are reported, not fatal.
func (m *Migrator) finish(ctx context.Context, s *session) {
	p := s.plan
	drop := []string{p.ChangelogTable}
	if m.cfg.OkToDropTable {
		drop = append(drop, p.OldTable)
	}
	if err := s.checkMutex(ctx); err != nil {
		m.log.Error().Err(err).Strs("tables", drop).Msg("the migration is complete, but its lock was lost: not dropping its helper tables; drop them by hand once no other migration of the table runs")
		return
	}
	for _, name := range drop {
		if err := s.dropOwned(ctx, name); err != nil {
			m.log.Warn().Err(err).Str("table", name).Msg("could not drop table after the migration; drop it by hand")
		}
	}
}

// cleanupAfterFailure drops the changelog and the ghost, but only while the original is still in
// place under its name (the cut-over restores it on failure; if it is not there we touch nothing),
// this run still holds its lock, and each table is the one this run created.
func (m *Migrator) cleanupAfterFailure(s *session) {
	p := s.plan
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.checkMutex(ctx); err != nil {
		m.log.Error().Err(err).Msgf("leaving %s and %s: they may belong to another migration now", p.GhostTable, p.ChangelogTable)
		return
	}
	if _, err := table.Inspect(ctx, s.primary, p.Original.Schema, p.Original.Name); err != nil {
		m.log.Error().Err(err).Msgf("the original table %s is not in place; leaving %s and %s for inspection", p.Original.Name, p.GhostTable, p.ChangelogTable)
		return
	}
	for _, name := range []string{p.GhostTable, p.ChangelogTable} {
		if err := s.dropOwned(ctx, name); err != nil {
			m.log.Warn().Err(err).Str("table", name).Msg("could not drop helper table after failure; drop it by hand")
		}
	}
}

// sentinel implements cutover.Sentinel: it writes a unique token to the changelog and waits until
// the applier has applied every event before it.
type sentinel struct {
	db      *sql.DB
	plan    *Plan
	applier *binlogapply.Applier
	// mutex checks the run still holds its migration lock (nil: not checked). Await checks it
	// under every cut-over attempt's lock, before any rename: the tables must still be ours.
	mutex func(context.Context) error
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
	if err := s.awaitApplied(ctx); err != nil {
		return err
	}
	if err := s.applier.Displaced().Err(); err != nil {
		return fmt.Errorf("%w (%w)", err, cutover.ErrUnsafe)
	}
	// Under the lock: no id can be handed out by the original any more (autoinc.go).
	return carryAutoIncrement(ctx, s.db, s.plan, s.plan.AlterSetsAutoIncrement)
}

// awaitApplied writes a sentinel and waits until the applier has applied every event before it.
func (s *sentinel) awaitApplied(ctx context.Context) error {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	token := hex.EncodeToString(b[:])
	seen := s.applier.ExpectSentinel(token)
	if _, err := s.db.ExecContext(ctx, table.ChangelogUpsert(s.plan.Original.Schema, s.plan.ChangelogTable), table.HintSentinel, token); err != nil {
		return fmt.Errorf("write sentinel: %w", err)
	}
	select {
	case <-seen:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("sentinel %s not applied: %w", token, ctx.Err())
	}
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

// startPosition records the binlog position the applier starts from, before the first row is
// copied. What happened before it is not in the stream, so the original and the prepared XA
// transactions are checked again right after it (startcheck.go).
func (m *Migrator) startPosition(ctx context.Context, s *session) (binlogapply.Position, error) {
	if hook := m.cfg.copyTest.beforeStream; hook != nil {
		if err := hook(ctx); err != nil {
			return binlogapply.Position{}, err
		}
	}
	pos, err := binlogapply.CurrentPosition(ctx, s.inspected, s.plan.Flavor)
	if err != nil {
		return binlogapply.Position{}, fmt.Errorf("read binlog position: %w", err)
	}
	if err := m.checkOriginalUnchanged(ctx, s); err != nil {
		return binlogapply.Position{}, err
	}
	if err := checkNoPreparedXAAnywhere(ctx, s); err != nil {
		return binlogapply.Position{}, err
	}
	return pos, nil
}

// newApplier opens the applier's pool and sets up the binlog applier from pos.
func (m *Migrator) newApplier(ctx context.Context, p *Plan, pos binlogapply.Position) (*binlogapply.Applier, *sql.DB, error) {
	// The applier sends each batch in one round trip: its pool accepts several statements at once.
	ac := p.Primary
	ac.MultiStatements = true
	applierDB, err := dbconn.Open(ctx, ac, p.Original.Schema) // a multi-table DELETE needs a default schema
	if err != nil {
		return nil, nil, fmt.Errorf("connect binlog applier: %w", err)
	}
	applier, err := binlogapply.New(binlogapply.Config{
		Source:       p.Inspected,
		Flavor:       p.Flavor,
		ServerID:     m.cfg.ReplicaServerID,
		UseGTID:      m.cfg.UseGTID,
		Start:        pos,
		Target:       applierDB,
		OneTrip:      true,
		Schema:       p.Original.Schema,
		Original:     p.Original,
		Ghost:        p.Ghost,
		ColumnMap:    columnMap(p.Columns),
		TimeZone:     p.TimeZone,
		PadChar:      p.PadChar,
		SharedKey:    p.GhostKeyOriginalColumns(),
		Changelog:    p.ChangelogTable,
		DMLBatchSize: m.cfg.DMLBatchSize,
		Logger:       m.cfg.Logger,
	})
	if err != nil {
		applierDB.Close()
		return nil, nil, fmt.Errorf("set up binlog applier: %w", err)
	}
	return applier, applierDB, nil
}
