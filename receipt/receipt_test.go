package receipt

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// The recorder turns phase changes and events into the document: each phase timed up to the next,
// the checksum and every attempt as heard, the last status and the exit; Write leaves the whole
// document (and nothing else) in the directory.
func TestRecorderAndWrite(t *testing.T) {
	t0 := time.Now()
	rc := New(Receipt{Database: "d", Table: "t", Plan: Plan{Kind: "migrate", CutOver: "three-step"}})
	rc.PhaseChanged(observe.PhaseChange{Phase: status.PhasePrepare, At: t0})
	rc.PhaseChanged(observe.PhaseChange{Phase: status.PhaseCopy, At: t0.Add(2 * time.Second)})
	rc.Event(observe.Event{Kind: observe.EventStatus, Detail: "ignored"})
	rc.Event(observe.Event{Kind: observe.EventChecksum, Checksum: &observe.ChecksumOutcome{Ranges: 3, Rows: 30, Skipped: []string{"f: FLOAT"}, LockHeld: 5 * time.Millisecond}})
	rc.Event(observe.Event{Kind: observe.EventCutOverAttempt, Attempt: 1, Took: time.Second, Locked: 300 * time.Millisecond, Err: errors.New("lock wait\ntimeout")})
	rc.Event(observe.Event{Kind: observe.EventCutOverAttempt, Attempt: 2, Took: time.Second, Locked: 20 * time.Millisecond})
	rc.PhaseChanged(observe.PhaseChange{Phase: status.PhaseDone, At: t0.Add(5 * time.Second)})
	r := rc.Finish(status.Status{ServerVersion: "8.0.36", SharedKey: "PRIMARY", RowsCopied: 30, EventsApplied: 4}, 0, "")

	if r.Version != Version || len(r.Phases) != 3 || r.Phases[0].TookMS != 2000 || r.Phases[1].TookMS != 3000 {
		t.Errorf("phases %+v", r.Phases)
	}
	if c := r.Checksum; c == nil || c.Ranges != 3 || c.Rows != 30 || len(c.NotCompared) != 1 || c.LockHeldMS != 5 {
		t.Errorf("checksum %+v", c)
	}
	if a := r.CutOver; len(a) != 2 || a[0].Outcome != "failed" || a[0].Error != "lock wait timeout" || a[0].LockedMS != 300 || a[1].Outcome != "swapped" || a[1].Error != "" {
		t.Errorf("attempts %+v", a)
	}
	if r.Server.Flavor != "MySQL" || r.Plan.SharedKey != "PRIMARY" || r.Copy.RowsCopied != 30 || r.Copy.EventsApplied != 4 || r.Exit.Code != 0 {
		t.Errorf("receipt %+v", r)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := Write(path, r); err != nil {
		t.Fatal(err)
	}
	var back Receipt
	b, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(b, &back) != nil || back.Table != "t" || len(back.CutOver) != 2 {
		t.Fatalf("read back %+v (%v)", back, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("Write left %d files, want the receipt only", len(entries))
	}
}
