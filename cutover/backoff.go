package cutover

import "time"

// backoff is the pause before the attempt that follows failed attempt number failed (from 1).
// Without exponential it is always base. With it, base doubles after each failure: base, 2×base,
// 4×base, ... capped at max (no cap when max <= 0). It never overflows.
func backoff(base, max time.Duration, exponential bool, failed int) time.Duration {
	if base <= 0 {
		base = time.Second
	}
	if !exponential || failed <= 1 {
		if max > 0 && base > max {
			return max
		}
		return base
	}
	d := base
	for i := 1; i < failed; i++ {
		if max > 0 && d >= max {
			return max
		}
		if d > (1<<62)/2 { // doubling again would overflow
			break
		}
		d *= 2
	}
	if max > 0 && d > max {
		return max
	}
	return d
}
