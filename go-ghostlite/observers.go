package main

import (
	"time"

	"github.com/go-ghostlite/go-ghostlite/hooks"
	"github.com/go-ghostlite/go-ghostlite/metrics"
	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// metricsFlags configure package metrics, an observer of the run: the Prometheus endpoint, and
// gh-ost's StatsD push (--statsd-addr, --statsd-tags, --runtime-metrics-interval).
type metricsFlags struct {
	addr            string
	statsdAddr      string
	statsdTags      []string
	runtimeInterval time.Duration // --runtime-metrics-interval, in seconds (0: never)
}

// observers are what watches the run from outside: the hooks, the metrics endpoint and StatsD.
type observers struct {
	hooks   *hooks.Hooks     // nil without --hooks-path
	metrics *metrics.Metrics // nil without --metrics-addr
	statsd  *metrics.StatsD  // nil without --statsd-addr
}

// attachObservers attaches the hooks and the metrics endpoint that the command line asks for to
// m, and starts the endpoint (a failure to listen is returned before anything runs).
func attachObservers(inv invocation, m *migrator.Migrator) (*observers, error) {
	cfg, o := inv.Config, &observers{}
	if f := inv.Hooks; f.path != "" {
		o.hooks = hooks.New(hooks.Config{Path: f.path, Hint: f.hint, HintOwner: f.hintOwner, HintToken: f.hintToken,
			StatusInterval: f.statusInterval,
			Alter:          cfg.Alter, DryRun: !cfg.Execute, Revert: cfg.Revert, Logger: cfg.Logger}, m)
		m.Observe(o.hooks)
		m.GateStep(o.hooks.Step)
	}
	if addr := inv.Metrics.addr; addr != "" {
		o.metrics = metrics.New(m, cfg.Logger)
		m.Observe(o.metrics)
		if _, err := o.metrics.Listen(addr); err != nil {
			return nil, err
		}
	}
	if f := inv.Metrics; f.statsdAddr != "" {
		s, err := metrics.NewStatsD(f.statsdAddr, f.statsdTags, m.Status, time.Second, f.runtimeInterval, cfg.Logger)
		if err != nil {
			o.close()
			return nil, err
		}
		o.statsd = s
	}
	return o, nil
}

// close stops the observers after the run.
func (o *observers) close() {
	if o.hooks != nil {
		o.hooks.Wait()
	}
	if o.metrics != nil {
		o.metrics.Close()
	}
	if o.statsd != nil {
		o.statsd.Close()
	}
}
