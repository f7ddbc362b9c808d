package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
)

// migration is what one run of the binary showed.
type migration struct {
	took        time.Duration
	rssKB       int64
	peakBacklog int     // largest backlog in the tool's status lines (logged every second)
	peakApplied float64 // largest applied events/s between two status lines
	peakLag     float64 // largest heartbeat lag in the status lines, seconds: how far the applier is behind
	cutOverWait time.Duration
	load        loadgen.Stats
	cutOver     string           // the tool's own cut-over summary line
	copyDone    time.Time        // when the bench read the tool's "cutting over" line
	checksum    time.Duration    // the checksum phase, as the tool logged it (0: none)
	serverCPU   time.Duration    // CPU time the server used during the migration (-1: unknown)
	toolCPU     time.Duration    // CPU time the tool used (user + system, from /usr/bin/time)
	marks       []phaseMark      // when each phase began (latency.go)
	phases      map[string]waits // the load's write latency in each phase (under load)
	lockWaits   rowLocks         // InnoDB row lock waits during the run (latency.go)
	// binlogsBegun is how many binary log files the server began during the run (rotations); -1
	// when SHOW BINARY LOGS could not be read
	binlogsBegun int
}

// migrateAt runs the migration idle (rate 0) or while a paced write load runs on the table,
// started a second before and stopped a second after. The cut-over wait is the longest
// application write that ended after the tool logged "cutting over".
func migrateAt(ctx context.Context, s *server, cfg dbconn.Config, o options, rate float64) (migration, error) {
	if rate <= 0 {
		return migrate(ctx, s, cfg, o)
	}
	load, stop, err := startLoad(ctx, cfg, o, rate)
	if err != nil {
		return migration{}, err
	}
	m, err := migrate(ctx, s, cfg, o)
	time.Sleep(time.Second)
	m.load = stop()
	m.phases = phaseWaits(load.Writes(), m.marks)
	if !m.copyDone.IsZero() {
		for _, w := range load.Writes() {
			if w.End.After(m.copyDone) && w.Latency() > m.cutOverWait {
				m.cutOverWait = w.Latency()
			}
		}
	}
	return m, err
}

// startLoad starts the bench's paced load (benchOps) at rate on glr_bench.t, from a pool of its
// own, and returns once it has run a second. stop ends the load, closes the pool and returns what
// the load did; load.Writes stays readable after it.
func startLoad(ctx context.Context, cfg dbconn.Config, o options, rate float64) (load *loadgen.Load, stop func() loadgen.Stats, err error) {
	db, err := dbconn.Open(ctx, cfg, "glr_bench")
	if err != nil {
		return nil, nil, err
	}
	load = loadgen.Start(ctx, loadgen.Config{DB: db, Rate: rate, Workers: 8, Ops: benchOps(o.rows),
		OnError: func(_ int, err error) bool { return strings.Contains(err.Error(), "1062") }}) // a duplicate insert id
	time.Sleep(time.Second)
	return load, func() loadgen.Stats {
		st := load.Stop()
		db.Close()
		return st
	}, nil
}

// benchOps is the paced load: inserts, updates and deletes on random rows.
func benchOps(rows int) []loadgen.Op {
	return []loadgen.Op{
		func(r *rand.Rand) (string, []any) {
			return "INSERT INTO t (account_id, kind, amount, label, ref, created_at) VALUES (?, 1, 9.99, 'live insert', 'ref', NOW())",
				[]any{r.Intn(100000)}
		},
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET amount = amount + 1, label = 'live update' WHERE id = ?", []any{1 + r.Intn(rows)}
		},
		func(r *rand.Rand) (string, []any) {
			return "DELETE FROM t WHERE id = ?", []any{1 + r.Intn(rows)}
		},
	}
}

// migrate runs the binary on glr_bench.t, reading its JSON log as it comes. Its socket file is
// the bench's own, so that benches on two sandboxes of one machine do not meet there.
func migrate(ctx context.Context, s *server, cfg dbconn.Config, o options) (migration, error) {
	socket := fmt.Sprintf("%s/gl-bench-%d.sock", os.TempDir(), cfg.Port)
	args := []string{"-f", "%M %U %S", o.binary, "--serve-socket-file=" + socket, "--host=" + cfg.Host, "--port=" + strconv.Itoa(cfg.Port), "--user=" + cfg.User,
		"--password=" + cfg.Password, "--database=glr_bench", "--table=t", "--alter=" + alter, "--allow-on-master",
		"--execute", "--ok-to-drop-table", "--replica-server-id=99100", "--log-format=json"}
	if o.chunk > 0 {
		args = append(args, "--chunk-size="+strconv.Itoa(o.chunk))
	}
	args = append(args, strings.Fields(o.toolArgs)...)
	cmd := exec.Command("/usr/bin/time", args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return migration{}, err
	}
	start, cpu0, locks0, binlog0 := time.Now(), s.serverCPU(ctx), s.rowLocks(ctx), s.newestBinlog(ctx)
	if err := cmd.Start(); err != nil {
		return migration{}, err
	}
	m := migration{marks: []phaseMark{{"prepare", start}}}
	out := m.read(stderr)
	err = cmd.Wait()
	m.took, m.serverCPU = time.Since(start), s.serverCPU(ctx)
	locks := s.rowLocks(ctx)
	m.lockWaits = rowLocks{waits: locks.waits - locks0.waits, timeMS: locks.timeMS - locks0.timeMS}
	if m.binlogsBegun = s.newestBinlog(ctx) - binlog0; binlog0 < 0 || m.binlogsBegun < 0 {
		m.binlogsBegun = -1 // unreadable
	}
	if cpu0 < 0 || m.serverCPU < 0 {
		m.serverCPU = -1
	} else {
		m.serverCPU -= cpu0
	}
	if err != nil {
		return m, fmt.Errorf("go-ghostlite failed: %v\n%s", err, out)
	}
	if o.logDir != "" {
		name := fmt.Sprintf("%s/run-%s.log", o.logDir, time.Now().Format("150405.000"))
		if err := os.WriteFile(name, []byte(out), 0o644); err != nil { // the logs are for reading by hand: the bench goes on
			fmt.Fprintf(os.Stderr, "bench: --log-dir: %v\n", err)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if f := strings.Fields(lines[len(lines)-1]); len(f) == 3 { // /usr/bin/time: "%M %U %S"
		m.rssKB, _ = strconv.ParseInt(f[0], 10, 64)
		user, _ := strconv.ParseFloat(f[1], 64)
		system, _ := strconv.ParseFloat(f[2], 64)
		m.toolCPU = time.Duration((user + system) * float64(time.Second))
	}
	return m, nil
}

// read follows the tool's log: status lines (peak backlog and applied events/s), the moment the
// copy is done and the cut-over summary. It returns the whole output.
func (m *migration) read(r io.Reader) string {
	var all strings.Builder
	var lastEvents int64
	var lastAt float64 = -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		all.WriteString(l + "\n")
		var ev struct {
			Message  string `json:"message"`
			Checksum string `json:"took"`
			Status   *struct {
				Backlog int     `json:"backlog"`
				Events  int64   `json:"events_applied"`
				Elapsed float64 `json:"elapsed_seconds"`
				Lag     float64 `json:"heartbeat_lag_seconds"`
			} `json:"status"`
		}
		if json.Unmarshal([]byte(l), &ev) != nil {
			continue
		}
		if p := phaseOf(ev.Message); p != "" {
			m.marks = append(m.marks, phaseMark{p, time.Now()})
		}
		switch {
		case ev.Status != nil:
			s := ev.Status
			m.peakBacklog, m.peakLag = max(m.peakBacklog, s.Backlog), max(m.peakLag, s.Lag)
			if lastAt >= 0 && s.Elapsed-lastAt >= 0.5 {
				m.peakApplied = max(m.peakApplied, float64(s.Events-lastEvents)/(s.Elapsed-lastAt))
			}
			lastEvents, lastAt = s.Events, s.Elapsed
		case strings.HasPrefix(ev.Message, "cutting over"):
			m.copyDone = time.Now()
		case strings.HasPrefix(ev.Message, "checksum:"):
			m.checksum, _ = time.ParseDuration(ev.Checksum)
		case strings.Contains(ev.Message, "cut-over complete"):
			m.cutOver = l
		}
	}
	return all.String()
}
