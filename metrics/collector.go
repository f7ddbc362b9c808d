package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
	"github.com/go-ghostlite/go-ghostlite/throttle"
)

// statusCollector reads the run's Status at each scrape.
type statusCollector struct {
	controls observe.Controls

	rowsCopied, rowsEstimated, progress   *prometheus.Desc
	eventsApplied, backlog, heartbeatLag  *prometheus.Desc
	throttled, postponed, phase           *prometheus.Desc
	elapsed, eta, chunkSize, dmlBatchSize *prometheus.Desc
}

func newStatusCollector(c observe.Controls, labels prometheus.Labels) *statusCollector {
	d := func(name, help string, variable ...string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(namespace, "", name), help, variable, labels)
	}
	return &statusCollector{
		controls:      c,
		rowsCopied:    d("rows_copied_total", "Rows copied from the original into the ghost table."),
		rowsEstimated: d("rows_estimated", "Rows the copy expects (the optimizer's estimate, or the count with --exact-rowcount)."),
		progress:      d("copy_progress_ratio", "Share of the copy done, 0 to 1."),
		eventsApplied: d("events_applied_total", "Binlog row events applied to the ghost table."),
		backlog:       d("backlog_events", "Binlog events read and not applied yet."),
		heartbeatLag:  d("heartbeat_lag_seconds", "Time since the applier last saw a heartbeat of this run (absent before the first)."),
		throttled:     d("throttled", "1 for the kind of reason the copy is throttled for now, 0 for the other kinds (all 0: not throttled).", "reason"),
		postponed:     d("cut_over_postponed", "1 while the run waits in the postponed phase (flag file or command), 0 otherwise."),
		phase:         d("phase", "1 for the run's current phase, 0 for the others.", "phase"),
		elapsed:       d("elapsed_seconds", "Time since the run started executing."),
		eta:           d("eta_seconds", "Time the copy still needs at the rate seen so far (absent while unknown)."),
		chunkSize:     d("chunk_size_rows", "Rows per copy chunk (--chunk-size; changes with the chunk-size command)."),
		dmlBatchSize:  d("dml_batch_size_events", "Binlog events applied per transaction (--dml-batch-size)."),
	}
}

// Describe implements prometheus.Collector.
func (c *statusCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.rowsCopied, c.rowsEstimated, c.progress, c.eventsApplied, c.backlog,
		c.heartbeatLag, c.throttled, c.postponed, c.phase, c.elapsed, c.eta, c.chunkSize, c.dmlBatchSize} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *statusCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.controls.Status()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	ch <- prometheus.MustNewConstMetric(c.rowsCopied, prometheus.CounterValue, float64(st.RowsCopied))
	ch <- prometheus.MustNewConstMetric(c.eventsApplied, prometheus.CounterValue, float64(st.EventsApplied))
	gauge(c.rowsEstimated, float64(st.RowsEstimate))
	gauge(c.progress, st.Progress()/100)
	gauge(c.backlog, float64(st.Backlog))
	if st.HeartbeatLag >= 0 {
		gauge(c.heartbeatLag, st.HeartbeatLag.Seconds())
	}
	// A bounded label: the reason's kind, never its text (a path, a URL, an error).
	kind := ""
	if st.Throttled {
		kind = throttle.ReasonKind(st.ThrottleReason)
	}
	for _, k := range throttle.ReasonKinds {
		gauge(c.throttled, boolValue(k == kind), k)
	}
	// Postponed while the run waits in that phase: the flag file may exist from the start, but
	// the copy is not the postponed wait.
	gauge(c.postponed, boolValue(st.Postponed && st.Phase == status.PhasePostponed))
	for p := status.PhasePrepare; p <= status.PhaseFailed; p++ {
		gauge(c.phase, boolValue(p == st.Phase), p.String())
	}
	gauge(c.elapsed, st.Elapsed.Seconds())
	if eta, ok := st.ETA(); ok {
		gauge(c.eta, eta.Seconds())
	}
	gauge(c.chunkSize, float64(st.ChunkSize))
	gauge(c.dmlBatchSize, float64(st.DMLBatchSize))
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
