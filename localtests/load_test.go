package localtests

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Load settings: two connections, each paced to one statement per loadInterval at most.
const (
	loadWorkers  = 2
	loadInterval = 5 * time.Millisecond
)

// Errors a load statement may hit without failing the case: a duplicate key (the random insert
// or update collided with an existing row) and a deadlock victim (rolled back, never acknowledged:
// the row copy's INSERT ... SELECT takes shared locks on the original's rows).
var ignorableLoadErrors = map[uint16]bool{1062: true, 1213: true}

// load runs a case's load.sql statements in a loop on their own connections.
type load struct {
	stmts   []string
	db      *sql.DB
	stop    chan struct{}
	wg      sync.WaitGroup
	ok      atomic.Int64 // statements that succeeded
	ignored atomic.Int64 // statements that failed with an ignorable error
	mu      sync.Mutex
	err     error // the first error that fails the case
	tick    chan struct{}
	runs    []atomic.Int64 // per statement: times it succeeded
	changed []atomic.Int64 // per statement: rows it changed, summed
}

// startLoad starts the workers on db (a pool of the case's database).
func startLoad(db *sql.DB, stmts []string) *load {
	l := &load{stmts: stmts, db: db, stop: make(chan struct{}), tick: make(chan struct{}, 1),
		runs: make([]atomic.Int64, len(stmts)), changed: make([]atomic.Int64, len(stmts))}
	for i := 0; i < loadWorkers; i++ {
		l.wg.Add(1)
		go l.work()
	}
	return l
}

func (l *load) work() {
	defer l.wg.Done()
	ctx := context.Background() // never cancelled: a statement in flight always finishes
	conn, err := l.db.Conn(ctx)
	if err != nil {
		l.fail(fmt.Errorf("load connection: %w", err))
		return
	}
	defer conn.Close()
	ticker := time.NewTicker(loadInterval)
	defer ticker.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-ticker.C:
		}
		i := rand.IntN(len(l.stmts))
		q := l.stmts[i]
		res, err := conn.ExecContext(ctx, q)
		if err != nil {
			var me *mysql.MySQLError
			if errors.As(err, &me) && ignorableLoadErrors[me.Number] {
				l.ignored.Add(1)
				continue
			}
			l.fail(fmt.Errorf("load statement %q: %w", q, err))
			return
		}
		if n, err := res.RowsAffected(); err == nil {
			l.changed[i].Add(n)
		}
		l.runs[i].Add(1)
		l.ok.Add(1)
		select {
		case l.tick <- struct{}{}:
		default:
		}
	}
}

func (l *load) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = err
	}
}

// waitMore waits until n more statements succeeded than when it was called, or timeout passed,
// or the load stopped on an error. It reports whether the n statements ran.
func (l *load) waitMore(n int64, timeout time.Duration) bool {
	target := l.ok.Load() + n
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for l.ok.Load() < target {
		select {
		case <-l.tick:
		case <-deadline.C:
			return false
		}
		if l.Err() != nil {
			return false
		}
	}
	return true
}

// Stop stops the workers and waits for their statements in flight to finish.
func (l *load) Stop() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.wg.Wait()
}

// idleRuns is how many times a statement may run without changing any row before the load is
// judged broken (a WHERE that never finds its row writes nothing, and the case tests nothing).
const idleRuns = 20

// Idle lists the statements that ran at least idleRuns times and never changed a row. A WHERE
// with RAND() in a subquery (id = (SELECT FLOOR(RAND() * n))) is one: the server evaluates RAND()
// again for every row it checks; a one-row derived table (JOIN (SELECT ... AS r1) x) is not.
func (l *load) Idle() []string {
	var out []string
	for i, q := range l.stmts {
		if l.runs[i].Load() >= idleRuns && l.changed[i].Load() == 0 {
			out = append(out, fmt.Sprintf("%q (ran %d times)", q, l.runs[i].Load()))
		}
	}
	return out
}

// Err is the first error that fails the case, if any.
func (l *load) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

func (l *load) String() string {
	return fmt.Sprintf("%d statements ok, %d ignored (duplicate key / deadlock)", l.ok.Load(), l.ignored.Load())
}
