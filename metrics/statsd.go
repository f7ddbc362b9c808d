package metrics

import (
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/status"
)

// StatsD pushes gh-ost's gauges to a StatsD server (--statsd-addr, --statsd-tags,
// --runtime-metrics-interval), for gh-ost users whose dashboards read them. It is a plain writer
// of the StatsD line protocol over UDP (or a unix datagram socket, for an address starting with
// '/'), tags in DogStatsD's "|#k:v,..." form; datagrams may be lost, as StatsD's always may. Every
// interval it sends the run's gauges from Status under gh-ost's names (namespace "gh_ost."), and
// every runtime interval (0: never) the Go runtime's. It reads Status only; it never steers the run.
type StatsD struct {
	conn   net.Conn
	status func() status.Status
	suffix string // "|#tags" or ""
	log    zerolog.Logger
	stop   chan struct{}
	done   sync.WaitGroup
}

// StatsDNamespace prefixes every metric, as gh-ost's.
const StatsDNamespace = "gh_ost."

// NewStatsD connects to addr (host:port, or a unix socket path) and starts pushing every
// interval, and the Go runtime's gauges every runtimeInterval (0: not at all).
func NewStatsD(addr string, tags []string, status func() status.Status, interval, runtimeInterval time.Duration, log zerolog.Logger) (*StatsD, error) {
	network := "udp"
	if strings.HasPrefix(addr, "/") {
		network = "unixgram"
	}
	conn, err := net.Dial(network, addr)
	if err != nil {
		return nil, fmt.Errorf("--statsd-addr %s: %w", addr, err)
	}
	s := &StatsD{conn: conn, status: status, log: log.With().Str("component", "statsd").Logger(), stop: make(chan struct{})}
	if len(tags) > 0 {
		s.suffix = "|#" + strings.Join(tags, ",")
	}
	s.done.Add(1)
	go s.loop(interval, runtimeInterval)
	return s, nil
}

func (s *StatsD) loop(interval, runtimeInterval time.Duration) {
	defer s.done.Done()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var runtimeTick <-chan time.Time
	if runtimeInterval > 0 {
		rt := time.NewTicker(runtimeInterval)
		defer rt.Stop()
		runtimeTick = rt.C
	}
	for {
		select {
		case <-s.stop:
			s.send(s.statusLines(s.status())) // the last values, as the run ended
			return
		case <-tick.C:
			s.send(s.statusLines(s.status()))
		case <-runtimeTick:
			s.send(s.runtimeLines())
		}
	}
}

// statusLines are the run's gauges under gh-ost's names.
func (s *StatsD) statusLines(st status.Status) []string {
	lag := st.HeartbeatLag.Seconds()
	if st.HeartbeatLag < 0 {
		lag = 0
	}
	return []string{
		s.gauge("row_copy.rows_copied", float64(st.RowsCopied)),
		s.gauge("row_copy.rows_estimate", float64(st.RowsEstimate)),
		s.gauge("dml.events_applied", float64(st.EventsApplied)),
		s.gauge("binlog.backlog_size", float64(st.Backlog)),
		s.gauge("lag.heartbeat_seconds", lag),
		s.gauge("throttle.active", boolValue(st.Throttled)),
	}
}

// runtimeLines are the Go runtime's gauges (gh-ost's go_runtime.*).
func (s *StatsD) runtimeLines() []string {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return []string{
		s.gauge("go_runtime.goroutines", float64(runtime.NumGoroutine())),
		s.gauge("go_runtime.heap_alloc_bytes", float64(ms.HeapAlloc)),
		s.gauge("go_runtime.gc_count", float64(ms.NumGC)),
	}
}

func (s *StatsD) gauge(name string, v float64) string {
	return fmt.Sprintf("%s%s:%g|g%s", StatsDNamespace, name, v, s.suffix)
}

// send writes the lines in one datagram; a failure is logged once at debug level (StatsD is lossy).
func (s *StatsD) send(lines []string) {
	if _, err := s.conn.Write([]byte(strings.Join(lines, "\n"))); err != nil {
		s.log.Debug().Err(err).Msg("statsd write failed")
	}
}

// Close sends the last values and stops.
func (s *StatsD) Close() {
	close(s.stop)
	s.done.Wait()
	_ = s.conn.Close()
}
