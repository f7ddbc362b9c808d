package cutover

import (
	"testing"
	"time"
)

func TestBackoffSchedule(t *testing.T) {
	s := time.Second
	cases := []struct {
		name        string
		base, max   time.Duration
		exponential bool
		want        []time.Duration // for failed = 1, 2, ...
	}{
		{"fixed", s, 64 * s, false, []time.Duration{s, s, s, s}},
		{"exponential capped", s, 8 * s, true, []time.Duration{s, 2 * s, 4 * s, 8 * s, 8 * s, 8 * s}},
		{"exponential uncapped", 100 * time.Millisecond, 0, true, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}},
		{"cap not a power of two", s, 5 * s, true, []time.Duration{s, 2 * s, 4 * s, 5 * s, 5 * s}},
		{"base above cap", 10 * s, 3 * s, true, []time.Duration{3 * s, 3 * s}},
		{"zero base is one second", 0, 0, true, []time.Duration{s, 2 * s}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for i, w := range c.want {
				if got := backoff(c.base, c.max, c.exponential, i+1); got != w {
					t.Errorf("backoff after failure %d = %s, want %s", i+1, got, w)
				}
			}
		})
	}
	if got := backoff(s, 0, true, 200); got <= 0 {
		t.Fatalf("backoff overflowed: %s", got)
	}
}
