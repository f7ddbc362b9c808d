package copier

import "time"

// Adaptive sizes the chunks so that each takes about Target to copy (--chunk-time). After each
// chunk the copy asks Next for the size of the chunks planned from then on (the chunks read
// ahead keep theirs) and stores it in the Knobs, where an operator's chunk-size command also
// lands: the controller goes on from whatever size the knobs hold.
//
// It grows slowly and backs off at once: a chunk faster than 80% of Target lets the size grow
// toward Target by at most half per chunk; a chunk slower than 125% of Target shrinks it in
// proportion; a chunk slower than twice Target, or one that hit a lock wait timeout or a deadlock,
// at least halves it. The size stays within [Min, Max].
type Adaptive struct {
	Target   time.Duration
	Min, Max int
}

// Next is the size after a chunk of size rows that took took to copy; stalled says the chunk hit
// a lock wait timeout or a deadlock (and was tried again).
func (a Adaptive) Next(size int, took time.Duration, stalled bool) int {
	took = max(took, time.Microsecond)
	ratio := float64(a.Target) / float64(took) // > 1: the chunk was faster than the target
	next := float64(size)
	switch {
	case stalled || took > 2*a.Target:
		next = min(next/2, next*ratio)
	case took > a.Target*5/4:
		next *= ratio
	case took*5 < a.Target*4:
		next *= min(ratio, 1.5)
	}
	return min(max(int(next), a.Min), a.Max)
}
