package migrator

import (
	"context"
	"time"

	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
	"github.com/go-ghostlite/go-ghostlite/throttle"
)

// The run's Status, its line and its cadence are status's; the Migrator fills it and logs it.

// Status implements Controls.
func (m *Migrator) Status() status.Status {
	st := status.Status{Database: m.cfg.Database, Table: m.cfg.Table, HeartbeatLag: -1, Lag: -1, BacklogLimit: throttle.BacklogLimit,
		ChunkSize: m.levers.chunkSize.ChunkSize(), DMLBatchSize: int(m.levers.dmlBatchSize.Load())}
	st.Phase, st.PhaseSince = m.phases.Current()
	ts := m.levers.monitor.State()
	st.Throttled, st.ThrottleReason = ts.Throttled, ts.Reason
	st.Postponed = m.postponing()
	st.Instant = m.instant.Load()
	if lag, ok := m.levers.monitor.InspectedLag(); ok {
		st.Lag = lag
	}
	if p := m.prepared.Load(); p != nil {
		st.GhostTable, st.OldTable = p.GhostTable, p.OldTable
		st.InspectedHost, st.PrimaryHost, st.ServerVersion = p.Inspected.Addr(), p.Primary.Addr(), p.Flavor.Version
		st.RowsEstimate = p.EstimatedRows
		st.SharedKey = p.OriginalKey.Name
	}
	r := m.cur.Load()
	if r == nil {
		return st
	}
	p := r.s.plan
	now := time.Now()
	st.Started, st.Elapsed = r.started, now.Sub(r.started)
	st.GhostTable, st.OldTable = p.GhostTable, p.OldTable
	st.InspectedHost, st.PrimaryHost, st.ServerVersion = p.Inspected.Addr(), p.Primary.Addr(), p.Flavor.Version
	st.RowsEstimate = r.rowsEstimate.Load()
	if c := r.copier.Load(); c != nil {
		st.RowsCopied, st.CopyDone = c.Copied(), c.Done()
		if st.RowsCopied > st.RowsEstimate || st.CopyDone {
			st.RowsEstimate = st.RowsCopied
		}
		st.CopyElapsed = r.copyTime(now)
		if !st.CopyDone {
			st.CopyRate = r.rate.Observe(now, st.RowsCopied)
		}
	}
	a := r.applier.Stats()
	st.EventsApplied, st.Backlog, st.Displaced = a.EventsApplied, a.Backlog, a.Displaced
	st.AppliedPos = a.Applied.String()
	if !a.LastHeartbeat.IsZero() {
		st.HeartbeatLag = now.Sub(a.LastHeartbeat)
	}
	return st
}

// statusTick is how often the status logger looks whether a line is due.
var statusTick = time.Second

// logStatus logs the status line (with its fields, status.LogField) as often as status.Every
// says, until ctx ends; it runs in the run's background group from the start of the copy.
func (m *Migrator) logStatus(ctx context.Context) error {
	var last time.Time
	t := time.NewTicker(statusTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			st := m.Status()
			if now.Sub(last) < status.Every(st)-statusTick/2 { // ticks come a little early or late
				continue
			}
			last = now
			line := st.Line()
			m.log.Info().Dict(status.LogField, st.Fields()).Msg(line)
			m.emit(observe.EventStatus, observe.Event{At: now, Detail: line})
		}
	}
}

// inspectedLag is the inspected server's replication lag as the throttle last read it, as gh-ost
// prints it ("0s" before the first reading, or on a server that replicates from none).
func (m *Migrator) inspectedLag() string {
	lag, _ := m.levers.monitor.InspectedLag()
	return lag.String()
}
