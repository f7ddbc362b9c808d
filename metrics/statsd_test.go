package metrics

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/status"
)

// The StatsD writer sends gh-ost's gauges, with the tags, over UDP; and the runtime's gauges.
func TestStatsDPushesGhostGauges(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = pc.Close() }()
	st := status.Status{RowsCopied: 42, RowsEstimate: 100, EventsApplied: 7, Backlog: 3, HeartbeatLag: 1500 * time.Millisecond, Throttled: true}
	s, err := NewStatsD(pc.LocalAddr().String(), []string{"env:test", "team:db"}, func() status.Status { return st },
		10*time.Millisecond, 10*time.Millisecond, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	seen := map[string]bool{}
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(5 * time.Second)
	for len(seen) < 7 && time.Now().Before(deadline) {
		_ = pc.SetReadDeadline(deadline)
		n, _, err := pc.ReadFrom(buf)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(buf[:n]), "\n") {
			seen[line] = true
			if strings.HasPrefix(line, "gh_ost.go_runtime.goroutines:") && strings.HasSuffix(line, "|g|#env:test,team:db") {
				seen["runtime"] = true
			}
		}
	}
	for _, want := range []string{
		"gh_ost.row_copy.rows_copied:42|g|#env:test,team:db",
		"gh_ost.row_copy.rows_estimate:100|g|#env:test,team:db",
		"gh_ost.dml.events_applied:7|g|#env:test,team:db",
		"gh_ost.binlog.backlog_size:3|g|#env:test,team:db",
		"gh_ost.lag.heartbeat_seconds:1.5|g|#env:test,team:db",
		"gh_ost.throttle.active:1|g|#env:test,team:db",
		"runtime",
	} {
		if !seen[want] {
			t.Errorf("no %q among %v", want, seen)
		}
	}
}
