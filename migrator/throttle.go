package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/throttle"
)

// The throttle's side of the migrator (doc/throttle.md): the settings an operator may change
// (knobs by gh-ost's names), the readings background loops refresh beside the applier, and the
// rules the copy's throttler asks before each chunk. Rules only read the last reading, so a slow
// server or URL never slows the copy's check; while throttled the copy waits and the binlog
// applier keeps applying.

// Intervals of the readings, as gh-ost's (lag: throttle.LagCheckInterval; HTTP: its flag).
const (
	generalCheckInterval = time.Second // max-load, critical-load, throttle-query
	minMaxLag            = 100 * time.Millisecond
	controlReplicaPort   = 3306 // gh-ost's port for a control replica given without one
)

// throttleSignals are the throttle's settings and readings.
type throttleSignals struct {
	maxLag       atomic.Int64 // nanoseconds
	maxLoad      atomic.Pointer[throttle.Load]
	criticalLoad atomic.Pointer[throttle.Load]
	niceRatio    atomic.Uint64 // math.Float64bits
	query        atomic.Pointer[string]
	httpURL      atomic.Pointer[string]
	replicas     atomic.Pointer[[]string] // host:port

	status       throttle.Sample[throttle.StatusValues]
	inspectedLag throttle.Sample[throttle.Lag]
	replicaLag   throttle.Sample[[]throttle.Lag]
	queryResult  throttle.Sample[throttle.Verdict]
	httpResult   throttle.Sample[throttle.Verdict]
	critical     *throttle.CriticalLoad
}

// newThrottleSignals takes the settings from cfg (Validate has checked them).
func newThrottleSignals(cfg Config) *throttleSignals {
	t := &throttleSignals{}
	t.setMaxLag(cfg.MaxLag)
	maxLoad, _ := throttle.ParseLoad(cfg.MaxLoad)
	critical, _ := throttle.ParseLoad(cfg.CriticalLoad)
	replicas, _ := parseControlReplicas(cfg.ThrottleControlReplicas)
	t.maxLoad.Store(&maxLoad)
	t.criticalLoad.Store(&critical)
	t.setNiceRatio(cfg.NiceRatio)
	t.query.Store(&cfg.ThrottleQuery)
	t.httpURL.Store(&cfg.ThrottleHTTP)
	t.replicas.Store(&replicas)
	t.critical = &throttle.CriticalLoad{
		Thresholds: func() throttle.Load { return *t.criticalLoad.Load() },
		Recheck:    cfg.CriticalLoadInterval,
		Hibernate:  cfg.CriticalLoadHibernate,
	}
	return t
}

func (t *throttleSignals) setMaxLag(d time.Duration)  { t.maxLag.Store(int64(max(d, minMaxLag))) }
func (t *throttleSignals) maxLagLimit() time.Duration { return time.Duration(t.maxLag.Load()) }
func (t *throttleSignals) setNiceRatio(r float64) {
	t.niceRatio.Store(math.Float64bits(throttle.ClampNiceRatio(r)))
}
func (t *throttleSignals) nice() float64 { return math.Float64frombits(t.niceRatio.Load()) }

// rules are the throttle's rules in gh-ost's order (hibernation, the operator, flag files,
// max-load, throttle-query, HTTP, lag), then the applier's backlog.
func (t *throttleSignals) rules(cfg Config, user, backlog throttle.Rule) []throttle.Rule {
	return []throttle.Rule{
		t.critical,
		user,
		throttle.FlagFile(func() string { return cfg.ThrottleFlagFile }),
		throttle.FlagFile(func() string { return cfg.ThrottleAdditionalFlagFile }),
		throttle.MaxLoad(func() throttle.Load { return *t.maxLoad.Load() }, &t.status),
		throttle.Sampled(&t.queryResult),
		throttle.Sampled(&t.httpResult),
		throttle.MaxLag(t.maxLagLimit, &t.inspectedLag, &t.replicaLag),
		backlog,
	}
}

// registerThrottleKnobs adds the throttle's settings to the levers, parsed as gh-ost parses them.
func (l *levers) registerThrottleKnobs(t *throttleSignals) {
	l.register("max-lag-millis", knob{
		get: func() string { return strconv.FormatInt(t.maxLagLimit().Milliseconds(), 10) },
		set: func(v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a whole number of milliseconds", v)
			}
			t.setMaxLag(time.Duration(n) * time.Millisecond) // below 100 is taken as 100, as gh-ost
			return nil
		},
	})
	l.register("max-load", loadKnob(&t.maxLoad))
	l.register("critical-load", loadKnob(&t.criticalLoad))
	l.register("nice-ratio", knob{
		get: func() string { return strconv.FormatFloat(t.nice(), 'f', -1, 64) },
		set: func(v string) error {
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(r) {
				return fmt.Errorf("%q is not a number", v)
			}
			t.setNiceRatio(r) // into [0, 100], as gh-ost
			return nil
		},
	})
	l.register("throttle-query", stringKnob(&t.query, throttle.CheckQuery))
	l.register("throttle-http", stringKnob(&t.httpURL, throttle.ParseHTTPURL))
	l.register("throttle-control-replicas", knob{
		get: func() string { return strings.Join(*t.replicas.Load(), ",") },
		set: func(v string) error {
			rs, err := parseControlReplicas(v)
			if err != nil {
				return err
			}
			t.replicas.Store(&rs)
			return nil
		},
	})
}

func loadKnob(p *atomic.Pointer[throttle.Load]) knob {
	return knob{
		get: func() string { return p.Load().String() },
		set: func(v string) error {
			l, err := throttle.ParseLoad(v)
			if err != nil {
				return err
			}
			p.Store(&l)
			return nil
		},
	}
}

func stringKnob(p *atomic.Pointer[string], check func(string) error) knob {
	return knob{
		get: func() string { return *p.Load() },
		set: func(v string) error {
			if err := check(v); err != nil {
				return err
			}
			p.Store(&v)
			return nil
		},
	}
}

// parseControlReplicas reads --throttle-control-replicas: host[:port] separated by commas (port
// 3306 when not given, as gh-ost). It returns them as host:port.
func parseControlReplicas(s string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		host, port, err := dbconn.ParseHostPort(part, controlReplicaPort)
		if err != nil {
			return nil, fmt.Errorf("throttle-control-replicas: %w", err)
		}
		out = append(out, net.JoinHostPort(host, strconv.Itoa(port)))
	}
	return out, nil
}

// validateThrottle checks the throttle's flags without touching a server.
func (c *Config) validateThrottle() error {
	if _, err := throttle.ParseLoad(c.MaxLoad); err != nil {
		return fmt.Errorf("%w: --max-load: %v", ErrUsage, err)
	}
	if _, err := throttle.ParseLoad(c.CriticalLoad); err != nil {
		return fmt.Errorf("%w: --critical-load: %v", ErrUsage, err)
	}
	if _, err := parseControlReplicas(c.ThrottleControlReplicas); err != nil {
		return fmt.Errorf("%w: --%v", ErrUsage, err)
	}
	if err := throttle.CheckQuery(c.ThrottleQuery); err != nil {
		return fmt.Errorf("%w: --throttle-query: %v", ErrUsage, err)
	}
	if err := throttle.ParseHTTPURL(c.ThrottleHTTP); err != nil {
		return fmt.Errorf("%w: --%v", ErrUsage, err)
	}
	switch {
	case c.ThrottleHTTPInterval <= 0 || c.ThrottleHTTPTimeout <= 0:
		return fmt.Errorf("%w: --throttle-http-interval-millis and --throttle-http-timeout-millis must be positive", ErrUsage)
	case c.CriticalLoadInterval < 0 || c.CriticalLoadHibernate < 0:
		return fmt.Errorf("%w: --critical-load-interval-millis and --critical-load-hibernate-seconds must not be negative", ErrUsage)
	}
	return nil
}

// copyGate is what the copy waits on before each chunk: the rest --nice-ratio asks after the
// asking session's last chunk, then the throttler. It logs when the copy is held back and when it
// goes on: once for all the copy sessions, from the first held to the last released. Safe for
// concurrent use (one call per copy session at a time).
type copyGate struct {
	nice      throttle.Nice
	throttler *throttle.Throttler
	log       zerolog.Logger

	held  atomic.Int32 // sessions waiting on the throttler now
	since atomic.Int64 // when the first of them began waiting, in Unix nanoseconds
}

func (g *copyGate) Wait(ctx context.Context, lastChunk time.Duration) error {
	if err := g.nice.Rest(ctx, lastChunk); err != nil {
		return err
	}
	throttled, reason := g.throttler.Check(ctx)
	if !throttled {
		return g.throttler.Wait(ctx)
	}
	if g.held.Add(1) == 1 {
		g.since.Store(time.Now().UnixNano())
		g.log.Info().Str("reason", reason).Msg("copy throttled; the binlog applier keeps applying")
	}
	err := g.throttler.Wait(ctx)
	if g.held.Add(-1) == 0 && err == nil {
		held := time.Since(time.Unix(0, g.since.Load()))
		g.log.Info().Str("throttled_for", held.Round(time.Millisecond).String()).Msg("copy no longer throttled")
	}
	return err
}

// startThrottleReadings starts the loops that refresh the throttle's readings, in the run's
// background group: a critical load met ends the run through it.
func (m *Migrator) startThrottleReadings(bg *background, s *session) {
	t := m.levers.signals
	if m.cfg.ReplicationLagQuery != "" {
		m.log.Warn().Msg("--replication-lag-query is deprecated (as in gh-ost) and ignored: lag is read from the migration's heartbeat on each server")
	}
	bg.Go(func(ctx context.Context) error { return m.watchLoad(ctx, s.primary) })
	lagEvery := func() time.Duration { return throttle.LagCheckInterval(t.maxLagLimit(), m.cfg.HeartbeatInterval) }
	lr := newLagReader(m, s)
	pollIn(bg, lagEvery, &t.inspectedLag, lr.inspected, nil)
	pollIn(bg, lagEvery, &t.replicaLag, lr.replicas, lr.close) // the pools are the replicas loop's
	pollIn(bg, func() time.Duration { return generalCheckInterval }, &t.queryResult, func(ctx context.Context) throttle.Verdict {
		return runThrottleQuery(ctx, s.primary, *t.query.Load())
	}, nil)
	bg.Go(func(ctx context.Context) error {
		m.pollThrottleHTTP(ctx)
		return nil
	})
}

// pollIn refreshes s with read every interval in bg until the run ends, then calls done (if any).
func pollIn[T any](bg *background, every func() time.Duration, s *throttle.Sample[T], read func(context.Context) T, done func()) {
	bg.Go(func(ctx context.Context) error {
		if done != nil {
			defer done()
		}
		throttle.Poll(ctx, every, s, read)
		return nil
	})
}

// watchLoad reads the primary's global status every second while --max-load or --critical-load
// is set, for the max-load rule, and judges the critical load: a met critical load ends the run
// (or hibernates it). Nothing is read while hibernating.
func (m *Migrator) watchLoad(ctx context.Context, db *sql.DB) error {
	t := m.levers.signals
	t.critical.Read = func(ctx context.Context) (map[string]int64, error) { return readStatusValues(ctx, db) }
	for {
		if len(*t.maxLoad.Load())+len(*t.criticalLoad.Load()) > 0 && !t.critical.Hibernating() {
			values, err := readStatusValues(ctx, db)
			if ctx.Err() != nil {
				return nil
			}
			v := throttle.StatusValues{Values: values, Err: err}
			t.status.Store(v)
			if err := t.critical.Evaluate(ctx, v); err != nil {
				m.log.Error().Err(err).Msg("critical load: aborting the migration; the original table is untouched")
				return fmt.Errorf("%w; aborting, the original table is untouched", err)
			}
			if t.critical.Hibernating() {
				m.log.Warn().Dur("for", m.cfg.CriticalLoadHibernate).Msg("critical load met: hibernating (no copy, no heartbeat) instead of aborting")
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(generalCheckInterval):
		}
	}
}

// readStatusValues reads the server's global status variables that hold whole numbers.
func readStatusValues(ctx context.Context, db *sql.DB) (map[string]int64, error) {
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS")
	if err != nil {
		return nil, fmt.Errorf("read global status: %w", err)
	}
	defer rows.Close()
	values := map[string]int64{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, fmt.Errorf("read global status: %w", err)
		}
		if n, err := strconv.ParseInt(value, 10, 64); err == nil {
			values[strings.ToLower(name)] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read global status: %w", err)
	}
	return values, nil
}

// runThrottleQuery runs --throttle-query (when set) and judges its result.
func runThrottleQuery(ctx context.Context, db *sql.DB, q string) throttle.Verdict {
	if q == "" {
		return throttle.Verdict{}
	}
	n, err := throttle.RunQuery(ctx, db, q) // one SELECT, in a read-only transaction
	return throttle.QueryVerdict(n, err)
}

// pollThrottleHTTP checks --throttle-http (when set) every --throttle-http-interval-millis.
func (m *Migrator) pollThrottleHTTP(ctx context.Context) {
	t := m.levers.signals
	client := throttle.NewHTTPClient(m.cfg.ThrottleHTTPTimeout)
	defer client.CloseIdleConnections()
	throttle.Poll(ctx, func() time.Duration { return m.cfg.ThrottleHTTPInterval }, &t.httpResult, func(ctx context.Context) throttle.Verdict {
		url := *t.httpURL.Load()
		if url == "" {
			return throttle.Verdict{}
		}
		status, err := throttle.HTTPStatus(ctx, client, url)
		return throttle.HTTPVerdict(url, status, err, m.cfg.IgnoreHTTPErrors)
	})
}
