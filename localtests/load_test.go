package localtests

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
)

// Load settings: two connections, each paced to one statement per loadInterval at most (a slow
// statement makes its worker skip the turns it missed: a slow server slows the load).
const (
	loadWorkers  = 2
	loadInterval = 5 * time.Millisecond
)

// Errors a load statement may hit without failing the case: a duplicate key (the random insert
// or update collided with an existing row) and a deadlock victim (rolled back, never acknowledged:
// the row copy's INSERT ... SELECT takes shared locks on the original's rows).
var ignorableLoadErrors = map[uint16]bool{1062: true, 1213: true}

// load runs a case's load.sql statements at random on internal/loadgen. Any other error stops it
// and fails the case.
type load struct {
	stmts []string
	gen   *loadgen.Load
}

// startLoad starts the workers on db (a pool of the case's database).
func startLoad(db *sql.DB, stmts []string) *load {
	ops := make([]loadgen.Op, len(stmts))
	for i, q := range stmts {
		ops[i] = func(*rand.Rand) (string, []any) { return q, nil }
	}
	gen := loadgen.Start(context.Background(), loadgen.Config{
		DB: db, Ops: ops, Workers: loadWorkers, Rate: loadWorkers * float64(time.Second/loadInterval), SkipMissed: true,
		OnError:       func(_ int, err error) bool { return ignorableLoadErrors[loadgen.Errno(err)] },
		StopOnFailure: true,
	})
	return &load{stmts: stmts, gen: gen}
}

// waitMore waits until n more statements succeeded than when it was called, or timeout passed,
// or the load stopped on an error. It reports whether the n statements ran.
func (l *load) waitMore(n int, timeout time.Duration) bool {
	return l.gen.WaitAcked(l.gen.Acked()+n, timeout)
}

// Stop stops the workers and waits for their statements in flight to finish.
func (l *load) Stop() { l.gen.Stop() }

// idleRuns is how many times a statement may run without changing any row before the load is
// judged broken (a WHERE that never finds its row writes nothing, and the case tests nothing).
const idleRuns = 20

// Idle lists the statements that ran at least idleRuns times and never changed a row. A WHERE
// with RAND() in a subquery (id = (SELECT FLOOR(RAND() * n))) is one: the server evaluates RAND()
// again for every row it checks; a one-row derived table (JOIN (SELECT ... AS r1) x) is not.
func (l *load) Idle() []string {
	runs, changed := make([]int64, len(l.stmts)), make([]int64, len(l.stmts))
	for _, w := range l.gen.Writes() {
		if w.Acked() {
			runs[w.Op]++
			changed[w.Op] += w.RowsAffected
		}
	}
	var out []string
	for i, q := range l.stmts {
		if runs[i] >= idleRuns && changed[i] == 0 {
			out = append(out, fmt.Sprintf("%q (ran %d times)", q, runs[i]))
		}
	}
	return out
}

// Err is the first error that fails the case, if any.
func (l *load) Err() error {
	if w, failed := l.gen.Failure(); failed {
		return fmt.Errorf("load statement %q: %w", l.stmts[w.Op], w.Err)
	}
	return nil
}

func (l *load) String() string {
	ignored := 0
	for _, w := range l.gen.Writes() {
		if w.Tolerated {
			ignored++
		}
	}
	return fmt.Sprintf("%d statements ok, %d ignored (duplicate key / deadlock)", l.gen.Acked(), ignored)
}
