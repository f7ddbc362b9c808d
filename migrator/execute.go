package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
	"github.com/go-ghostlite/go-ghostlite/preflight"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// newRun is the run of the prepared session s, its phases announced by m's tracker.
func newRun(m *Migrator, s *session) *run {
	r := &run{m: m, s: s, kind: s.kind, phases: m.phases, started: time.Now()}
	r.rowsEstimate.Store(s.plan.EstimatedRows)
	return r
}

// execute runs a prepared migration, phase by phase: the same phases for every kind of run
// (kind.go), which decides what each does. What follows its end is the run's after.
// On failure before the swap the kind's helper tables are dropped (after) and the original is
// left as it was; the cut-over itself guarantees the original is under its name when it fails.
func (r *run) execute(ctx context.Context) (err error) {
	defer func() { err = r.end(err) }()

	t := r.kind.traits()
	if err := r.start(ctx); err != nil {
		return err
	}
	if err := r.do(ctx, t.copyPhase, func(ctx context.Context) error { return r.kind.copyRows(ctx, r) }); err != nil {
		return err
	}
	if err := r.do(ctx, status.PhaseNone, r.postponeCutOver); err != nil { // enters PhasePostponed while the flag file exists
		return err
	}
	if err := r.do(ctx, status.PhaseNone, r.catchUp); err != nil {
		return err
	}
	if r.m.cfg.Checksum && t.checksum { // after the postponed wait: it proves the data as it is right before the swap
		if err := r.do(ctx, status.PhaseChecksum, r.checksum); err != nil {
			return err
		}
	}
	if err := r.do(ctx, status.PhaseCutOver, r.cutOver); err != nil {
		return err
	}
	r.finish(ctx)
	return nil
}

func columnMap(cols []plan.ColumnPair) map[string]string {
	out := make(map[string]string, len(cols))
	for _, c := range cols {
		out[c.Original] = c.Ghost
	}
	return out
}

// finish stops the background goroutines, then drops the changelog and, with --ok-to-drop-table,
// the old table, each only while this run holds its lock and the table is the one it created (or
// migrated). The migration has already succeeded: failures here are reported, not fatal.
func (r *run) finish(ctx context.Context) {
	_ = r.bg.stop()
	m, s := r.m, r.s
	p, t := s.plan, r.kind.traits()
	drop := []string{p.ChangelogTable}
	if t.checkpointTable && !t.keepsCheckpoint {
		drop = append(drop, p.CheckpointTable)
	}
	switch {
	case m.cfg.OkToDropTable:
		drop = append(drop, p.OldTable)
	case !m.cfg.TestOnReplica: // swapped back there: no old table
		// gh-ost's words, then the statement, which runbooks copy.
		m.log.Info().Msg("Am not dropping old table because I want this operation to be as live as possible. Drop it when you no longer need it (or pass --ok-to-drop-table next time):")
		m.log.Info().Msgf("-- drop table %s", table.Qualify(p.Original.Schema, p.OldTable))
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

// cleanupAfterFailure drops the helper tables the run's kind names (failureDrops), but only while
// the original is still in place under its name (the cut-over restores it on failure; if it is not
// there we touch nothing), this run still holds its lock, and each table is the one this run
// created (or adopted).
//
//nolint:contextcheck // its own context: it runs after the run's context may be cancelled (a signal)
func (r *run) cleanupAfterFailure(helpers []string) {
	m, s := r.m, r.s
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
	for _, name := range helpers {
		if !s.owned.Has(name) {
			continue // not created (nor adopted) by this run: not ours to drop
		}
		if err := s.dropOwned(ctx, name); err != nil {
			m.log.Warn().Err(err).Str("table", name).Msg("could not drop helper table after failure; drop it by hand")
		}
	}
}

// startPosition records the binlog position a fresh run's applier starts from, before the first
// row is copied. What happened before it is not in the stream, so the original and the prepared
// XA transactions are checked again right after it (startChecks).
func (r *run) startPosition(ctx context.Context) (binlogapply.Position, error) {
	s := r.s
	if hook := r.m.seams.beforeStream; hook != nil {
		if err := hook(ctx); err != nil {
			return binlogapply.Position{}, err
		}
	}
	pos, err := binlogapply.CurrentPosition(ctx, s.inspected, s.plan.Flavor)
	if err != nil {
		return binlogapply.Position{}, fmt.Errorf("read binlog position: %w", err)
	}
	return pos, r.startChecks(ctx)
}

// startChecks checks, once the stream's start is fixed, what the stream does not show: the
// original and the prepared XA transactions (preflight/startcheck.go).
func (r *run) startChecks(ctx context.Context) error {
	return originalAltered(preflight.Run(ctx, r.s.pre, preflight.StreamStarted))
}

// newApplier opens the applier's pool and sets up the binlog applier from pos.
func (r *run) newApplier(ctx context.Context, pos binlogapply.Position) (*binlogapply.Applier, *sql.DB, error) {
	// The applier sends each batch in one round trip: its pool accepts several statements at once.
	m, s := r.m, r.s
	p := s.plan
	ac := p.Primary
	ac.MultiStatements = true
	applierDB, err := dbconn.Open(ctx, ac, p.Original.Schema) // a multi-table DELETE needs a default schema
	if err != nil {
		return nil, nil, fmt.Errorf("connect binlog applier: %w", err)
	}
	applier, err := binlogapply.New(binlogapply.Config{
		Source:          p.Inspected,
		Flavor:          p.Flavor,
		ServerID:        m.cfg.ReplicaServerID,
		UseGTID:         m.cfg.UseGTID,
		Start:           pos,
		Target:          applierDB,
		OneTrip:         true,
		Schema:          p.Original.Schema,
		Original:        p.Original,
		Ghost:           p.Ghost,
		ColumnMap:       columnMap(p.Columns),
		Fills:           p.Fills,
		TimeZone:        p.TimeZone,
		PadChar:         p.PadChar,
		NoZeroDate:      p.Primary.NoZeroDate,
		NoZeroInDate:    p.Primary.NoZeroInDate,
		SharedKey:       p.GhostKeyOriginalColumns(),
		KeyByBytes:      p.GhostKeyByBytes(),
		Changelog:       p.ChangelogTable,
		Checkpoint:      checkpointWatched(s),
		OwnTriggers:     ownTriggerNames(s.plan.Triggers),
		OnRebuilt:       s.rebuilt.mark, // tables.go
		IndirectWriters: indirectWriters(p.IndirectWriters),
		DMLBatchSize:    int(m.levers.dmlBatchSize.Load()),
		// --binlogsyncer-max-reconnect-attempts (0: the applier's default)
		ReconnectAttempts: m.cfg.BinlogReconnectAttempts,
		Logger:            m.cfg.Logger,
		RenamesAtStart:    r.kind.traits().renamesAtStart, // a revert streams from the cut-over's lock (revert.go)
	})
	if err != nil {
		applierDB.Close()
		return nil, nil, fmt.Errorf("set up binlog applier: %w", err)
	}
	return applier, applierDB, nil
}

// checkpointWatched is the checkpoint table the applier watches, "" when the run writes none.
func checkpointWatched(s *session) string {
	if s.kind.traits().checkpointTable {
		return s.plan.CheckpointTable
	}
	return ""
}

func ownTriggerNames(defs []plan.Trigger) []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.NewName
	}
	return names
}

// indirectWriters hands the plan's views and triggers that write the original to the applier.
func indirectWriters(ws []plan.IndirectWriter) []binlogapply.IndirectWriter {
	out := make([]binlogapply.IndirectWriter, len(ws))
	for i, w := range ws {
		out[i] = binlogapply.IndirectWriter{Schema: w.Schema, Name: w.Name, Why: w.Why}
	}
	return out
}
