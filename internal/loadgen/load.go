package loadgen

import (
	"context"
	"math/rand"
	"sort"
	"sync"
	"time"
)

// Load is a load running in the background, started by Start.
type Load struct {
	cfg    Config
	cancel context.CancelFunc
	wg     sync.WaitGroup
	done   chan struct{} // closed when every worker has returned

	mu      sync.Mutex
	journal []Write
	acked   int
	failure *Write        // the first failed write not tolerated
	changed chan struct{} // closed and replaced at every acknowledged write

	stopOnce sync.Once
	stats    Stats
}

// Start starts the load; it runs until ctx ends or Stop is called (or, with StopOnFailure, until
// a write fails).
func Start(ctx context.Context, cfg Config) *Load {
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	ctx, cancel := context.WithCancel(ctx)
	l := &Load{cfg: cfg, cancel: cancel, done: make(chan struct{}), changed: make(chan struct{})}
	var interval time.Duration
	if cfg.Rate > 0 {
		interval = time.Duration(float64(time.Second) * float64(cfg.Workers) / cfg.Rate)
	}
	for w := 0; w < cfg.Workers; w++ {
		l.wg.Add(1)
		go l.work(ctx, interval, time.Now().UnixNano()+int64(w))
	}
	go func() {
		l.wg.Wait()
		close(l.done)
	}()
	return l
}

// work is one worker: it paces its writes at interval and records each outcome.
func (l *Load) work(ctx context.Context, interval time.Duration, seed int64) {
	defer l.wg.Done()
	r := rand.New(rand.NewSource(seed))
	next := time.Now()
	for ctx.Err() == nil {
		if interval > 0 {
			next = next.Add(interval)
			if behind := time.Since(next); l.cfg.SkipMissed && behind > 0 {
				next = next.Add((behind/interval + 1) * interval)
			}
			if d := time.Until(next); d > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(d):
				}
			}
		}
		op := r.Intn(len(l.cfg.Ops))
		q, args := l.cfg.Ops[op](r)
		if !l.write(ctx, op, q, args) && l.cfg.StopOnFailure {
			l.cancel()
			return
		}
	}
}

// write sends one write and records it; it reports false when the write failed and was not
// tolerated.
func (l *Load) write(ctx context.Context, op int, q string, args []any) bool {
	// A write already sent is allowed to finish even when ctx ends: its outcome is real.
	wctx := context.WithoutCancel(ctx)
	if l.cfg.WriteTimeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(wctx, l.cfg.WriteTimeout)
		defer cancel()
	}
	w := Write{Op: op, Args: args, Start: time.Now()}
	res, err := l.cfg.DB.ExecContext(wctx, q, args...)
	w.End, w.Err = time.Now(), err
	if err == nil {
		w.InsertID, _ = res.LastInsertId()
		w.RowsAffected, _ = res.RowsAffected()
	} else if l.cfg.OnError != nil {
		w.Tolerated = l.cfg.OnError(op, err)
	}
	l.record(w)
	if err == nil && l.cfg.OnAck != nil {
		l.cfg.OnAck(op, res, args)
	}
	return err == nil || w.Tolerated
}

func (l *Load) record(w Write) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.journal = append(l.journal, w)
	switch {
	case w.Acked():
		l.acked++
		close(l.changed)
		l.changed = make(chan struct{})
	case !w.Tolerated && l.failure == nil:
		l.failure = &w
	}
}

// Done is closed when the load has ended: stopped, its context ended, or at a failure with
// StopOnFailure.
func (l *Load) Done() <-chan struct{} { return l.done }

// Stop ends the load, waits for the writes in flight and summarises it. It may be called more
// than once.
func (l *Load) Stop() Stats {
	l.stopOnce.Do(func() {
		l.cancel()
		<-l.done
		l.stats = summarise(l.Writes())
	})
	return l.stats
}

// Writes is every write sent so far, in the order they ended.
func (l *Load) Writes() []Write {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Write(nil), l.journal...)
}

// Acked is how many writes the server has acknowledged so far.
func (l *Load) Acked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acked
}

// Err is the error of the first failed write that was not tolerated, if any.
func (l *Load) Err() error {
	if w, failed := l.Failure(); failed {
		return w.Err
	}
	return nil
}

// Failure is the first failed write that was not tolerated, if any.
func (l *Load) Failure() (Write, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failure == nil {
		return Write{}, false
	}
	return *l.failure, true
}

// WaitAcked waits until the server has acknowledged n writes in all. It reports false when
// timeout passed first or the load ended before.
func (l *Load) WaitAcked(n int, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		acked, changed := l.acked, l.changed
		l.mu.Unlock()
		if acked >= n {
			return true
		}
		select {
		case <-changed:
		case <-l.done:
			return l.Acked() >= n
		case <-deadline.C:
			return false
		}
	}
}

// summarise counts the outcomes of writes and their latencies.
func summarise(writes []Write) Stats {
	var st Stats
	latencies := make([]time.Duration, 0, len(writes))
	for _, w := range writes {
		lat := w.Latency()
		latencies = append(latencies, lat)
		if lat > st.MaxLatency {
			st.MaxLatency, st.MaxLatencyAt = lat, w.Start
		}
		switch {
		case w.Acked():
			st.Acked++
		case w.Tolerated:
			st.Tolerated++
		default:
			st.Failed++
			if st.FirstError == nil {
				st.FirstError = w.Err
			}
		}
	}
	if len(latencies) > 0 {
		sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
		st.P99 = latencies[len(latencies)*99/100]
	}
	return st
}
