// Package status is a run's snapshot as observers read it: the phase a migration is in (Phase),
// the Status the conductor fills, gh-ost's status line and its named fields (Line, Fields), the
// ETA as gh-ost reckons it, the copy's recent rate (Rate) and how often the line is logged
// (Every). Observers (control, hooks, metrics, the main package) import it instead of the
// conductor for what they read.
//
// Invariants:
//   - A Status is a value: its methods read only its fields, never a server or the run.
//   - The status line keeps gh-ost's field order and words, which parsers written for gh-ost read.
//   - The package knows nothing of the run: it imports only internal leaves.
package status

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
)

// LogField is the key of the status line's named fields in a log event (one JSON object
// under --log-format=json); a console log shows the line alone and leaves it out.
const LogField = "status"

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
	SharedKey                             string // the original's unique key that addresses rows in both tables

	RowsCopied, RowsEstimate int64
	CopyDone                 bool
	// CopyElapsed is the time the copy has taken so far (its whole time once done); CopyRate is
	// rows copied per second over the last rateWindow (Rate) (0 while unknown or paused).
	CopyElapsed             time.Duration
	CopyRate                float64
	ChunkSize, DMLBatchSize int

	EventsApplied int64
	Backlog       int
	BacklogLimit  int // the backlog that makes the copy wait (throttle.BacklogLimit)
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
	displaced := ""
	if s.Displaced > 0 {
		displaced = fmt.Sprintf("; Displaced: %d", s.Displaced)
	}
	streamer := s.AppliedPos
	if streamer == "" {
		streamer = "n/a"
	}
	return fmt.Sprintf("Copy: %d/%d %.1f%%; Applied: %d; Backlog: %d/%d%s; Time: %s(total), %s(copy); streamer: %s; Lag: %s, HeartbeatLag: %s, State: %s; ETA: %s",
		s.RowsCopied, s.RowsEstimate, s.Progress(), s.EventsApplied, s.Backlog, s.BacklogLimit, displaced,
		s.Elapsed.Round(time.Second), s.CopyElapsed.Round(time.Second), streamer, secondsText(s.Lag), secondsText(s.HeartbeatLag), s.State(), s.ETAText())
}

// Fields are the status line's values by name, for a log event (LogField): durations as
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
