package chaos

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// ktBuild builds the go-ghostlite binary into a temporary directory of t.
func ktBuild(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "go-ghostlite")
	if out, err := exec.Command("go", "build", "-o", bin, "../go-ghostlite").CombinedOutput(); err != nil {
		t.Fatalf("go build ../go-ghostlite: %v\n%s", err, out)
	}
	return bin
}

// ktProc is one run of the binary, its stderr collected line by line.
type ktProc struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr bytes.Buffer
	marker chan struct{} // closed when the pause marker line is seen
	done   chan struct{} // closed when the process has exited
	err    error         // Wait's result, valid after done
}

// ktPauseEnv is the binary's test seam: pause before this cut-over step (see go-ghostlite/flags.go).
const ktPauseEnv = "GHOSTLITE_TEST_PAUSE_AT_CUT_OVER_STEP"

// ktStart starts the binary with args, pausing before cut-over step pause (0: never); marker is
// the stderr line that closes p.marker ("" none).
func ktStart(t *testing.T, bin string, pause int, marker string, args ...string) *ktProc {
	t.Helper()
	p := &ktProc{cmd: exec.Command(bin, args...), marker: make(chan struct{}), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", ktPauseEnv, pause))
	pipe, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		seen := false
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			p.mu.Unlock()
			if !seen && marker != "" && line == marker {
				seen = true
				close(p.marker)
			}
		}
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	return p
}

// wait waits for the process to exit and returns its exit code (-1: killed by a signal).
func (p *ktProc) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(timeout):
		_ = p.cmd.Process.Kill() // our own child
		<-p.done
		t.Fatalf("go-ghostlite did not exit within %s\n%s", timeout, p.output())
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatalf("go-ghostlite: %v", p.err)
	}
	return 0
}

func (p *ktProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stderr.String()
	if len(s) > 6000 {
		s = "..." + s[len(s)-6000:]
	}
	return "--- args: " + strings.Join(p.cmd.Args[1:], " ") + "\n--- stderr:\n" + s
}

// ktRun runs the binary to its end and returns the exit code and the output.
func ktRun(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	p := ktStart(t, bin, 0, "", args...)
	code := p.wait(t, 60*time.Second)
	return code, p.output()
}

// ktArgs are the common arguments of a run on schema.t.
func ktArgs(schema string, serverID int, extra ...string) []string {
	c := testenv.PrimaryConfig()
	return append([]string{
		"--host=" + c.Host, fmt.Sprintf("--port=%d", c.Port), "--user=" + c.User, "--password=" + c.Password,
		"--database=" + schema, "--table=t", "--allow-on-master", "--log-format=json",
		"--default-retries=2", "--cut-over-lock-timeout-seconds=2", "--chunk-size=500",
		fmt.Sprintf("--replica-server-id=%d", serverID),
	}, extra...)
}

// ktPool opens a pool on schema whose sessions give up a lock wait after 10 s.
func ktPool(t *testing.T, schema string) *sql.DB {
	t.Helper()
	c := testenv.PrimaryConfig()
	mc := mysql.NewConfig()
	mc.User, mc.Passwd, mc.Net, mc.Addr, mc.DBName = c.User, c.Password, "tcp", c.Addr(), schema
	mc.Params = map[string]string{"lock_wait_timeout": "10"}
	db, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(8)
	t.Cleanup(func() { db.Close() })
	return db
}

// ktWriters is a write load on schema.t that records every acknowledged write and the times at
// which writes failed because the table was missing (error 1146).
type ktWriters struct {
	next     atomic.Int64 // update values, increasing
	mu       sync.Mutex
	inserted []int64
	updated  map[int64]int64 // id -> highest acknowledged value
	missing  []time.Time     // when a write failed with 1146
	other    []error         // other failed writes (counted, reported)
	stop     context.CancelFunc
	done     chan loadgen.Stats
	once     sync.Once
	stats    loadgen.Stats
}

// ktStartWriters writes about rate writes per second on t, whose ids 1..rows exist.
func ktStartWriters(db *sql.DB, rows int, rate float64) *ktWriters {
	w := &ktWriters{updated: map[int64]int64{}, done: make(chan loadgen.Stats, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	w.stop = cancel
	cfg := loadgen.Config{
		DB: db, Rate: rate, Workers: 4,
		Ops: []loadgen.Op{
			func(r *rand.Rand) (string, []any) { return "INSERT INTO t (v, pad) VALUES (0, 'load')", nil },
			func(r *rand.Rand) (string, []any) {
				v, id := w.next.Add(1), int64(1+r.Intn(rows))
				return "UPDATE t SET v = ? WHERE id = ? AND v < ?", []any{v, id, v}
			},
		},
		OnAck: func(op int, res sql.Result, args []any) {
			w.mu.Lock()
			defer w.mu.Unlock()
			if op == 0 {
				if id, err := res.LastInsertId(); err == nil {
					w.inserted = append(w.inserted, id)
				}
				return
			}
			v, id := args[0].(int64), args[1].(int64)
			if v > w.updated[id] {
				w.updated[id] = v
			}
		},
		OnError: func(op int, err error) bool {
			w.mu.Lock()
			defer w.mu.Unlock()
			var me *mysql.MySQLError
			if errors.As(err, &me) && me.Number == 1146 {
				w.missing = append(w.missing, time.Now())
				return true
			}
			w.other = append(w.other, err)
			return true
		},
	}
	go func() { w.done <- loadgen.Run(ctx, cfg) }()
	return w
}

// finish stops the load and returns its stats; it may be called more than once.
func (w *ktWriters) finish() loadgen.Stats {
	w.once.Do(func() {
		w.stop()
		w.stats = <-w.done
	})
	return w.stats
}

// outage returns how many writes failed with 1146 and the window from the first to the last.
func (w *ktWriters) outage() (int, time.Time, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.missing) == 0 {
		return 0, time.Time{}, time.Time{}
	}
	return len(w.missing), w.missing[0], w.missing[len(w.missing)-1]
}

// verify checks every acknowledged write is in schema.t.
func (w *ktWriters) verify(t *testing.T, db *sql.DB) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	final := map[int64]int64{}
	rows, err := db.Query("SELECT id, v FROM t")
	if err != nil {
		t.Fatalf("read the final table: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, v int64
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		final[id] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, id := range w.inserted {
		if _, ok := final[id]; !ok {
			if lost++; lost <= 5 {
				t.Errorf("acknowledged insert id %d is missing from the final table", id)
			}
		}
	}
	stale := 0
	for id, v := range w.updated {
		if final[id] != v {
			if stale++; stale <= 5 {
				t.Errorf("row %d: final v = %d, last acknowledged update set %d", id, final[id], v)
			}
		}
	}
	if lost+stale > 0 {
		t.Errorf("%d acknowledged inserts lost, %d acknowledged updates lost (of %d inserts, %d updated rows)", lost, stale, len(w.inserted), len(w.updated))
	}
	if len(w.inserted) == 0 || len(w.updated) == 0 {
		t.Errorf("the load acknowledged %d inserts and %d updates: it did not run", len(w.inserted), len(w.updated))
	}
}

// ktNames lists the tables of schema, sorted by name.
func ktNames(ctx context.Context, db *sql.DB, schema string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY BINARY TABLE_NAME", schema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// ktRenames counts sessions running a RENAME TABLE in schema (the dead run's, queued).
func ktRenames(ctx context.Context, db *sql.DB, schema string) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.PROCESSLIST
		WHERE INFO LIKE 'RENAME TABLE%' AND INFO LIKE ?`, "%`"+schema+"`%").Scan(&n)
	return n, err
}
