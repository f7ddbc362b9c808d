package chaos

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
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

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
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
			var ev struct{ Message string } // the tool runs with --log-format=json: the seam's line is JSON
			if !seen && marker != "" && (line == marker || json.Unmarshal([]byte(line), &ev) == nil && ev.Message == marker) {
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

// ktArgs are the common arguments of a run on schema.t (each run with a server id of its own).
func ktArgs(schema string, extra ...string) []string {
	args := append(testenv.MigrationArgs(testenv.PrimaryConfig(), schema, "t"), "--log-format=json",
		"--default-retries=2", "--cut-over-lock-timeout-seconds=2", "--chunk-size=500")
	return append(args, extra...)
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

// ktStartWriters writes about rate writes per second on t, whose ids 1..rows exist: inserts
// (AUTO_INCREMENT ids) and updates that raise v. Stop it and tally its journal.
func ktStartWriters(db *sql.DB, rows int, rate float64) *loadgen.Load {
	var next atomic.Int64 // update values, increasing
	return startLoad(db, rate, 4, false,
		func(r *rand.Rand) (string, []any) { return "INSERT INTO t (v, pad) VALUES (0, 'load')", nil },
		func(r *rand.Rand) (string, []any) {
			v, id := next.Add(1), int64(1+r.Intn(rows))
			return "UPDATE t SET v = ? WHERE id = ? AND v < ?", []any{v, id, v}
		})
}

// ktVerify checks every write w acknowledged is in schema.t: each inserted id, and each updated
// row with the value of its last acknowledged update.
func ktVerify(t *testing.T, db *sql.DB, schema string, w *ledger) {
	t.Helper()
	final := testenv.Int64s(t, db, schema, "t", "id", "v")
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

// ktRenames counts sessions running a RENAME TABLE in schema (the dead run's, queued).
func ktRenames(ctx context.Context, db *sql.DB, schema string) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+dbconn.ProcesslistTable(ctx, db)+`
		WHERE INFO LIKE 'RENAME TABLE%' AND INFO LIKE ?`, "%`"+schema+"`%").Scan(&n)
	return n, err
}
