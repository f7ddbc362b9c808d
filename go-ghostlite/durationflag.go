package main

import (
	"strconv"
	"time"
)

// unit is what the number of a duration flag counts.
type unit struct {
	size       time.Duration // 0: the value is a Go duration ("1m30s"), not a number
	fractional bool          // the number may have a fraction ("2.5")
}

var (
	millis            = unit{size: time.Millisecond}
	seconds           = unit{size: time.Second}
	fractionalSeconds = unit{size: time.Second, fractional: true}
)

// durationFlag is the one way a duration is read from the command line: a number of its unit
// (gh-ost's --max-lag-millis=1500, --cut-over-lock-timeout-seconds=3, --mysql-timeout=2.5), or a
// Go duration when the unit has no size (--chunk-time=300ms). It keeps the number as given, so
// that the range check (flagtable.go) reads it before a large one wraps around in nanoseconds.
type durationFlag struct {
	p      *time.Duration
	unit   unit
	number string // the number given, in units (the default's before any)
}

func newDurationFlag(p *time.Duration, u unit) *durationFlag {
	f := &durationFlag{p: p, unit: u}
	switch {
	case u.fractional:
		f.number = strconv.FormatFloat(float64(*p)/float64(u.size), 'g', -1, 64)
	case u.size != 0:
		f.number = strconv.FormatInt(int64(*p/u.size), 10)
	}
	return f
}

func (f *durationFlag) String() string {
	if f.unit.size == 0 {
		return f.p.String()
	}
	return f.number
}

// Set reads s as Go's flag package reads an int64 (or a float64 when the unit is fractional).
func (f *durationFlag) Set(s string) error {
	if f.unit.size == 0 {
		d, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*f.p = d
		return nil
	}
	// A number out of range may wrap around here: the range check refuses it before it is used.
	if f.unit.fractional {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return err
		}
		f.number, *f.p = strconv.FormatFloat(v, 'g', -1, 64), time.Duration(v*float64(f.unit.size))
		return nil
	}
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return err
	}
	f.number, *f.p = strconv.FormatInt(v, 10), time.Duration(v)*f.unit.size
	return nil
}

func (f *durationFlag) Type() string {
	switch {
	case f.unit.size == 0:
		return "duration"
	case f.unit.fractional:
		return "float64"
	}
	return "int"
}
