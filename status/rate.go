package status

import (
	"sync"
	"time"
)

// rateWindow is how far back the copy's recent rate (Status.CopyRate) looks; minRateSpan is the
// shortest span of samples it reckons a rate over.
const (
	rateWindow  = 10 * time.Second
	minRateSpan = 500 * time.Millisecond
)

// Rate measures the copy's recent speed from the (time, rows copied) samples the status takes.
// The zero value has no samples.
type Rate struct {
	mu      sync.Mutex
	samples []rateSample // oldest first, spanning a little more than rateWindow
}

type rateSample struct {
	at   time.Time
	rows int64
}

// Observe records rows copied at a time and returns the rows per second since the oldest sample
// in the window, or 0 while the samples span less than half a second (the copy's start is the
// first sample, so the first status line, a second in, has a rate).
func (c *Rate) Observe(at time.Time, rows int64) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.samples); n == 0 || at.Sub(c.samples[n-1].at) >= 100*time.Millisecond {
		c.samples = append(c.samples, rateSample{at, rows})
	}
	for len(c.samples) > 2 && !c.samples[1].at.After(at.Add(-rateWindow)) {
		c.samples = c.samples[1:]
	}
	first := c.samples[0]
	dt := at.Sub(first.at)
	if dt < minRateSpan {
		return 0
	}
	return float64(rows-first.rows) / dt.Seconds()
}

// Every is how often the status is logged, as gh-ost does: every second in the first
// minute or when the copy is due within a minute, every 5 s in the first three minutes or when it
// is due within three, every 30 s otherwise.
func Every(st Status) time.Duration {
	eta, known := st.ETA()
	known = known && !st.CopyDone && st.Phase == PhaseCopy
	switch {
	case st.Elapsed <= time.Minute || (known && eta <= time.Minute):
		return time.Second
	case st.Elapsed <= 3*time.Minute || (known && eta <= 3*time.Minute):
		return 5 * time.Second
	}
	return 30 * time.Second
}
