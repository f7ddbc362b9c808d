package status

import "testing"

func TestPhaseNames(t *testing.T) {
	want := map[Phase]string{PhaseNone: "none", PhasePrepare: "prepare", PhaseCopy: "copy", PhasePostponed: "postponed",
		PhaseChecksum: "checksum", PhaseCutOver: "cut-over", PhaseDone: "done", PhaseFailed: "failed", Phase(42): "phase(42)"}
	for p, name := range want {
		if p.String() != name {
			t.Errorf("Phase(%d) = %q, want %q", int(p), p.String(), name)
		}
	}
}
