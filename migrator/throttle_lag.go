package migrator

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/throttle"
)

// lagReadTimeout bounds one lag read; a read that takes longer counts as an error (it throttles).
const lagReadTimeout = 2 * time.Second

// lagReader reads the migration's heartbeat on the inspected server and on the control replicas
// (each on a pool of its own, opened when first listed). In the replica modes the heartbeat is
// written on the inspected server itself, so its lag is its Seconds_Behind_Master, as gh-ost's.
type lagReader struct {
	m     *Migrator
	s     *session
	query string
	pools map[string]*sql.DB
}

func newLagReader(m *Migrator, s *session) *lagReader {
	p := s.plan
	q := "SELECT value FROM " + table.Qualify(p.Original.Schema, p.ChangelogTable) + " WHERE hint = '" + table.HintHeartbeat + "'"
	return &lagReader{m: m, s: s, query: q, pools: map[string]*sql.DB{}}
}

func (lr *lagReader) close() {
	for _, db := range lr.pools {
		db.Close()
	}
}

// inspected is the inspected server's lag.
func (lr *lagReader) inspected(ctx context.Context) throttle.Lag {
	addr := lr.m.cfg.Conn.Addr()
	if lr.m.cfg.onReplica() {
		return secondsBehind(ctx, lr.s.inspected, lr.s.plan.Flavor, addr)
	}
	return heartbeatLag(ctx, lr.s.inspected, addr, lr.query)
}

// replicas are the control replicas' lags, read in parallel.
func (lr *lagReader) replicas(ctx context.Context) []throttle.Lag {
	addrs := *lr.m.levers.signals.replicas.Load()
	lags := make([]throttle.Lag, len(addrs))
	var wg sync.WaitGroup
	for i, addr := range addrs {
		db, err := lr.pool(ctx, addr)
		if err != nil {
			lags[i] = throttle.Lag{Host: addr, Err: err}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lags[i] = heartbeatLag(ctx, db, addr, lr.query)
		}()
	}
	wg.Wait()
	return lags
}

// pool is the pool on the control replica addr, opened with the migration's credentials.
func (lr *lagReader) pool(ctx context.Context, addr string) (*sql.DB, error) {
	if db, ok := lr.pools[addr]; ok {
		return db, nil
	}
	host, port, err := dbconn.ParseHostPort(addr, controlReplicaPort)
	if err != nil {
		return nil, err
	}
	c := lr.m.cfg.Conn
	c.Host, c.Port, c.MultiStatements = host, port, false
	db, err := dbconn.Open(ctx, c, "")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	lr.pools[addr] = db
	return db, nil
}

// errNoHeartbeat is a server whose changelog holds no heartbeat yet.
var errNoHeartbeat = errors.New("no heartbeat yet")

// heartbeatLag reads the heartbeat on db and compares it with now (the writer's clock is ours).
func heartbeatLag(ctx context.Context, db *sql.DB, addr, query string) throttle.Lag {
	ctx, cancel := context.WithTimeout(ctx, lagReadTimeout)
	defer cancel()
	var written string
	err := db.QueryRowContext(ctx, query).Scan(&written)
	if errors.Is(err, sql.ErrNoRows) {
		err = errNoHeartbeat
	}
	if err != nil {
		return throttle.Lag{Host: addr, Err: err}
	}
	lag, err := throttle.HeartbeatLag(written, time.Now())
	return throttle.Lag{Host: addr, Lag: lag, Err: err}
}

// secondsBehind is a replica's lag as its replication status gives it (whole seconds).
func secondsBehind(ctx context.Context, db *sql.DB, f dbconn.Flavor, addr string) throttle.Lag {
	ctx, cancel := context.WithTimeout(ctx, lagReadTimeout)
	defer cancel()
	rs, err := dbconn.ReadReplicaStatus(ctx, db, f, addr)
	switch {
	case err != nil:
		return throttle.Lag{Host: addr, Err: err}
	case rs == nil:
		return throttle.Lag{Host: addr, Err: errors.New("not a replica")}
	}
	n, err := strconv.ParseInt(rs.SecondsBehind, 10, 64)
	if err != nil {
		return throttle.Lag{Host: addr, Err: errors.New("replication is not running (Seconds_Behind_Master is NULL)")}
	}
	return throttle.Lag{Host: addr, Lag: time.Duration(n) * time.Second}
}
