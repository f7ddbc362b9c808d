package loadgen

import (
	"context"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"database/sql"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

func TestRunRecordsEveryAcknowledgedWrite(t *testing.T) {
	db := testenv.Database(t, "gl_loadgen")
	testenv.Exec(t, db, "CREATE TABLE w (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL)")
	var mu sync.Mutex
	acked := map[int64]bool{}
	ctx, cancel := context.WithTimeout(context.Background(), 1*time.Second)
	defer cancel()
	st := Run(ctx, Config{
		DB:      db,
		Rate:    200,
		Workers: 2,
		Ops: []Op{func(r *rand.Rand) (string, []any) {
			return "INSERT INTO w (v) VALUES (?)", []any{r.Intn(1000)}
		}},
		OnAck: func(_ int, res sql.Result, _ []any) {
			id, _ := res.LastInsertId()
			mu.Lock()
			acked[id] = true
			mu.Unlock()
		},
	})
	if st.Failed != 0 {
		t.Fatalf("writes failed: %v", st.FirstError)
	}
	// paced at 200/s for 1 s: allow for start-up and scheduling, but it must be paced, not flat out
	if st.Acked < 100 || st.Acked > 260 {
		t.Fatalf("acked %d writes in 1 s at 200/s", st.Acked)
	}
	var n int64
	if err := db.QueryRow("SELECT COUNT(*) FROM w").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != st.Acked || int64(len(acked)) != n {
		t.Fatalf("table has %d rows, load acknowledged %d (%d distinct ids)", n, st.Acked, len(acked))
	}
	if st.MaxLatency <= 0 || st.P99 > st.MaxLatency {
		t.Fatalf("latency stats inconsistent: max %v p99 %v", st.MaxLatency, st.P99)
	}
}

// The journal holds every write with its outcome: the acknowledged ones are exactly the rows in
// the table, the tolerated failures are counted apart, and WaitAcked sees the acknowledgements.
func TestJournalRecordsEveryOutcome(t *testing.T) {
	db := testenv.Table(t, "gl_loadgen", "CREATE TABLE j (id INT PRIMARY KEY)")
	l := Start(context.Background(), Config{
		DB: db, Rate: 400, Workers: 2,
		Ops: []Op{func(r *rand.Rand) (string, []any) {
			return "INSERT INTO j VALUES (?)", []any{1 + r.Intn(150)} // collides: error 1062
		}},
		OnError: func(_ int, err error) bool { return Errno(err) == 1062 },
	})
	if !l.WaitAcked(50, 10*time.Second) {
		t.Fatalf("50 acknowledged writes not reached: %d", l.Acked())
	}
	st := l.Stop()
	writes := l.Writes()
	if st.Failed != 0 || l.Err() != nil {
		t.Fatalf("writes failed: %v", st.FirstError)
	}
	ids := testenv.Int64s(t, db, "gl_loadgen", "j", "id", "id")
	acked := 0
	for _, w := range writes {
		if w.End.Before(w.Start) || w.Latency() > st.MaxLatency {
			t.Fatalf("write %+v: times out of order or longer than the maximum %s", w, st.MaxLatency)
		}
		if !w.Acked() {
			if !w.Tolerated || w.Errno() != 1062 {
				t.Fatalf("failed write %+v: want a tolerated duplicate key", w)
			}
			continue
		}
		acked++
		if _, ok := ids[int64(w.Args[0].(int))]; !ok || w.RowsAffected != 1 {
			t.Fatalf("acknowledged insert of %v not in the table (rows affected %d)", w.Args[0], w.RowsAffected)
		}
	}
	dups, _, _ := Failures(writes, 1062)
	if int64(acked) != st.Acked || acked != len(ids) || int64(dups) != st.Tolerated || int64(len(writes)) != st.Acked+st.Tolerated {
		t.Fatalf("journal: %d writes, %d acked, %d duplicates; stats %+v; table has %d rows", len(writes), acked, dups, st, len(ids))
	}
	if st.Acked < 50 || st.Tolerated == 0 {
		t.Fatalf("stats %+v: want at least 50 acknowledged writes and some duplicates", st)
	}
}

// With StopOnFailure the load ends by itself at the first failure it does not tolerate.
func TestStopOnFailure(t *testing.T) {
	db := testenv.Database(t, "gl_loadgen")
	l := Start(context.Background(), Config{
		DB: db, Workers: 2, StopOnFailure: true,
		Ops: []Op{func(*rand.Rand) (string, []any) { return "INSERT INTO nosuch VALUES (1)", nil }},
	})
	select {
	case <-l.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the load did not stop at its failure")
	}
	st := l.Stop()
	if Errno(l.Err()) != 1146 || Errno(st.FirstError) != 1146 || st.Failed == 0 || st.Acked != 0 {
		t.Fatalf("err %v, stats %+v: want failed writes with error 1146", l.Err(), st)
	}
	if l.WaitAcked(1, time.Second) {
		t.Fatal("WaitAcked reported an acknowledgement of a stopped load that had none")
	}
}

// After a stalled write, a load keeps its rate by catching up with a burst; with SkipMissed it
// skips the turns it missed instead, as an application's clients slow down with their server.
func TestSkipMissedAfterAStall(t *testing.T) {
	db := testenv.Open(t, testenv.PrimaryConfig(), "")
	writes := func(skip bool) int64 {
		var first atomic.Bool
		ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
		defer cancel()
		st := Run(ctx, Config{
			DB: db, Rate: 100, Workers: 1, SkipMissed: skip, // a turn every 10 ms
			Ops: []Op{func(*rand.Rand) (string, []any) {
				if first.CompareAndSwap(false, true) {
					return "DO SLEEP(0.3)", nil // misses 30 turns
				}
				return "DO 1", nil
			}},
		})
		if st.Failed != 0 {
			t.Fatalf("writes failed: %v", st.FirstError)
		}
		return st.Acked
	}
	// 600 ms at 100/s: 60 turns. Skipping the 30 the stall missed leaves about 30 writes.
	if n := writes(true); n > 40 {
		t.Errorf("SkipMissed: %d writes in 600 ms, want about 30 (no burst after the stall)", n)
	}
	if n := writes(false); n < 45 {
		t.Errorf("without SkipMissed: %d writes in 600 ms, want about 60 (the stall made up for)", n)
	}
}
