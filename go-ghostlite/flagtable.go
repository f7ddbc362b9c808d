package main

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// The flag table: every flag of the command line is one flagSpec, declared once, in the topic of
// --help it is shown under (flags_table_*.go). From the table come the flag set (newFlagSet), the
// topics of --help (helpGroups), the ranges checked after parsing (flagRanges), the per-flag
// checks, the warnings for gh-ost flags that are accepted and ignored, and the generated gh-ost
// table of doc/flags.md (flagsdoc.go); tests hold the table against doc/flags.md and against the
// list of gh-ost's flags (flags_ghost_test.go).
//
// Invariants:
//   - a flag's value goes to one place: a migrator.Config field named by its path (to), whose
//     default is migrator.DefaultConfig's, or a field of flagValues (own), whose default is def
//     (the zero value when def is empty);
//   - a number of a unit (milliseconds, seconds) is read into a time.Duration by one Value,
//     durationFlag, and is within its range, 0 to a day unless the table says otherwise;
//   - every numeric flag but those the migrator checks (chunk-size, dml-batch-size, copy-threads,
//     nice-ratio, replica-server-id's own check) has a range, checked before anything is created.

// ghostMapping says how a flag compares with gh-ost's flag of the same name.
type ghostMapping int

const (
	ours         ghostMapping = iota // not a gh-ost flag
	ghostSame                        // gh-ost's flag, as in gh-ost
	ghostDiffers                     // gh-ost's flag, with a difference (note says which)
	ghostIgnored                     // gh-ost's flag, accepted and ignored (note says why)
)

// flagSpec is one flag of the command line.
type flagSpec struct {
	name  string
	short string // one-letter shorthand ("h"), if any
	ghost ghostMapping
	// note is the gh-ost table's remark: the difference, or why the flag is ignored (an ignored
	// flag's help and its warning say the same).
	note string

	to  string                  // path of the migrator.Config field the value goes to ("Conn.Host")
	own func(v *flagValues) any // else: a pointer to where the value goes
	// def is the default, as given on the command line, of an own value, or of a Config field
	// whose command-line default differs from DefaultConfig's (--chunk-time).
	def   string
	unit  unit                      // for a time.Duration: the unit the number counts (none: Go's 1m30s)
	rng   *flagRange                // allowed values, checked after parsing
	check func(t flagTargets) error // the flag's own check (and conversion), after the ranges

	hidden bool // for tests only: not in --help
	help   string
	// docDefault is doc/flags.md's default when the flag's is worked out at run time.
	docDefault string
}

// flagTopic is one topic of --help and its flags, in the order shown.
type flagTopic struct {
	title string
	flags []flagSpec
}

// flagTopics is the whole table, in --help's order.
var flagTopics = []flagTopic{
	connectionTopic, migrationTopic, throttleTopic, cutOverTopic, controlTopic, hooksTopic, trustTopic,
	securityTopic, outputTopic,
}

// flagTargets are where parsed values go.
type flagTargets struct {
	cfg *migrator.Config
	v   *flagValues
}

// eachFlag calls fn for every flag of the table, in order.
func eachFlag(fn func(s *flagSpec)) {
	for i := range flagTopics {
		for j := range flagTopics[i].flags {
			fn(&flagTopics[i].flags[j])
		}
	}
}

// newFlagSet registers every flag of the table: each writes into cfg or v.
func newFlagSet(cfg *migrator.Config, v *flagValues) *pflag.FlagSet {
	fs := pflag.NewFlagSet("go-ghostlite", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard) // errors are reported by the caller, on one line
	fs.Usage = func() {}
	defaults := migrator.DefaultConfig()
	eachFlag(func(s *flagSpec) { s.register(fs, flagTargets{cfg, v}, &defaults) })
	return fs
}

// register adds s to fs, its value in t and its default from defaults (or def).
func (s *flagSpec) register(fs *pflag.FlagSet, t flagTargets, defaults *migrator.Config) {
	var p any
	if s.to != "" {
		p = configField(t.cfg, s.to)
		reflect.ValueOf(p).Elem().Set(reflect.ValueOf(configField(defaults, s.to)).Elem())
	} else {
		p = s.own(t.v)
	}
	usage := s.help
	if usage == "" && s.ghost == ghostIgnored {
		usage = "accepted for gh-ost command lines and ignored: " + s.note
	}
	switch p := p.(type) {
	case *bool:
		fs.BoolVarP(p, s.name, s.short, *p, usage)
	case *int:
		fs.IntVarP(p, s.name, s.short, *p, usage)
	case *uint32:
		fs.Uint32VarP(p, s.name, s.short, *p, usage)
	case *float64:
		fs.Float64VarP(p, s.name, s.short, *p, usage)
	case *string:
		fs.StringVarP(p, s.name, s.short, *p, usage)
	case *[]string:
		fs.StringArrayVarP(p, s.name, s.short, *p, usage)
	case *time.Duration:
		fs.VarP(newDurationFlag(p, s.unit), s.name, s.short, usage)
	default:
		panic(fmt.Sprintf("flag table: --%s goes to a %T, which has no kind of flag", s.name, p))
	}
	f := fs.Lookup(s.name)
	if s.def != "" {
		if err := f.Value.Set(s.def); err != nil {
			panic(fmt.Sprintf("flag table: --%s: default %q: %v", s.name, s.def, err))
		}
		f.DefValue = f.Value.String()
	}
	f.Hidden = s.hidden
}

// configField returns a pointer to the field of cfg at path ("Conn.Host").
func configField(cfg *migrator.Config, path string) any {
	v := reflect.ValueOf(cfg).Elem()
	for _, name := range strings.Split(path, ".") {
		v = v.FieldByName(name)
		if !v.IsValid() || !v.CanSet() {
			panic(fmt.Sprintf("flag table: migrator.Config has no settable field %s", path))
		}
	}
	return v.Addr().Interface()
}

// discardString and discardBool are the values of flags accepted and ignored.
func discardString(*flagValues) any { return new(string) }
func discardBool(*flagValues) any   { return new(bool) }

// flagRange is the values a numeric flag accepts, in the flag's unit.
type flagRange struct {
	name     string // set by flagRanges
	min, max float64
	// low is what a value below min is told ("must be positive"); empty: the range itself.
	low string
	// aDay: the range is the one every duration has, 0 to a day (it cannot wrap around).
	aDay bool
}

// span is the range from min to max.
func span(min, max float64) *flagRange { return &flagRange{min: min, max: max} }

// below sets what a value under the minimum is told.
func (r *flagRange) below(words string) *flagRange { r.low = words; return r }

// maxFlagDuration bounds every duration given as a number of a unit: a day. A number of seconds
// times 10^9 overflows int64 nanoseconds past 292 years (18446744074 seconds used to become 0.29 s).
const maxFlagDuration = 24 * time.Hour

// rangeOf is s's range: the table's, or 0 to a day for a number of a unit.
func (s *flagSpec) rangeOf() (flagRange, bool) {
	switch {
	case s.rng != nil:
		r := *s.rng
		r.name = s.name
		return r, true
	case s.unit.size != 0:
		return flagRange{name: s.name, max: float64(maxFlagDuration / s.unit.size), aDay: true}, true
	}
	return flagRange{}, false
}

// flagRanges are the ranges of the table's numeric flags.
var flagRanges = func() []flagRange {
	var out []flagRange
	eachFlag(func(s *flagSpec) {
		if r, ok := s.rangeOf(); ok {
			out = append(out, r)
		}
	})
	return out
}()

// checkFlags refuses, in one line naming the flag, the first value out of its range, then runs
// the flags' own checks, in the table's order.
func checkFlags(fs *pflag.FlagSet, t flagTargets) error {
	for _, r := range flagRanges {
		if err := r.check(fs.Lookup(r.name)); err != nil {
			return err
		}
	}
	var err error
	eachFlag(func(s *flagSpec) {
		if err == nil && s.check != nil {
			err = s.check(t)
		}
	})
	return err
}

// check refuses f's value when it is out of r.
func (r flagRange) check(f *pflag.Flag) error {
	got := f.Value.String()
	v, err := strconv.ParseFloat(got, 64)
	if err != nil {
		return fmt.Errorf("--%s: %q is not a number", r.name, got)
	}
	switch {
	case v < r.min && r.low != "":
		return fmt.Errorf("--%s %s (got %s)", r.name, r.low, got)
	case v < r.min || v > r.max:
		return fmt.Errorf("--%s must be from %s to %s (got %s)", r.name, fmtNum(r.min), fmtNum(r.max), got)
	}
	return nil
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
