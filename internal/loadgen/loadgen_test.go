package loadgen

import (
	"context"
	"math/rand"
	"sync"
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
