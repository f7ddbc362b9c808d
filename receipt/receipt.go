// Package receipt is --receipt=FILE: one JSON document, written when a run ends (success,
// refusal or failure alike), that says what the run did and what it proved: the command line, the
// server, the table and its ALTER, the plan, the time of each phase, the rows copied and events
// applied, what the checksum compared and repaired (and what it did not compare, and why), each
// cut-over attempt with its outcome and lock time, and the exit status with the FATAL line. It is
// what a CI job archives. doc/receipt.md documents every field.
//
// Invariants:
//   - a Recorder only listens (observe.EventObserver): it never steers the run;
//   - the document is written once, after the run, to a temporary file in the same directory
//     that is then renamed over FILE: a reader sees the whole document or none;
//   - it holds no secret (the command line comes with its passwords masked) and no row data (no
//     key values, no column values);
//   - its shape is versioned (Version): fields are only added; removing one or changing what it
//     means bumps Version.
package receipt

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// Version is the receipt's format version (the "version" field).
const Version = 1

// Receipt is the document.
type Receipt struct {
	Version     int       `json:"version"`
	Tool        string    `json:"tool"`         // "go-ghostlite <version>"
	CommandLine []string  `json:"command_line"` // the arguments, passwords masked
	Started     time.Time `json:"started"`
	Ended       time.Time `json:"ended"`
	TookMS      int64     `json:"took_ms"`
	Server      Server    `json:"server"`
	Database    string    `json:"database"`
	Table       string    `json:"table"`
	Alter       string    `json:"alter"`
	Plan        Plan      `json:"plan"`
	Review      []string  `json:"review"` // a dry run's remarks on the ALTER (empty otherwise)
	Phases      []Phase   `json:"phases"`
	Copy        Copy      `json:"copy"`
	Checksum    *Checksum `json:"checksum"`          // null when no checksum ran
	CutOver     []Attempt `json:"cut_over_attempts"` // empty when no cut-over was tried
	Exit        Exit      `json:"exit"`
}

// Server is the inspected server, as far as the run reached it.
type Server struct {
	Host    string `json:"host"`    // where the binary log is read ("" when never reached)
	Primary string `json:"primary"` // where the tables are written
	Flavor  string `json:"flavor"`  // "MariaDB" or "MySQL" ("" when never reached)
	Version string `json:"version"` // @@version
}

// Plan is what the run set out to do.
type Plan struct {
	Kind       string `json:"kind"`    // "migrate", "resume" or "revert"
	Execute    bool   `json:"execute"` // false: a dry run (--execute not given)
	CutOver    string `json:"cut_over_algorithm"`
	Instant    bool   `json:"instant"`    // the ALTER was done instantly (--attempt-instant-ddl): no copy
	SharedKey  string `json:"shared_key"` // the original's key that addresses rows in both tables
	GhostTable string `json:"ghost_table"`
	OldTable   string `json:"old_table"`
}

// Phase is one phase of the run (package status), in order.
type Phase struct {
	Name    string    `json:"name"`
	Started time.Time `json:"started"`
	TookMS  int64     `json:"took_ms"`
}

// Copy is what the copy and the binlog applier did.
type Copy struct {
	RowsCopied    int64 `json:"rows_copied"`
	RowsEstimate  int64 `json:"rows_estimate"`
	TookMS        int64 `json:"took_ms"`
	EventsApplied int64 `json:"events_applied"`
}

// Checksum is what the checksum before the cut-over compared and repaired.
type Checksum struct {
	Ranges      int64    `json:"ranges"`
	Rows        int64    `json:"rows"`
	Repaired    int      `json:"repaired_chunks"`
	NotCompared []string `json:"not_compared"` // "column: why"
	LockHeldMS  int64    `json:"lock_held_ms"`
	TookMS      int64    `json:"took_ms"`
	Error       string   `json:"error,omitempty"`
}

// Attempt is one cut-over attempt.
type Attempt struct {
	Attempt  int    `json:"attempt"`
	Outcome  string `json:"outcome"` // "swapped" or "failed"
	TookMS   int64  `json:"took_ms"`
	LockedMS int64  `json:"locked_ms"`
	Error    string `json:"error,omitempty"`
}

// Exit is how the run ended.
type Exit struct {
	Code  int    `json:"code"`
	Fatal string `json:"fatal,omitempty"` // the FATAL line's message
}

// Recorder listens to a run (observe.EventObserver) and makes its receipt. It is safe for
// concurrent use.
type Recorder struct {
	mu        sync.Mutex
	r         Receipt
	phaseOpen bool // the last of r.Phases has no time yet
}

// New starts a receipt; r holds what is known before the run (tool, command line, table, ALTER,
// plan kind, execute, algorithm).
func New(r Receipt) *Recorder {
	r.Version = Version
	if r.Started.IsZero() {
		r.Started = time.Now()
	}
	r.Phases, r.CutOver, r.Review = []Phase{}, []Attempt{}, []string{}
	return &Recorder{r: r}
}

// PhaseChanged records the phase (observe.Observer).
func (rc *Recorder) PhaseChanged(c observe.PhaseChange) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.closePhase(c.At)
	rc.r.Phases = append(rc.r.Phases, Phase{Name: c.Phase.String(), Started: c.At})
	rc.phaseOpen = true
}

// closePhase sets the running phase's time, up to at.
func (rc *Recorder) closePhase(at time.Time) {
	if n := len(rc.r.Phases); rc.phaseOpen {
		rc.r.Phases[n-1].TookMS = ms(at.Sub(rc.r.Phases[n-1].Started))
	}
	rc.phaseOpen = false
}

// Event records the checksum and the cut-over attempts (observe.EventObserver).
func (rc *Recorder) Event(e observe.Event) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	switch e.Kind {
	case observe.EventCutOverAttempt:
		a := Attempt{Attempt: e.Attempt, Outcome: "swapped", TookMS: ms(e.Took), LockedMS: ms(e.Locked)}
		if e.Err != nil {
			a.Outcome, a.Error = "failed", dbconn.OneLine(e.Err).Error()
		}
		rc.r.CutOver = append(rc.r.CutOver, a)
	case observe.EventReviewed:
		rc.r.Review = append([]string{}, e.Review...)
	case observe.EventChecksum:
		if c := e.Checksum; c != nil {
			rc.r.Checksum = &Checksum{Ranges: c.Ranges, Rows: c.Rows, Repaired: c.Repaired, NotCompared: append([]string{}, c.Skipped...),
				LockHeldMS: ms(c.LockHeld), TookMS: ms(c.Took)}
			if e.Err != nil {
				rc.r.Checksum.Error = dbconn.OneLine(e.Err).Error()
			}
		}
	}
}

// Finish completes the receipt with the run's last status and its exit: code, and fatal, the
// FATAL line's message ("" on success).
func (rc *Recorder) Finish(st status.Status, code int, fatal string) Receipt {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	r := &rc.r
	r.Ended = time.Now()
	r.TookMS = ms(r.Ended.Sub(r.Started))
	rc.closePhase(r.Ended)
	r.Server = Server{Host: st.InspectedHost, Primary: st.PrimaryHost, Version: st.ServerVersion, Flavor: flavorOf(st.ServerVersion)}
	r.Plan.Instant, r.Plan.SharedKey, r.Plan.GhostTable, r.Plan.OldTable = st.Instant, st.SharedKey, st.GhostTable, st.OldTable
	r.Copy = Copy{RowsCopied: st.RowsCopied, RowsEstimate: st.RowsEstimate, TookMS: ms(st.CopyElapsed), EventsApplied: st.EventsApplied}
	r.Exit = Exit{Code: code, Fatal: fatal}
	out := *r
	out.Phases, out.CutOver, out.Review = append([]Phase{}, r.Phases...), append([]Attempt{}, r.CutOver...), append([]string{}, r.Review...)
	return out
}

// Write writes r to path: to a temporary file beside it, renamed over path.
func Write(path string, r Receipt) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("--receipt: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("--receipt: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone after the rename
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("--receipt: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--receipt: write %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("--receipt: %w", err)
	}
	return nil
}

// flavorOf is "MariaDB" or "MySQL" by the server's @@version, "" when unknown.
func flavorOf(version string) string {
	switch {
	case version == "":
		return ""
	case strings.Contains(strings.ToLower(version), "mariadb"):
		return "MariaDB"
	}
	return "MySQL"
}

func ms(d time.Duration) int64 { return d.Milliseconds() }
