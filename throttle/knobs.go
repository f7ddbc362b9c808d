package throttle

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// Knob is one of the throttle's settings an operator may read and change while the migration
// runs, by gh-ost's name; Set refuses a value gh-ost would refuse and leaves the setting as it was.
type Knob struct {
	Name string
	Get  func() string
	Set  func(string) error
}

// Knobs are the throttle's settings, parsed and bounded as gh-ost parses them.
func (m *Monitor) Knobs() []Knob {
	return []Knob{
		{"max-lag-millis", func() string { return strconv.FormatInt(m.maxLagLimit().Milliseconds(), 10) }, func(v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a whole number of milliseconds", v)
			}
			m.setMaxLag(time.Duration(n) * time.Millisecond) // below 100 is taken as 100, as gh-ost
			return nil
		}},
		loadKnob("max-load", &m.maxLoad),
		loadKnob("critical-load", &m.criticalLoad),
		{"nice-ratio", func() string { return strconv.FormatFloat(m.nice(), 'f', -1, 64) }, func(v string) error {
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(r) {
				return fmt.Errorf("%q is not a number", v)
			}
			m.setNiceRatio(r) // into [0, 100], as gh-ost
			return nil
		}},
		stringKnob("throttle-query", &m.query, CheckQuery),
		stringKnob("throttle-http", &m.httpURL, ParseHTTPURL),
		{"throttle-control-replicas", func() string { return strings.Join(*m.replicas.Load(), ",") }, func(v string) error {
			rs, err := ParseControlReplicas(v)
			if err != nil {
				return err
			}
			m.replicas.Store(&rs)
			return nil
		}},
	}
}

func loadKnob(name string, p *atomic.Pointer[Load]) Knob {
	return Knob{name, func() string { return p.Load().String() }, func(v string) error {
		l, err := ParseLoad(v)
		if err != nil {
			return err
		}
		p.Store(&l)
		return nil
	}}
}

func stringKnob(name string, p *atomic.Pointer[string], check func(string) error) Knob {
	return Knob{name, func() string { return *p.Load() }, func(v string) error {
		if err := check(v); err != nil {
			return err
		}
		p.Store(&v)
		return nil
	}}
}

// ParseControlReplicas reads --throttle-control-replicas: host[:port] separated by commas (port
// ControlReplicaPort when not given, as gh-ost). It returns them as host:port.
func ParseControlReplicas(s string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		host, port, err := dbconn.ParseHostPort(part, ControlReplicaPort)
		if err != nil {
			return nil, fmt.Errorf("throttle-control-replicas: %w", err)
		}
		out = append(out, net.JoinHostPort(host, strconv.Itoa(port)))
	}
	return out, nil
}
