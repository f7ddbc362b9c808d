package migrator

import (
	"errors"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// A Set is steered as one migration: the interactive commands reach every member (a throttle, a
// postpone, a knob, a panic apply to all tables), and its Status is the set in total.

var _ observe.Controls = (*Set)(nil)

// Status is the set in total: the tables' names joined by commas, the counts summed, the copy
// done when every table's is, the phase the least advanced member's (a failed member's first),
// throttled or postponed when any member is; the rest is the first member's.
func (s *Set) Status() status.Status {
	total := s.members[0].Status()
	tables, ghosts, olds := []string{}, []string{}, []string{}
	for i, m := range s.members {
		st := total
		if i > 0 {
			st = m.Status()
			total.RowsCopied += st.RowsCopied
			total.RowsEstimate += st.RowsEstimate
			total.CopyDone = total.CopyDone && st.CopyDone
			total.CopyRate += st.CopyRate
			total.EventsApplied += st.EventsApplied
			total.Backlog += st.Backlog
			total.Displaced += st.Displaced
			total.Throttled = total.Throttled || st.Throttled
			total.Postponed = total.Postponed || st.Postponed
			total.CopyElapsed = max(total.CopyElapsed, st.CopyElapsed)
			total.HeartbeatLag = max(total.HeartbeatLag, st.HeartbeatLag)
			if total.ThrottleReason == "" {
				total.ThrottleReason = st.ThrottleReason
			}
			if st.Phase == status.PhaseFailed || (total.Phase != status.PhaseFailed && st.Phase < total.Phase) {
				total.Phase, total.PhaseSince = st.Phase, st.PhaseSince
			}
		}
		tables, ghosts, olds = append(tables, st.Table), append(ghosts, st.GhostTable), append(olds, st.OldTable)
	}
	total.Table, total.GhostTable, total.OldTable = strings.Join(tables, ","), strings.Join(ghosts, ","), strings.Join(olds, ",")
	return total
}

// TableStatuses are each member's Status, in the order of the statements (control.TableSet).
func (s *Set) TableStatuses() []status.Status {
	out := make([]status.Status, len(s.members))
	for i, m := range s.members {
		out[i] = m.Status()
	}
	return out
}

// Knobs are the members' (they are the same for every table).
func (s *Set) Knobs() []string { return s.members[0].Knobs() }

// Get reads a knob of the first member (every member is set alike).
func (s *Set) Get(name string) (string, error) { return s.members[0].Get(name) }

// Set changes a knob on every member; the first refusal is returned (the value is checked by each
// member alike, so a refusal changes none).
func (s *Set) Set(name, value string) error {
	for _, m := range s.members {
		if err := m.Set(name, value); err != nil {
			return err
		}
	}
	return nil
}

// Throttle throttles (or releases) every member's copy.
func (s *Set) Throttle(on bool) {
	for _, m := range s.members {
		m.Throttle(on)
	}
}

// Postpone holds back (or releases) the set's cut-over: every member's.
func (s *Set) Postpone(on bool) error {
	var errs []error
	for _, m := range s.members {
		errs = append(errs, m.Postpone(on))
	}
	return errors.Join(errs...)
}

// Panic aborts every member.
func (s *Set) Panic(reason string) {
	for _, m := range s.members {
		m.Panic(reason)
	}
}
