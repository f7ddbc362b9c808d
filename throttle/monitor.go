package throttle

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/rs/zerolog"
)

// The Monitor is the throttle of one migration (doc/throttle.md): the settings an operator may
// change while it runs (knobs.go), the readings its loops refresh beside the applier (readings.go),
// the rules in gh-ost's order, and the gate the copy waits on before each chunk (gate.go). Rules
// only read the last reading, so a slow server or URL never slows the copy's check; while
// throttled the copy waits and the binlog applier keeps applying.

// Defaults of the Monitor's intervals, as gh-ost's (lag: LagCheckInterval; HTTP: its flag).
const (
	DefaultCheckInterval  = time.Second            // max-load, critical-load, throttle-query
	DefaultLagReadTimeout = 2 * time.Second        // one lag read; a slower one is an error (it throttles)
	MinMaxLag             = 100 * time.Millisecond // --max-lag-millis below this is taken as this
	ControlReplicaPort    = 3306                   // gh-ost's port for a control replica given without one
)

// Config is what a Monitor starts from: the throttle flags' values (Validate checks them), the
// applier's backlog, and the intervals of its loops (zero: the defaults), fields so tests can
// shorten them.
type Config struct {
	// The settings, as the command line gives them (doc/throttle.md).
	config.ThrottleSettings
	HeartbeatInterval time.Duration // how often the heartbeat is written (the lag's pace under 1s)

	Backlog func() int // the applier's read-but-unapplied changes; nil: none
	Logger  zerolog.Logger

	CheckInterval  time.Duration // 0: DefaultCheckInterval
	LagReadTimeout time.Duration // 0: DefaultLagReadTimeout
}

// Validate checks the throttle's settings without touching a server. Its errors name the flag.
func (c Config) Validate() error {
	if _, err := ParseLoad(c.MaxLoad); err != nil {
		return fmt.Errorf("--max-load: %w", err)
	}
	if _, err := ParseLoad(c.CriticalLoad); err != nil {
		return fmt.Errorf("--critical-load: %w", err)
	}
	if _, err := ParseControlReplicas(c.ThrottleControlReplicas); err != nil {
		return fmt.Errorf("--%w", err)
	}
	if err := CheckQuery(c.ThrottleQuery); err != nil {
		return fmt.Errorf("--throttle-query: %w", err)
	}
	if err := ParseHTTPURL(c.ThrottleHTTP); err != nil {
		return fmt.Errorf("--%w", err)
	}
	switch {
	case c.ThrottleHTTPInterval <= 0 || c.ThrottleHTTPTimeout <= 0:
		return errors.New("--throttle-http-interval-millis and --throttle-http-timeout-millis must be positive")
	case c.CriticalLoadInterval < 0 || c.CriticalLoadHibernate < 0:
		return errors.New("--critical-load-interval-millis and --critical-load-hibernate-seconds must not be negative")
	}
	return nil
}

// Monitor owns a migration's throttle: its settings, its readings and their loops (Run), its
// rules and the copy's gate. Safe for concurrent use.
type Monitor struct {
	cfg Config
	log zerolog.Logger

	maxLag       atomic.Int64 // nanoseconds
	maxLoad      atomic.Pointer[Load]
	criticalLoad atomic.Pointer[Load]
	niceRatio    atomic.Uint64 // math.Float64bits
	query        atomic.Pointer[string]
	httpURL      atomic.Pointer[string]
	replicas     atomic.Pointer[[]string] // host:port

	status       Sample[StatusValues]
	inspectedLag Sample[Lag]
	replicaLag   Sample[[]Lag]
	queryResult  Sample[Verdict]
	httpResult   Sample[Verdict]
	critical     *CriticalLoad
	user         Switch
	throttler    *Throttler
}

// NewMonitor takes its settings from cfg, which Validate has checked (a value it refuses reads
// as empty). Nothing is read until Run.
func NewMonitor(cfg Config) *Monitor {
	if cfg.CheckInterval <= 0 {
		cfg.CheckInterval = DefaultCheckInterval
	}
	if cfg.LagReadTimeout <= 0 {
		cfg.LagReadTimeout = DefaultLagReadTimeout
	}
	if cfg.Backlog == nil {
		cfg.Backlog = func() int { return 0 }
	}
	m := &Monitor{cfg: cfg, log: cfg.Logger}
	m.setMaxLag(cfg.MaxLag)
	maxLoad, _ := ParseLoad(cfg.MaxLoad)
	critical, _ := ParseLoad(cfg.CriticalLoad)
	replicas, _ := ParseControlReplicas(cfg.ThrottleControlReplicas)
	m.maxLoad.Store(&maxLoad)
	m.criticalLoad.Store(&critical)
	m.setNiceRatio(cfg.NiceRatio)
	m.query.Store(&cfg.ThrottleQuery)
	m.httpURL.Store(&cfg.ThrottleHTTP)
	m.replicas.Store(&replicas)
	m.critical = &CriticalLoad{
		Thresholds: func() Load { return *m.criticalLoad.Load() },
		Recheck:    cfg.CriticalLoadInterval,
		Hibernate:  cfg.CriticalLoadHibernate,
	}
	m.throttler = New(m.rules()...)
	return m
}

// rules are the throttle's rules in gh-ost's order (hibernation, the operator, flag files,
// max-load, throttle-query, HTTP, lag), then the applier's backlog.
func (m *Monitor) rules() []Rule {
	return []Rule{
		m.critical,
		&m.user,
		FlagFile(func() string { return m.cfg.ThrottleFlagFile }),
		FlagFile(func() string { return m.cfg.ThrottleAdditionalFlagFile }),
		MaxLoad(func() Load { return *m.maxLoad.Load() }, &m.status),
		Sampled(&m.queryResult),
		Sampled(&m.httpResult),
		MaxLag(m.maxLagLimit, &m.inspectedLag, &m.replicaLag),
		Backlog(BacklogLimit, m.cfg.Backlog),
	}
}

func (m *Monitor) setMaxLag(d time.Duration)  { m.maxLag.Store(int64(max(d, MinMaxLag))) }
func (m *Monitor) maxLagLimit() time.Duration { return time.Duration(m.maxLag.Load()) }
func (m *Monitor) setNiceRatio(r float64)     { m.niceRatio.Store(math.Float64bits(ClampNiceRatio(r))) }
func (m *Monitor) nice() float64              { return math.Float64frombits(m.niceRatio.Load()) }

// State is whether the copy is held back now, and why (as of the copy's last ask, or Refresh).
func (m *Monitor) State() State { return m.throttler.State() }

// Command turns the operator's throttle on or off (the interactive throttle / no-throttle).
func (m *Monitor) Command(on bool) { m.user.Set(on, "commanded by user") }

// Refresh asks the rules now, so that State shows an operator's change at once.
func (m *Monitor) Refresh(ctx context.Context) { m.throttler.Refresh(ctx) }

// Hibernating reports whether a --critical-load hibernation is under way: nothing is read, and
// the migration writes no heartbeat meanwhile.
func (m *Monitor) Hibernating() bool { return m.critical.Hibernating() }

// InspectedLag is the inspected server's lag as last read; ok is false before the first reading
// and when the last one failed.
func (m *Monitor) InspectedLag() (lag time.Duration, ok bool) {
	l, read := m.inspectedLag.Load()
	return l.Lag, read && l.Err == nil
}

// QueryVerdict is the last verdict of --throttle-query; ok is false before the first reading.
func (m *Monitor) QueryVerdict() (v Verdict, ok bool) { return m.queryResult.Load() }
