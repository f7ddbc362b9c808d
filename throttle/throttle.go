// Package throttle decides "may the copy go on now?". A Throttler holds rules, gh-ost's signals
// with their reasons: an operator's throttle (Switch), flag files (FlagFile), --max-load
// (MaxLoad), --throttle-query and --throttle-http (Sampled verdicts), replication lag from the
// migration's heartbeat (MaxLag), a --critical-load hibernation (CriticalLoad), and the applier's
// backlog (Backlog). The row copy calls Wait before each chunk, and Wait returns once no rule
// throttles. --nice-ratio (Nice) is the copy's own rest after each chunk, not a rule.
//
// Readings that need a query or a request are kept in a Sample that a background loop refreshes
// (Poll); the rules decide from the last reading and the current settings, so they can be tested
// with fake readings and a fake Clock. A Monitor is one migration's throttle: its settings (knobs
// an operator may change), its readings and their loops (Run, which the caller runs in its own
// error group), its rules in gh-ost's order and the copy's gate (CopyGate). What the migration's
// heartbeat is, and where it lives, it is told (Readers.Heartbeat).
//
// Invariants:
//   - a throttle only delays work, it never skips it;
//   - it holds back the row copy only: it never stops the binlog applier, which is what drains
//     the backlog a throttle waits on;
//   - rules are cheap and never block: a rule that needs a query reads a value refreshed
//     elsewhere, since Wait asks every rule every Interval while it waits;
//   - every goroutine a Monitor starts runs under its Run and has ended when Run returns.
package throttle

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Rule is one reason to hold the copy back. Check says whether the copy must wait now and, when
// it must, why (for the status line and the logs).
type Rule interface {
	Check(ctx context.Context) (throttled bool, reason string)
}

// RuleFunc is a function used as a Rule.
type RuleFunc func(ctx context.Context) (throttled bool, reason string)

// Check calls f.
func (f RuleFunc) Check(ctx context.Context) (bool, string) { return f(ctx) }

// DefaultInterval is how often Wait asks the rules again while the copy is throttled.
const DefaultInterval = 5 * time.Millisecond

// Throttler asks its rules whether the copy may go on.
type Throttler struct {
	rules []Rule
	// Interval is the pause between checks while throttled (DefaultInterval by New).
	Interval time.Duration

	mu    sync.Mutex
	state State
}

// State is what the last Wait found: whether the copy is held back now, why, and since when.
type State struct {
	Throttled bool
	Reason    string
	Since     time.Time
}

// State reports whether Wait is holding the copy back now, and why.
func (t *Throttler) State() State {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

func (t *Throttler) record(throttled bool, reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if throttled != t.state.Throttled || reason != t.state.Reason {
		if throttled != t.state.Throttled {
			t.state.Since = time.Now()
		}
		t.state.Throttled, t.state.Reason = throttled, reason
	}
}

// New returns a Throttler over rules; with none it never throttles.
func New(rules ...Rule) *Throttler {
	return &Throttler{rules: rules, Interval: DefaultInterval}
}

// Check asks the rules in order and returns the first that throttles, with its reason.
func (t *Throttler) Check(ctx context.Context) (throttled bool, reason string) {
	for _, r := range t.rules {
		if throttled, reason := r.Check(ctx); throttled {
			return true, reason
		}
	}
	return false, ""
}

// Refresh asks the rules now and records the answer in State, without waiting: a change made
// by the operator (the throttle command, or its end) shows in the next status at once instead
// of at the copy's next ask.
func (t *Throttler) Refresh(ctx context.Context) {
	t.record(t.Check(ctx))
}

// Wait blocks while any rule throttles, asking again every Interval. It returns nil when the
// copy may go on, or ctx's error when ctx ends (even when nothing throttles).
func (t *Throttler) Wait(ctx context.Context) error {
	for {
		throttled, reason := t.Check(ctx)
		t.record(throttled, reason)
		if !throttled {
			return ctx.Err()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(t.Interval):
		}
	}
}

// BacklogLimit is how many read-but-unapplied binlog changes make the copy wait: applying changes
// comes before copying.
const BacklogLimit = 200

// BacklogMaxHold is the longest the backlog rule holds the copy back at a time; then the copy gets
// a turn of the same length (BacklogTurn) before the next hold. The applier keeps its priority,
// but a write load it only just keeps up with (a backlog that never falls to the limit) cannot
// starve the copy: the copy still gets about half of the time.
const BacklogMaxHold = time.Second

// BacklogTurn is how long the copy runs, unheld by the backlog, after a hold of BacklogMaxHold.
const BacklogTurn = time.Second

// Backlog throttles while the applier's backlog, as read returns it, is above limit, for at most
// BacklogMaxHold at a time, each hold followed by a turn of BacklogTurn for the copy.
func Backlog(limit int, read func() int) Rule {
	return &backlogRule{limit: limit, read: read, maxHold: BacklogMaxHold, turn: BacklogTurn, clock: RealClock}
}

type backlogRule struct {
	limit   int
	read    func() int
	maxHold time.Duration
	turn    time.Duration
	clock   Clock

	mu        sync.Mutex
	since     time.Time // when the current hold began; zero when not holding
	turnUntil time.Time // the copy's turn after a full hold runs until then
}

func (b *backlogRule) Check(context.Context) (bool, string) {
	n := b.read()
	b.mu.Lock()
	defer b.mu.Unlock()
	if n <= b.limit {
		b.since = time.Time{}
		return false, ""
	}
	now := b.clock.Now()
	if now.Before(b.turnUntil) {
		return false, "" // the copy's turn
	}
	if b.since.IsZero() {
		b.since = now
	}
	if now.Sub(b.since) >= b.maxHold {
		b.since = time.Time{} // the copy's turn, then the next hold begins
		b.turnUntil = now.Add(b.turn)
		return false, ""
	}
	return true, fmt.Sprintf("applier backlog %d > %d", n, b.limit)
}

// Switch is a rule an operator turns on and off (the interactive throttle / no-throttle). Safe for
// concurrent use.
type Switch struct {
	mu     sync.Mutex
	on     bool
	reason string
}

// Set turns the switch on with reason, or off.
func (s *Switch) Set(on bool, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on, s.reason = on, reason
}

// On reports whether the switch throttles.
func (s *Switch) On() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.on
}

// Check throttles while the switch is on.
func (s *Switch) Check(context.Context) (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.on, s.reason
}
