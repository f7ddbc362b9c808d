package copier

import (
	"testing"
	"time"
)

func TestAdaptiveFollowsChunkTimes(t *testing.T) {
	a := Adaptive{Target: 500 * time.Millisecond, Min: 10, Max: 100000}
	ms := time.Millisecond
	cases := []struct {
		name    string
		size    int
		took    time.Duration
		stalled bool
		want    int
	}{
		{"on target: unchanged", 1000, 500 * ms, false, 1000},
		{"within the band: unchanged", 1000, 420 * ms, false, 1000},
		{"fast: grows by half at most", 1000, 50 * ms, false, 1500},
		{"a little fast: grows toward the target", 1000, 390 * ms, false, 1282},
		{"slow: shrinks in proportion", 1000, 800 * ms, false, 625},
		{"very slow: at least halves", 1000, 1100 * ms, false, 454},
		{"slow enough to halve", 1000, 1001 * ms, false, 499},
		{"lock wait: halves even when fast", 1000, 100 * ms, true, 500},
		{"lock wait and very slow: the smaller", 1000, 5000 * ms, true, 100},
		{"bounded above", 90000, 10 * ms, false, 100000},
		{"bounded below", 12, 5000 * ms, true, 10},
		{"zero time: grows, no division by zero", 1000, 0, false, 1500},
	}
	for _, c := range cases {
		if got := a.Next(c.size, c.took, c.stalled); got != c.want {
			t.Errorf("%s: Next(%d, %v, %v) = %d, want %d", c.name, c.size, c.took, c.stalled, got, c.want)
		}
	}
}

// Fed the times of a table whose rows cost 1 ms per 1,000, the size settles near the target
// within a few chunks, and a burst of lock waits brings it down at once.
func TestAdaptiveConverges(t *testing.T) {
	a := Adaptive{Target: 200 * time.Millisecond, Min: 10, Max: 100000}
	cost := func(rows int) time.Duration { return time.Duration(rows) * time.Microsecond }
	size := 1000
	for i := 0; i < 20; i++ {
		size = a.Next(size, cost(size), false)
	}
	if size != a.Max { // 200 ms is 200,000 rows, above Max
		t.Fatalf("after 20 chunks the size is %d, want Max %d", size, a.Max)
	}
	a.Max = 1000000
	for i := 0; i < 20; i++ {
		size = a.Next(size, cost(size), false)
	}
	if size < 160000 || size > 250000 {
		t.Fatalf("after 40 chunks the size is %d, want 160,000 to 250,000 (200 ms at 1 ms per 1,000 rows)", size)
	}
	before := size
	size = a.Next(size, cost(size), true)
	if size > before/2 {
		t.Errorf("a lock wait took the size from %d to %d, want at most half", before, size)
	}
}
