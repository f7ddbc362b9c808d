// Package loadgen drives a paced write load against a table and records what the server
// acknowledged: how many writes succeeded or failed and how long the slowest one waited. The bench
// uses it to measure the write stall at cut-over; tests use it to check no acknowledged write is lost.
//
// Invariants: an operation counts as acknowledged only when the server returned success for it;
// the load stops by itself when its context ends; it never retries a failed write.
package loadgen

import (
	"context"
	"database/sql"
	"math/rand"
	"sort"
	"sync"
	"time"
)

// Op builds one write: the statement and its arguments.
type Op func(r *rand.Rand) (query string, args []any)

// Config describes a load.
type Config struct {
	DB      *sql.DB
	Ops     []Op    // chosen uniformly at random for each write
	Rate    float64 // writes per second over all workers; 0 means as fast as the workers go
	Workers int     // concurrent connections (default 4)
	// OnAck, when set, is called after every acknowledged write (from the worker's goroutine).
	OnAck func(op int, res sql.Result, args []any)
	// OnError, when set, decides whether a failed write is tolerated (true) or counted as failed.
	OnError func(op int, err error) bool
}

// Stats summarises a finished load.
type Stats struct {
	Acked, Failed, Tolerated int64
	MaxLatency               time.Duration
	MaxLatencyAt             time.Time
	P99                      time.Duration
	FirstError               error
}

// Run writes until ctx ends and returns what happened.
func Run(ctx context.Context, cfg Config) Stats {
	workers := cfg.Workers
	if workers <= 0 {
		workers = 4
	}
	var interval time.Duration
	if cfg.Rate > 0 {
		interval = time.Duration(float64(time.Second) * float64(workers) / cfg.Rate)
	}
	var mu sync.Mutex
	var st Stats
	var latencies []time.Duration
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			r := rand.New(rand.NewSource(seed))
			next := time.Now()
			for ctx.Err() == nil {
				if interval > 0 {
					next = next.Add(interval)
					if d := time.Until(next); d > 0 {
						select {
						case <-ctx.Done():
							return
						case <-time.After(d):
						}
					}
				}
				op := r.Intn(len(cfg.Ops))
				q, args := cfg.Ops[op](r)
				start := time.Now()
				// A write already sent is allowed to finish even when ctx ends: its outcome is real.
				res, err := cfg.DB.ExecContext(context.WithoutCancel(ctx), q, args...)
				lat := time.Since(start)
				mu.Lock()
				latencies = append(latencies, lat)
				if lat > st.MaxLatency {
					st.MaxLatency, st.MaxLatencyAt = lat, start
				}
				switch {
				case err == nil:
					st.Acked++
				case cfg.OnError != nil && cfg.OnError(op, err):
					st.Tolerated++
				default:
					st.Failed++
					if st.FirstError == nil {
						st.FirstError = err
					}
				}
				mu.Unlock()
				if err == nil && cfg.OnAck != nil {
					cfg.OnAck(op, res, args)
				}
			}
		}(time.Now().UnixNano() + int64(w))
	}
	wg.Wait()
	if len(latencies) > 0 {
		sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
		st.P99 = latencies[len(latencies)*99/100]
	}
	return st
}
