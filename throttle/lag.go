package throttle

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
)

// Lag is the replication lag of one server, as its copy of the migration's heartbeat shows it, or
// the error of reading it.
type Lag struct {
	Host string // host:port
	Lag  time.Duration
	Err  error
}

// HeartbeatLag is how far behind now a heartbeat written at written (by the migration's own
// clock) is; a heartbeat from the future lags 0.
func HeartbeatLag(written, now time.Time) time.Duration {
	return max(0, now.Sub(written))
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

// lagReader reads the migration's heartbeat on the inspected server and on the control replicas
// (each on a pool of its own, opened when first listed, closed when the run ends).
type lagReader struct {
	m     *Monitor
	r     Readers
	pools map[string]*sql.DB // by host:port; used by the replicas loop only
}

func (lr *lagReader) close() {
	for _, db := range lr.pools {
		db.Close()
	}
}

// inspected is the inspected server's lag.
func (lr *lagReader) inspected(ctx context.Context) Lag {
	addr := lr.r.InspectedAddr
	if lr.r.InspectedLag == nil {
		return lr.heartbeat(ctx, lr.r.Inspected, addr)
	}
	ctx, cancel := context.WithTimeout(ctx, lr.m.cfg.LagReadTimeout)
	defer cancel()
	lag, err := lr.r.InspectedLag(ctx)
	return Lag{Host: addr, Lag: lag, Err: err}
}

// replicas are the control replicas' lags, read in parallel.
func (lr *lagReader) replicas(ctx context.Context) []Lag {
	addrs := *lr.m.replicas.Load()
	lags := make([]Lag, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		db, err := lr.pool(ctx, addr)
		if err != nil {
			lags[i] = Lag{Host: addr, Err: err}
			continue
		}
		wg.Go(func() { lags[i] = lr.heartbeat(ctx, db, addr) })
	}
	wg.Wait()
	return lags
}

// pool is the pool on the control replica addr, opened with the migration's login.
func (lr *lagReader) pool(ctx context.Context, addr string) (*sql.DB, error) {
	if db, ok := lr.pools[addr]; ok {
		return db, nil
	}
	host, port, err := dbconn.ParseHostPort(addr, ControlReplicaPort)
	if err != nil {
		return nil, err
	}
	c := lr.r.Login
	c.Host, c.Port, c.MultiStatements = host, port, false
	db, err := dbconn.Open(ctx, c, "")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	lr.pools[addr] = db
	return db, nil
}

// heartbeat reads the heartbeat on db and compares it with now (the writer's clock is ours).
func (lr *lagReader) heartbeat(ctx context.Context, db *sql.DB, addr string) Lag {
	ctx, cancel := context.WithTimeout(ctx, lr.m.cfg.LagReadTimeout)
	defer cancel()
	written, err := lr.r.Heartbeat(ctx, db)
	if err != nil {
		return Lag{Host: addr, Err: err}
	}
	return Lag{Host: addr, Lag: HeartbeatLag(written, time.Now())}
}

// SecondsBehind is a replica's lag as its replication status on db (named addr) gives it, in whole
// seconds: the inspected server's lag in the replica modes (Readers.InspectedLag).
func SecondsBehind(ctx context.Context, db *sql.DB, flavor dbconn.Flavor, addr string) (time.Duration, error) {
	rs, err := dbconn.ReadReplicaStatus(ctx, db, flavor, addr)
	switch {
	case err != nil:
		return 0, err
	case rs == nil:
		return 0, errors.New("not a replica")
	}
	n, err := strconv.ParseInt(rs.SecondsBehind, 10, 64)
	if err != nil {
		return 0, errors.New("replication is not running (Seconds_Behind_Master is NULL)")
	}
	return time.Duration(n) * time.Second, nil
}
