// Package metrics serves a migration's metrics in Prometheus' text format (--metrics-addr): rows
// copied and estimated, events applied, backlog, heartbeat lag, throttle state and reason, phase,
// postponement, and the cut-over attempts with their durations. It is an observer of the run
// (observe.EventObserver) and reads status.Status at scrape time; it never steers the run.
//
// Invariants:
//   - the values of the run are read when scraped (a custom collector over Controls.Status), so a
//     scrape never sees a value older than itself; only the cut-over attempts are counted from
//     events, as Status does not keep them;
//   - the endpoint listens before the run starts and until Close, on the address given only;
//   - every series carries the database and table as labels; a label that changes (the throttle
//     reason, the phase) never leaves a stale series behind.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/observe"
)

const namespace = "ghostlite"

// Metrics is the registry of one migration's metrics (of each table of a set) and its HTTP
// endpoint.
type Metrics struct {
	log      zerolog.Logger
	registry *prometheus.Registry
	tables   []*Table

	srv  *http.Server
	addr string        // where it listens, once listening
	done chan struct{} // closed when the server stops serving
}

// Table is the metrics of one table: its series, labelled by its database and name, and the
// observer that counts its cut-over attempts.
type Table struct {
	attempts        *prometheus.CounterVec   // by outcome
	attemptDuration *prometheus.HistogramVec // by outcome
}

var (
	_ observe.EventObserver = (*Metrics)(nil)
	_ observe.EventObserver = (*Table)(nil)
)

// New registers the metrics of the migration that c controls (and the Go runtime's).
func New(c observe.Controls, log zerolog.Logger) *Metrics {
	return NewSet([]observe.Controls{c}, log)
}

// NewSet registers the metrics of each table of a set (cs, one Controls per table; every series
// labelled by its table) and the Go runtime's, on one endpoint. Tables()[i] observes cs[i]'s run.
func NewSet(cs []observe.Controls, log zerolog.Logger) *Metrics {
	m := &Metrics{log: log.With().Str("component", "metrics").Logger(), registry: prometheus.NewRegistry()}
	for _, c := range cs {
		m.tables = append(m.tables, m.register(c))
	}
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// register adds the series of the migration c controls.
func (m *Metrics) register(c observe.Controls) *Table {
	st := c.Status()
	labels := prometheus.Labels{"database": st.Database, "table": st.Table}
	t := &Table{}
	t.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "cut_over_attempts_total", ConstLabels: labels,
		Help: "Cut-over attempts that ended, by outcome (success or failure).",
	}, []string{"outcome"})
	t.attemptDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "cut_over_attempt_duration_seconds", ConstLabels: labels,
		Help:    "How long each cut-over attempt took, by outcome.",
		Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
	}, []string{"outcome"})
	m.registry.MustRegister(newStatusCollector(c, labels), t.attempts, t.attemptDuration)
	return t
}

// Tables are the metrics of each table, in the order given to NewSet.
func (m *Metrics) Tables() []*Table { return m.tables }

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Listen binds addr (host:port; port 0 picks one) and serves /metrics there until Close. It
// returns the address it listens on. A failure to bind is returned at once.
func (m *Metrics) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	m.done = make(chan struct{})
	go func() {
		defer close(m.done)
		if err := m.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			m.log.Error().Err(err).Msg("the metrics endpoint stopped")
		}
	}()
	m.addr = ln.Addr().String()
	m.log.Info().Str("addr", m.addr).Msgf("serving metrics on http://%s/metrics", m.addr)
	return m.addr, nil
}

// Addr is the address the endpoint listens on ("" before Listen).
func (m *Metrics) Addr() string { return m.addr }

// Close stops the endpoint, letting a scrape in progress finish (within a few seconds).
func (m *Metrics) Close() {
	if m.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.srv.Shutdown(ctx); err != nil {
		_ = m.srv.Close()
	}
	<-m.done
}

// PhaseChanged implements observe.Observer: the phase is read from Status when scraped.
func (m *Metrics) PhaseChanged(observe.PhaseChange) {}

// Event counts the cut-over attempts of the first table (the only one, without a set).
// Implements observe.EventObserver.
func (m *Metrics) Event(e observe.Event) { m.tables[0].Event(e) }

// PhaseChanged implements observe.Observer: the phase is read from Status when scraped.
func (t *Table) PhaseChanged(observe.PhaseChange) {}

// Event counts the table's cut-over attempts. Implements observe.EventObserver.
func (t *Table) Event(e observe.Event) {
	if e.Kind != observe.EventCutOverAttempt {
		return
	}
	outcome := "success"
	if e.Err != nil {
		outcome = "failure"
	}
	t.attempts.WithLabelValues(outcome).Inc()
	t.attemptDuration.WithLabelValues(outcome).Observe(e.Took.Seconds())
}
