package throttle

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Threshold is one condition of --max-load or --critical-load: the status variable Name at Value
// or above.
type Threshold struct {
	Name  string
	Value int64
}

// Load is a list of thresholds, as --max-load and --critical-load give them
// ("Threads_running=25,Threads_connected=500"), in the order given. The empty Load never trips.
type Load []Threshold

// ParseLoad reads "Var=N,Var=N" as gh-ost does: each condition a name and a whole number; the
// empty string is the empty Load.
func ParseLoad(s string) (Load, error) {
	if s == "" {
		return nil, nil
	}
	var l Load
	for _, cond := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(cond, "=")
		if !ok || strings.Contains(value, "=") {
			return nil, fmt.Errorf("load condition %q is not Var=N", cond)
		}
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("load condition %q has no status variable", cond)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("load condition %q: %q is not a whole number", cond, value)
		}
		l = append(l, Threshold{Name: name, Value: n})
	}
	return l, nil
}

// String is the Load as ParseLoad reads it.
func (l Load) String() string {
	parts := make([]string, len(l))
	for i, t := range l {
		parts[i] = fmt.Sprintf("%s=%d", t.Name, t.Value)
	}
	return strings.Join(parts, ",")
}

// Names are the status variables the Load reads.
func (l Load) Names() []string {
	names := make([]string, len(l))
	for i, t := range l {
		names[i] = t.Name
	}
	return names
}

// StatusValues are the server's global status variables that hold whole numbers, by lower-case
// name (status variable names are case-insensitive), with the error of reading them.
type StatusValues struct {
	Values map[string]int64
	Err    error
}

// Breach is the first threshold a reading meets.
type Breach struct {
	Threshold
	Actual int64
}

func (b Breach) String() string { return fmt.Sprintf("%s=%d >= %d", b.Name, b.Actual, b.Value) }

// errNoSuchVariable is a threshold on a status variable the server does not have.
var errNoSuchVariable = errors.New("no such status variable")

// Met returns the first threshold values reaches (value >= threshold), in the Load's order. A
// variable missing from values is an error: a threshold that can never be judged.
func (l Load) Met(values map[string]int64) (b Breach, met bool, err error) {
	for _, t := range l {
		v, ok := values[strings.ToLower(t.Name)]
		if !ok {
			return Breach{Threshold: t}, false, fmt.Errorf("%s: %w", t.Name, errNoSuchVariable)
		}
		if v >= t.Value {
			return Breach{Threshold: t, Actual: v}, true, nil
		}
	}
	return Breach{}, false, nil
}

// MaxLoad throttles while the last status reading meets a threshold of the Load thresholds
// returns (read at each check, so a changed --max-load applies at once). Reasons read like
// "max-load Threads_running=30 >= 25". A reading that failed, or lacks a variable, throttles too.
func MaxLoad(thresholds func() Load, s *Sample[StatusValues]) Rule {
	return RuleFunc(func(context.Context) (bool, string) {
		l := thresholds()
		if len(l) == 0 {
			return false, ""
		}
		v, ok := s.Load()
		switch {
		case !ok:
			return false, ""
		case v.Err != nil:
			return true, "max-load: " + v.Err.Error()
		}
		b, met, err := l.Met(v.Values)
		switch {
		case err != nil:
			return true, "max-load " + err.Error()
		case met:
			return true, "max-load " + b.String()
		}
		return false, ""
	})
}
