package migrator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/throttle"
)

// StatusLogField is the key of the status line's named fields in a log event (one JSON object
// under --log-format=json); a console log shows the line alone and leaves it out.
const StatusLogField = "status"

// Status is a snapshot of a migration, for the status line, the interactive status command, hooks
// and metrics. Counts are zero before the run gets to them.
type Status struct {
	Phase      Phase
	PhaseSince time.Time
	Started    time.Time     // when the run started executing (zero in preparation)
	Elapsed    time.Duration // since Started

	Database, Table, GhostTable, OldTable string
	InspectedHost, PrimaryHost            string // where the binlog is read; where tables are written
	ServerVersion                         string // @@version of the inspected server

	RowsCopied, RowsEstimate int64
	CopyDone                 bool
	// CopyElapsed is the time the copy has taken so far (its whole time once done); CopyRate is
	// rows copied per second over the last rateWindow (0 while unknown or paused).
	CopyElapsed             time.Duration
	CopyRate                float64
	ChunkSize, DMLBatchSize int

	EventsApplied int64
	Backlog       int
	Displaced     int
	AppliedPos    string        // binlog coordinates of the last applied transaction
	HeartbeatLag  time.Duration // since the last heartbeat the applier saw; -1 when none yet
	// Lag is the inspected server's replication lag as the throttle last read it (gh-ost's
	// "Lag"); -1 before the first reading.
	Lag            time.Duration
	Throttled      bool
	ThrottleReason string
	Postponed      bool // the cut-over is held back (flag file or command)
	Instant        bool // the ALTER was done instantly on the original (--attempt-instant-ddl): no copy, no cut-over
}

// Progress is the copy's share done, in percent (100 once the copy is done).
func (s Status) Progress() float64 {
	switch {
	case s.CopyDone:
		return 100
	case s.RowsEstimate <= 0:
		return 0
	}
	return min(100, float64(s.RowsCopied)*100/float64(s.RowsEstimate))
}

// ETA is the time the copy still needs, as gh-ost reckons it: unknown (ok false) until 0.1% is
// copied, zero ("due") once the copy is done or the cut-over is postponed; otherwise the rows left
// at the recent rate (CopyRate), or, while that is zero (throttled), at the rate of the whole
// copy so far.
func (s Status) ETA() (eta time.Duration, ok bool) {
	switch {
	case s.CopyDone || s.Phase == PhasePostponed:
		return 0, true
	case s.RowsEstimate <= 0 || s.Progress() < 0.1:
		return 0, false
	}
	left := float64(max(0, s.RowsEstimate-s.RowsCopied))
	switch {
	case s.CopyRate > 0:
		return time.Duration(left / s.CopyRate * float64(time.Second)), true
	case s.RowsCopied > 0 && s.CopyElapsed > 0:
		return time.Duration(float64(s.CopyElapsed) * left / float64(s.RowsCopied)), true
	}
	return 0, false
}

// ETAText is the ETA as the status line prints it: "N/A", "due", or a duration ("1m28s").
func (s Status) ETAText() string {
	eta, ok := s.ETA()
	switch {
	case !ok:
		return "N/A"
	case eta <= 0:
		return "due"
	}
	return eta.Round(time.Second).String()
}

// State is what the run is doing, in gh-ost's words where it has them: "migrating",
// "throttled, <reason>", "postponing cut-over", and ours for the other phases.
func (s Status) State() string {
	switch s.Phase {
	case PhaseCopy:
		if s.Throttled {
			return "throttled, " + s.ThrottleReason
		}
		return "migrating"
	case PhasePostponed:
		return "postponing cut-over"
	case PhasePrepare:
		return "preparing"
	case PhaseChecksum:
		return "checksumming"
	case PhaseCutOver:
		return "cutting over"
	case PhaseDone, PhaseFailed:
		return s.Phase.String()
	}
	return "not started"
}

// Line is gh-ost's status line:
//
//	Copy: 1200/20000 6.0%; Applied: 34; Backlog: 0/200; Time: 12s(total), 10s(copy); streamer: log.000003:1234; Lag: 0.10s, HeartbeatLag: 0.12s, State: migrating; ETA: 1m28s
//
// Backlog is read-but-unapplied binlog changes over the backlog that makes the copy wait;
// "Displaced: n" follows it while rows moved aside by the applier wait to be put back.
func (s Status) Line() string {
	seconds := func(d time.Duration) string {
		if d < 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	displaced := ""
	if s.Displaced > 0 {
		displaced = fmt.Sprintf("; Displaced: %d", s.Displaced)
	}
	streamer := s.AppliedPos
	if streamer == "" {
		streamer = "n/a"
	}
	return fmt.Sprintf("Copy: %d/%d %.1f%%; Applied: %d; Backlog: %d/%d%s; Time: %s(total), %s(copy); streamer: %s; Lag: %s, HeartbeatLag: %s, State: %s; ETA: %s",
		s.RowsCopied, s.RowsEstimate, s.Progress(), s.EventsApplied, s.Backlog, throttle.BacklogLimit, displaced,
		s.Elapsed.Round(time.Second), s.CopyElapsed.Round(time.Second), streamer, seconds(s.Lag), seconds(s.HeartbeatLag), s.State(), s.ETAText())
}

// Fields are the status line's values by name, for a log event (StatusLogField): durations as
// text with their unit and as seconds.
func (s Status) Fields() *zerolog.Event {
	d := zerolog.Dict().
		Str("phase", s.Phase.String()).Str("state", s.State()).
		Int64("rows_copied", s.RowsCopied).Int64("rows_estimate", s.RowsEstimate).
		Float64("progress_pct", float64(int(s.Progress()*10))/10).
		Int64("events_applied", s.EventsApplied).Int("backlog", s.Backlog).Int("displaced", s.Displaced).
		Str("elapsed", logfmt.Duration(s.Elapsed)).Float64("elapsed_seconds", s.Elapsed.Seconds()).
		Str("copy_elapsed", logfmt.Duration(s.CopyElapsed)).Float64("copy_elapsed_seconds", s.CopyElapsed.Seconds()).
		Float64("copy_rate_rows_per_second", float64(int(s.CopyRate*10))/10).
		Str("eta", s.ETAText()).
		Str("streamer", s.AppliedPos).
		Bool("throttled", s.Throttled).Str("throttle_reason", s.ThrottleReason).Bool("postponed", s.Postponed).
		Int("chunk_size", s.ChunkSize).Int("dml_batch_size", s.DMLBatchSize)
	if eta, ok := s.ETA(); ok {
		d = d.Float64("eta_seconds", eta.Round(time.Second).Seconds())
	}
	if s.Lag >= 0 {
		d = d.Str("lag", logfmt.Duration(s.Lag)).Float64("lag_seconds", s.Lag.Seconds())
	}
	if s.HeartbeatLag >= 0 {
		d = d.Str("heartbeat_lag", logfmt.Duration(s.HeartbeatLag)).Float64("heartbeat_lag_seconds", s.HeartbeatLag.Seconds())
	}
	return d
}

// Status implements Controls.
func (m *Migrator) Status() Status {
	st := Status{Database: m.cfg.Database, Table: m.cfg.Table, HeartbeatLag: -1, Lag: -1,
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
		st.InspectedHost, st.PrimaryHost = p.Inspected.Addr(), p.Primary.Addr()
		st.RowsEstimate = p.EstimatedRows
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
			st.CopyRate = r.rate.observe(now, st.RowsCopied)
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

// rateWindow is how far back the copy's recent rate (Status.CopyRate) looks; minRateSpan is the
// shortest span of samples it reckons a rate over.
const (
	rateWindow  = 10 * time.Second
	minRateSpan = 500 * time.Millisecond
)

// copyRate measures the copy's recent speed from the (time, rows copied) samples Status takes.
type copyRate struct {
	mu      sync.Mutex
	samples []rateSample // oldest first, spanning a little more than rateWindow
}

type rateSample struct {
	at   time.Time
	rows int64
}

// observe records rows copied at a time and returns the rows per second since the oldest sample
// in the window, or 0 while the samples span less than half a second (the copy's start is the
// first sample, so the first status line, a second in, has a rate).
func (c *copyRate) observe(at time.Time, rows int64) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.samples); n == 0 || at.Sub(c.samples[n-1].at) >= 100*time.Millisecond {
		c.samples = append(c.samples, rateSample{at, rows})
	}
	for len(c.samples) > 2 && !c.samples[1].at.After(at.Add(-rateWindow)) {
		c.samples = c.samples[1:]
	}
	first := c.samples[0]
	dt := at.Sub(first.at)
	if dt < minRateSpan {
		return 0
	}
	return float64(rows-first.rows) / dt.Seconds()
}

// statusEvery is how often the status is logged, as gh-ost does: every second in the first
// minute or when the copy is due within a minute, every 5 s in the first three minutes or when it
// is due within three, every 30 s otherwise.
func statusEvery(st Status) time.Duration {
	eta, known := st.ETA()
	known = known && !st.CopyDone && st.Phase == PhaseCopy
	switch {
	case st.Elapsed <= time.Minute || (known && eta <= time.Minute):
		return time.Second
	case st.Elapsed <= 3*time.Minute || (known && eta <= 3*time.Minute):
		return 5 * time.Second
	}
	return 30 * time.Second
}

// statusTick is how often the status logger looks whether a line is due.
var statusTick = time.Second

// startStatus logs the status line (with its fields, StatusLogField) as often as statusEvery
// says, until the returned stop is called (safe to call more than once).
func (m *Migrator) startStatus(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		var last time.Time
		t := time.NewTicker(statusTick)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				st := m.Status()
				if now.Sub(last) < statusEvery(st)-statusTick/2 { // ticks come a little early or late
					continue
				}
				last = now
				line := st.Line()
				m.log.Info().Dict(StatusLogField, st.Fields()).Msg(line)
				m.emit(EventStatus, Event{At: now, Detail: line})
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); <-done }) }
}
