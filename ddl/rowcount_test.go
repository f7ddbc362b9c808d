package ddl

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const rowCountDB = "gl_preflight_rowcount"

// runCount runs the two halves of CountRowsBeside side by side under ctx, as the run's group
// does, and returns a wait for both.
func runCount(ctx context.Context, count, kill func(context.Context) error) (wait func()) {
	var wg sync.WaitGroup
	for _, fn := range []func(context.Context) error{count, kill} {
		wg.Add(1)
		go func() { defer wg.Done(); _ = fn(ctx) }()
	}
	return wg.Wait
}

// The concurrent count hands its result over; cancelled while its statement runs (here waiting
// for a table lock), it stops the statement on the server with KILL QUERY.
func TestCountRowsBeside(t *testing.T) {
	db := testenv.Database(t, rowCountDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY)", "INSERT INTO t SELECT seq FROM seq_1_to_321")
	var logs testenv.LogBuffer
	log := testenv.Logger(t, &logs)

	found := make(chan int64, 1)
	count, kill := CountRowsBeside(db, rowCountDB, "t", log, func(n int64) { found <- n })
	runCount(context.Background(), count, kill)()
	if n := <-found; n != 321 {
		t.Errorf("counted %d rows, want 321", n)
	}

	ctx := context.Background()
	locker, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	if _, err := locker.ExecContext(ctx, "LOCK TABLES t WRITE"); err != nil {
		t.Fatal(err)
	}
	defer locker.ExecContext(ctx, "UNLOCK TABLES") //nolint:errcheck // the connection closes next
	waiting := func() (bool, error) {
		var n int
		err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+dbconn.ProcesslistTable(ctx, db)+" WHERE INFO LIKE 'SELECT COUNT(*) FROM `"+rowCountDB+"`.`t`%'").Scan(&n)
		return n > 0, err
	}
	kills := func() int64 {
		var name string
		var n int64
		if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Com_kill'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	killsBefore := kills()
	cctx, cancel := context.WithCancel(ctx)
	count, kill = CountRowsBeside(db, rowCountDB, "t", log, func(n int64) { t.Errorf("the locked count returned %d", n) })
	wait := runCount(cctx, count, kill)
	testenv.WaitFor(t, 10*time.Second, 10*time.Millisecond, "the count waiting for the lock", waiting)
	cancel()
	wait()
	if n := kills() - killsBefore; n != 1 {
		t.Errorf("%d KILL statements issued, want 1 (KILL QUERY)", n)
	}
	testenv.WaitFor(t, 10*time.Second, 10*time.Millisecond, "the count gone, the table still locked", func() (bool, error) {
		w, err := waiting()
		return !w, err
	})
	if !logs.Contains("exact row count cancelled: the copy finished first") {
		t.Errorf("no cancellation logged:\n%s", logs.String())
	}
}
