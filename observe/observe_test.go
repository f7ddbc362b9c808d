package observe

import "testing"

// The names are gh-ost's hooks' spelling; an unknown value says its number.
func TestEventNames(t *testing.T) {
	for k, name := range map[EventKind]string{EventValidated: "validated", EventStartReplication: "start-replication", EventKind(0): "event(0)", EventKind(99): "event(99)"} {
		if k.String() != name {
			t.Errorf("EventKind(%d) = %q, want %q", int(k), k.String(), name)
		}
	}
}

func TestStepNames(t *testing.T) {
	for s, name := range map[Step]string{StepStartup: "startup", StepBeforeCutOver: "before-cut-over", StepStopReplication: "stop-replication", StepSuccess: "success", Step(0): "step(0)", Step(8): "step(8)"} {
		if s.String() != name {
			t.Errorf("Step(%d) = %q, want %q", int(s), s.String(), name)
		}
	}
}
