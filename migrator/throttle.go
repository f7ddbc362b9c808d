package migrator

import (
	"context"
	"database/sql"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/plan"
	"github.com/go-ghostlite/go-ghostlite/throttle"
)

// The migrator's side of the throttle (throttle.Monitor, doc/throttle.md): the Monitor's settings
// from the configuration, its knobs among the levers, and what its loops read during a run: the
// migration's heartbeat in the changelog, or a replica's own lag in the replica modes.

// throttleConfig is the throttle's configuration from cfg's settings, without the run's wiring
// (its logger and backlog).
func throttleConfig(cfg config.Config) throttle.Config {
	return throttle.Config{ThrottleSettings: cfg.ThrottleSettings, HeartbeatInterval: cfg.HeartbeatInterval}
}

// newThrottleMonitor is m's throttle, its knobs registered among l; the copy also waits while
// the applier's backlog is long.
func (m *Migrator) newThrottleMonitor(l *levers) *throttle.Monitor {
	cfg := throttleConfig(m.cfg)
	cfg.Logger = m.log
	cfg.Backlog = func() int {
		if a := m.applier(); a != nil {
			return a.Stats().Backlog
		}
		return 0
	}
	mon := throttle.NewMonitor(cfg)
	for _, k := range mon.Knobs() {
		l.register(k.Name, knob{get: k.Get, set: k.Set})
	}
	return mon
}

// startThrottleReadings runs the Monitor's loops in the run's background group: a critical load
// met ends the run through it.
func (r *run) startThrottleReadings() {
	m, s := r.m, r.s
	if m.cfg.ReplicationLagQuery != "" {
		m.log.Warn().Msg("--replication-lag-query is deprecated (as in gh-ost) and ignored: lag is read from the migration's heartbeat on each server")
	}
	addr := m.cfg.Conn.Addr()
	rd := throttle.Readers{Primary: s.primary, Inspected: s.inspected, InspectedAddr: addr,
		Heartbeat: heartbeatReader(s.plan), Login: m.cfg.Conn}
	if m.cfg.OnReplica() { // the heartbeat is written on the inspected server itself, as gh-ost's
		rd.InspectedLag = func(ctx context.Context) (time.Duration, error) {
			return throttle.SecondsBehind(ctx, s.inspected, s.plan.Flavor, addr)
		}
	}
	r.bg.Go(func(ctx context.Context) error { return m.levers.monitor.Run(ctx, rd) })
}

// heartbeatReader reads the heartbeat the migration writes in p's changelog, on any server.
func heartbeatReader(p *plan.Plan) func(context.Context, *sql.DB) (time.Time, error) {
	cl := changelogOf(p)
	return func(ctx context.Context, db *sql.DB) (time.Time, error) { return cl.ReadHeartbeat(ctx, db) }
}
