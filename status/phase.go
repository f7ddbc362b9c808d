package status

import "fmt"

// Phase is where a migration is. A run goes prepare -> copy -> [postponed] -> [checksum] ->
// cut-over -> done, or ends in failed from any phase. A dry run goes prepare -> done.
type Phase int

// The phases, in the order a run passes them.
const (
	PhaseNone      Phase = iota - 1 // before the run starts
	PhasePrepare                    // checks, ghost table, plan
	PhaseCopy                       // binlog applier running; rows copied in chunks
	PhasePostponed                  // copy done; cut-over waits for the postpone flag file to go
	PhaseChecksum                   // (reserved) original and ghost compared before the cut-over
	PhaseCutOver                    // backlog drained; the tables are being swapped
	PhaseDone                       // finished: migrated (or, in a dry run, proven)
	PhaseFailed                     // stopped by an error
)

var phaseNames = [...]string{"prepare", "copy", "postponed", "checksum", "cut-over", "done", "failed"}

// String is the phase's name as the changelog's state row, the logs and observers spell it.
func (p Phase) String() string {
	if p == PhaseNone {
		return "none"
	}
	if p < 0 || int(p) >= len(phaseNames) {
		return fmt.Sprintf("phase(%d)", int(p))
	}
	return phaseNames[p]
}
