package throttle

import (
	"context"
	"fmt"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
)

// Lag is the replication lag of one server, as its copy of the migration's heartbeat shows it, or
// the error of reading it.
type Lag struct {
	Host string // host:port
	Lag  time.Duration
	Err  error
}

// HeartbeatLag is how far behind now a heartbeat written at written (the changelog's value, UTC
// RFC3339Nano, by the migration's own clock) is.
func HeartbeatLag(written string, now time.Time) (time.Duration, error) {
	t, err := time.Parse(time.RFC3339Nano, written)
	if err != nil {
		return 0, fmt.Errorf("heartbeat %q is not a time: %w", written, err)
	}
	return max(0, now.Sub(t)), nil
}

// FormatLag prints a lag as every duration is logged: to the millisecond below a second ("503ms"),
// so a lag just above a limit of 500ms never reads as 500ms, and to the hundredth above ("2.48s").
func FormatLag(d time.Duration) string { return logfmt.Duration(d) }

// MaxLag throttles while the inspected server's lag, or any control replica's, is above the limit
// limit returns (read at each check: --max-lag-millis may change). A lag that could not be read
// throttles too. The inspected server comes first ("lag=1.5s"), then the worst control replica
// ("db2:3306 replica-lag=3s"). Servers not read yet do not throttle.
func MaxLag(limit func() time.Duration, inspected *Sample[Lag], replicas *Sample[[]Lag]) Rule {
	return RuleFunc(func(context.Context) (bool, string) {
		max := limit()
		if l, ok := inspected.Load(); ok {
			switch {
			case l.Err != nil:
				return true, "lag unknown: " + l.Err.Error()
			case l.Lag > max:
				return true, "lag=" + FormatLag(l.Lag)
			}
		}
		ls, _ := replicas.Load()
		var worst *Lag
		for i := range ls {
			l := &ls[i]
			if l.Err != nil {
				return true, fmt.Sprintf("%s replica-lag unknown: %v", l.Host, l.Err)
			}
			if worst == nil || l.Lag > worst.Lag {
				worst = l
			}
		}
		if worst != nil && worst.Lag > max {
			return true, fmt.Sprintf("%s replica-lag=%s", worst.Host, FormatLag(worst.Lag))
		}
		return false, ""
	})
}

// LagCheckInterval is how often lag is read, as gh-ost does: every heartbeat interval while the
// limit is under a second, every second otherwise.
func LagCheckInterval(limit, heartbeat time.Duration) time.Duration {
	if limit < time.Second {
		return heartbeat
	}
	return time.Second
}
