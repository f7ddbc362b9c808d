package copier

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// trackerFunc is a KeyTracker whose Track calls f and whose settle does nothing: what the copy
// reads and locks, without an applier.
type trackerFunc func()

func (f trackerFunc) Track(table.KeySpan) func(context.Context) error {
	f()
	return func(context.Context) error { return nil }
}

// writeWaitDuringChunk copies t (one chunk of 10 rows whose INSERT takes ~0.5 s: each row sleeps)
// and returns how long an UPDATE of a row of that chunk, already read by the INSERT when sent 100 ms into it, waited.
func writeWaitDuringChunk(t *testing.T, lockFree bool) time.Duration {
	t.Helper()
	var catchUps atomic.Int64
	cfg := copyTestConfig(t, 10, &catchUps)
	testenv.Exec(t, cfg.DB, "DELETE FROM t WHERE id > 10", "CREATE TABLE _t_gho LIKE t")
	cfg.SelectExprs = []string{"`id`", "IF(SLEEP(0.05) = 0, `u`, `u`)"}
	var waited atomic.Int64
	done := make(chan struct{})
	start := func() {
		go func() {
			defer close(done)
			time.Sleep(100 * time.Millisecond)
			began := time.Now()
			if _, err := cfg.DB.Exec("UPDATE t SET u = 'app' WHERE id = 1"); err != nil {
				t.Error(err)
			}
			waited.Store(int64(time.Since(began)))
		}()
	}
	if lockFree {
		cfg.Tracker = trackerFunc(start)
	} else {
		cfg.Test.BeforeChunk = func(context.Context, int64) error { start(); return nil }
	}
	mustCopy(t, newCopier(t, cfg))
	<-done
	return time.Duration(waited.Load())
}

// With a tracker the copy reads the original without row locks (READ COMMITTED: a consistent
// read), so an application write to a row of the chunk being copied does not wait for the chunk;
// without one it reads with shared locks and the write waits for the chunk's commit (which shows
// that the test can tell the two apart).
func TestLockFreeCopyMakesNoWriteWaitForTheChunk(t *testing.T) {
	if w := writeWaitDuringChunk(t, true); w > 150*time.Millisecond {
		t.Errorf("a write to a row of the chunk waited %v for the lock-free copy", w)
	} else {
		t.Logf("lock-free read: the write waited %v", w)
	}
	if w := writeWaitDuringChunk(t, false); w < 250*time.Millisecond {
		t.Errorf("a write to a row of the chunk waited only %v for the locking read: the chunk held no lock?", w)
	} else {
		t.Logf("locking read: the write waited %v", w)
	}
}
