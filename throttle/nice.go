package throttle

import (
	"context"
	"time"
)

// MaxNiceRatio is the largest --nice-ratio (gh-ost's bound).
const MaxNiceRatio = 100

// ClampNiceRatio brings a --nice-ratio into [0, MaxNiceRatio], as gh-ost does.
func ClampNiceRatio(r float64) float64 { return min(max(r, 0), MaxNiceRatio) }

// Nice is --nice-ratio: after each chunk the copy rests ratio × the time the chunk took (0.5: a
// chunk that took 100ms is followed by 50ms of rest). It is the copy's own restraint, not a
// throttle reason.
type Nice struct {
	Ratio func() float64 // read at each rest
	Clock Clock          // nil: RealClock
}

// Delay is the rest after a chunk that took took.
func (n Nice) Delay(took time.Duration) time.Duration {
	return time.Duration(n.Ratio() * float64(took))
}

// Rest waits Delay(took), or until ctx ends (then it returns ctx's error).
func (n Nice) Rest(ctx context.Context, took time.Duration) error {
	clock := n.Clock
	if clock == nil {
		clock = RealClock
	}
	return sleep(ctx, clock, n.Delay(took))
}
