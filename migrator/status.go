package migrator

import (
	"context"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
)

// Progress is logged every statusFastInterval during the first minute (a person is watching), then
// every statusInterval.
var (
	statusFastInterval = time.Second
	statusInterval     = 5 * time.Second
)

// startStatus logs a progress line until the returned stop is called.
func (m *Migrator) startStatus(ctx context.Context, c *rowCopier, a *binlogapply.Applier, started time.Time) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		last := time.Now()
		t := time.NewTicker(statusFastInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				if now.Sub(started) > time.Minute && now.Sub(last) < statusInterval {
					continue
				}
				last = now
				m.log.Info().Msg(statusLine(c, a.Stats(), time.Since(started)))
			}
		}
	}()
	return func() { cancel(); <-done }
}

// statusLine reads like: "copy 120000/1000000 rows (12.0%); applied 3400 events, backlog 0; elapsed 12s; ETA 1m28s".
func statusLine(c *rowCopier, st binlogapply.Stats, elapsed time.Duration) string {
	copied, total := c.progress()
	pct := 100.0
	if total > 0 {
		pct = float64(copied) * 100 / float64(total)
	}
	eta := "unknown"
	if copied > 0 && total >= copied {
		remaining := time.Duration(float64(elapsed) * float64(total-copied) / float64(copied))
		eta = remaining.Round(time.Second).String()
	}
	lag := "n/a"
	if !st.LastHeartbeat.IsZero() {
		lag = time.Since(st.LastHeartbeat).Round(time.Millisecond).String()
	}
	displaced := ""
	if st.Displaced > 0 {
		displaced = fmt.Sprintf(", displaced %d", st.Displaced)
	}
	return fmt.Sprintf("copy %d/%d rows (%.1f%%); applied %d events, backlog %d%s, lag %s; elapsed %s; ETA %s",
		copied, total, pct, st.EventsApplied, st.Backlog, displaced, lag, elapsed.Round(time.Second), eta)
}
