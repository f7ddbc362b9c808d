// Package throttle decides "may we write now?" for the row copy: it never blocks the binlog applier.
//
// Invariant: a throttle only delays work, it never skips it.
package throttle
