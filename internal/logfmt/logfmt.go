// Package logfmt formats values for log lines and messages people read.
//
// Invariants:
//   - a duration always carries its unit ("6.5s", "120ms", "1m3s"), never a bare number;
//   - the precision shrinks as the duration grows: a person reads "6.5s" or "1h2m3s", not
//     "6.537491234s".
package logfmt

import "time"

// Duration rounds d for a person: to the millisecond below a second, to 10 ms below ten seconds,
// to 100 ms below a minute, to the second above.
func Duration(d time.Duration) string {
	a := d
	if a < 0 {
		a = -a
	}
	switch {
	case a < time.Second:
		return d.Round(time.Millisecond).String()
	case a < 10*time.Second:
		return d.Round(10 * time.Millisecond).String()
	case a < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
