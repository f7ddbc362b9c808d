package throttle

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestBacklogRule(t *testing.T) {
	backlog := 0
	rule := Backlog(BacklogLimit, func() int { return backlog })
	for _, c := range []struct {
		name      string
		backlog   int
		throttled bool
	}{
		{"empty", 0, false},
		{"at the limit", 200, false},
		{"above the limit", 201, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			backlog = c.backlog
			throttled, reason := rule.Check(context.Background())
			if throttled != c.throttled {
				t.Fatalf("backlog %d: throttled %v, want %v", c.backlog, throttled, c.throttled)
			}
			if throttled && reason != "applier backlog 201 > 200" {
				t.Errorf("reason %q", reason)
			}
			if !throttled && reason != "" {
				t.Errorf("a rule that does not throttle gave reason %q", reason)
			}
		})
	}
}

// A backlog that never falls to the limit holds the copy back at most BacklogMaxHold at a time,
// then lets it run for BacklogTurn.
func TestBacklogRuleHoldsAtMostMaxHoldThenGivesTheCopyATurn(t *testing.T) {
	clock := newFakeClock()
	rule := &backlogRule{limit: BacklogLimit, read: func() int { return 1000 }, maxHold: BacklogMaxHold, turn: BacklogTurn, clock: clock}
	ctx := context.Background()
	for round := range 3 {
		if throttled, _ := rule.Check(ctx); !throttled {
			t.Fatalf("round %d: a new backlog did not throttle", round)
		}
		clock.Advance(BacklogMaxHold - time.Millisecond)
		if throttled, _ := rule.Check(ctx); !throttled {
			t.Fatalf("round %d: released before BacklogMaxHold", round)
		}
		clock.Advance(time.Millisecond)
		for turn := time.Duration(0); turn < BacklogTurn; turn += BacklogTurn / 4 {
			if throttled, reason := rule.Check(ctx); throttled || reason != "" {
				t.Fatalf("round %d: held %v into the copy's turn (%q)", round, turn, reason)
			}
			clock.Advance(BacklogTurn / 4)
		}
	}
}

func TestCheckReportsTheFirstRuleThatThrottles(t *testing.T) {
	never := RuleFunc(func(context.Context) (bool, string) { return false, "" })
	busy := RuleFunc(func(context.Context) (bool, string) { return true, "busy" })
	lagging := RuleFunc(func(context.Context) (bool, string) { return true, "lagging" })
	if throttled, reason := New().Check(context.Background()); throttled || reason != "" {
		t.Errorf("no rules: throttled %v (%q)", throttled, reason)
	}
	if throttled, reason := New(never, busy, lagging).Check(context.Background()); !throttled || reason != "busy" {
		t.Errorf("throttled %v (%q), want busy", throttled, reason)
	}
}

// Wait returns as soon as the backlog falls to the limit, having polled it every interval.
func TestWaitBlocksWhileABacklogLasts(t *testing.T) {
	var backlog, reads atomic.Int64
	backlog.Store(500)
	th := New(Backlog(BacklogLimit, func() int {
		if reads.Add(1) == 5 {
			backlog.Store(BacklogLimit)
		}
		return int(backlog.Load())
	}))
	th.Interval = time.Millisecond
	if err := th.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := reads.Load(); n != 5 {
		t.Errorf("the backlog was read %d times, want 5 (until it fell to the limit)", n)
	}
}

func TestWaitEndsWithTheContext(t *testing.T) {
	th := New(Backlog(BacklogLimit, func() int { return 1000 }))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := th.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait under a lasting backlog returned %v, want the context's deadline", err)
	}
	// A context that has ended fails Wait even when nothing throttles.
	if err := New().Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait with an ended context returned %v", err)
	}
	if err := New().Wait(context.Background()); err != nil {
		t.Errorf("Wait without rules returned %v", err)
	}
}

func TestSwitchAndState(t *testing.T) {
	var sw Switch
	th := New(&sw)
	th.Interval = time.Millisecond
	if st := th.State(); st.Throttled {
		t.Fatalf("state before any Wait: %+v", st)
	}
	sw.Set(true, "commanded by user")
	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	go func() { waited <- th.Wait(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for !th.State().Throttled {
		if time.Now().After(deadline) {
			t.Fatal("Wait did not record the throttle")
		}
		time.Sleep(time.Millisecond)
	}
	if st := th.State(); st.Reason != "commanded by user" || st.Since.IsZero() || !sw.On() {
		t.Fatalf("state while throttled: %+v", st)
	}
	sw.Set(false, "")
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("Wait = %v after the switch went off", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait still blocked after the switch went off")
	}
	cancel()
	if st := th.State(); st.Throttled || st.Reason != "" {
		t.Fatalf("state after the switch went off: %+v", st)
	}
}

// Several copy sessions ask one Throttler at once (--copy-threads): every rule keeps its meaning
// for all of them. The backlog rule's hold and the copy's turn are one for every session: at any
// moment they all get the same answer. Run with -race.
func TestThrottlerServesSeveralCopySessions(t *testing.T) {
	clock := newFakeClock()
	rule := &backlogRule{limit: BacklogLimit, read: func() int { return 1000 }, maxHold: BacklogMaxHold, turn: BacklogTurn, clock: clock}
	const sessions = 8
	askAll := func(step string, want bool) {
		t.Helper()
		got := make(chan bool, sessions)
		var wg sync.WaitGroup
		for range sessions {
			wg.Go(func() {
				throttled, _ := rule.Check(context.Background())
				got <- throttled
			})
		}
		wg.Wait()
		close(got)
		for throttled := range got {
			if throttled != want {
				t.Fatalf("%s: a session got throttled=%v, want %v for all", step, throttled, want)
			}
		}
	}
	askAll("a new backlog", true)
	clock.Advance(BacklogMaxHold - time.Millisecond)
	askAll("just before the longest hold", true)
	clock.Advance(time.Millisecond)
	askAll("the longest hold reached", false)
	clock.Advance(BacklogTurn - time.Millisecond)
	askAll("the end of the copy's turn", false)
	clock.Advance(time.Millisecond)
	askAll("after the turn", true)

	// Wait from every session at once, with the rules switched on and off meanwhile.
	var sw Switch
	var backlog atomic.Int64
	critical := &CriticalLoad{Thresholds: func() Load { return nil }}
	th := New(critical, &sw, Backlog(BacklogLimit, func() int { return int(backlog.Load()) }))
	th.Interval = time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for range sessions {
		wg.Go(func() {
			for range 50 {
				if err := th.Wait(ctx); err != nil {
					t.Error(err)
					return
				}
				_ = th.State()
			}
		})
	}
	for i := range 100 {
		sw.Set(i%3 == 0, "commanded by user")
		backlog.Store(int64(i % 2 * 1000))
		time.Sleep(100 * time.Microsecond)
	}
	sw.Set(false, "")
	backlog.Store(0)
	wg.Wait()
}
