package throttle

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// Readers are where a Monitor's loops read during a run. What the migration's heartbeat is and
// where it lives belong to the caller: the Monitor reads it through Heartbeat.
type Readers struct {
	Primary       *sql.DB // global status (max-load, critical-load) and --throttle-query
	Inspected     *sql.DB // the inspected server: its heartbeat gives its lag
	InspectedAddr string  // host:port, for the reasons
	// InspectedLag, when set, is the inspected server's lag instead of its heartbeat's (the replica
	// modes, where the heartbeat is written on the inspected server itself).
	InspectedLag func(ctx context.Context) (time.Duration, error)
	// Heartbeat reads the migration's heartbeat on db: when it was written (by the migration's
	// clock), or why there is none.
	Heartbeat func(ctx context.Context, db *sql.DB) (time.Time, error)
	// Login is how the control replicas are logged in to (host and port replaced by each one's).
	Login dbconn.Config
}

// Run refreshes the readings until ctx ends, then returns nil (its goroutines all ended): the
// inspected server's and the control replicas' lag, the throttle query, the HTTP check, and the
// global status for --max-load and --critical-load. A met critical load ends it with an error
// wrapping ErrCriticalLoad (unless it hibernates). Run once per migration.
func (m *Monitor) Run(ctx context.Context, r Readers) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lags := &lagReader{m: m, r: r, pools: map[string]*sql.DB{}}
	defer lags.close()
	var wg sync.WaitGroup
	lagEvery := func() time.Duration { return LagCheckInterval(m.maxLagLimit(), m.cfg.HeartbeatInterval) }
	checkEvery := func() time.Duration { return m.cfg.CheckInterval }
	wg.Go(func() { Poll(ctx, lagEvery, &m.inspectedLag, lags.inspected) })
	wg.Go(func() { Poll(ctx, lagEvery, &m.replicaLag, lags.replicas) })
	wg.Go(func() {
		Poll(ctx, checkEvery, &m.queryResult, func(ctx context.Context) Verdict { return m.runQuery(ctx, r.Primary) })
	})
	wg.Go(func() { m.pollHTTP(ctx) })
	err := m.watchLoad(ctx, r.Primary)
	cancel()
	wg.Wait()
	return err
}

// watchLoad reads the primary's global status every CheckInterval while --max-load or
// --critical-load is set, for the max-load rule, and judges the critical load: a met critical
// load ends the run (or hibernates it). Nothing is read while hibernating.
func (m *Monitor) watchLoad(ctx context.Context, db *sql.DB) error {
	m.critical.Read = func(ctx context.Context) (map[string]int64, error) { return ReadStatus(ctx, db) }
	for {
		if len(*m.maxLoad.Load())+len(*m.criticalLoad.Load()) > 0 && !m.critical.Hibernating() {
			values, err := ReadStatus(ctx, db)
			if ctx.Err() != nil {
				return nil
			}
			v := StatusValues{Values: values, Err: err}
			m.status.Store(v)
			if err := m.critical.Evaluate(ctx, v); err != nil {
				m.log.Error().Err(err).Msg("critical load: aborting the migration; the original table is untouched")
				return fmt.Errorf("%w; aborting, the original table is untouched", err)
			}
			if m.critical.Hibernating() {
				m.log.Warn().Dur("for", m.cfg.CriticalLoadHibernate).Msg("critical load met: hibernating (no copy, no heartbeat) instead of aborting")
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(m.cfg.CheckInterval):
		}
	}
}

// ReadStatus reads the server's global status variables that hold whole numbers, by lower-case
// name.
func ReadStatus(ctx context.Context, db *sql.DB) (map[string]int64, error) {
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

// runQuery runs --throttle-query (when set) and judges its result.
func (m *Monitor) runQuery(ctx context.Context, db *sql.DB) Verdict {
	q := *m.query.Load()
	if q == "" {
		return Verdict{}
	}
	n, err := RunQuery(ctx, db, q) // one SELECT, in a read-only transaction
	return QueryVerdict(n, err)
}

// pollHTTP checks --throttle-http (when set) every --throttle-http-interval-millis.
func (m *Monitor) pollHTTP(ctx context.Context) {
	client := NewHTTPClient(m.cfg.ThrottleHTTPTimeout)
	defer client.CloseIdleConnections()
	Poll(ctx, func() time.Duration { return m.cfg.ThrottleHTTPInterval }, &m.httpResult, func(ctx context.Context) Verdict {
		url := *m.httpURL.Load()
		if url == "" {
			return Verdict{}
		}
		status, err := HTTPStatus(ctx, client, url)
		return HTTPVerdict(url, status, err, m.cfg.IgnoreHTTPErrors)
	})
}
