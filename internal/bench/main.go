// Command bench (run by script/bench) times go-ghostlite against the server's own copy paths on
// the same table in the same run, and prints the figures and their ratios:
//
//   - INSERT INTO copy SELECT * FROM t           (the raw copy cost)
//   - ALTER TABLE copy ..., ALGORITHM=COPY        (the server's own offline rebuild)
//   - go-ghostlite, idle                          (wall time and peak RSS)
//   - go-ghostlite, with a paced write load       (wall time, longest write wait = cut-over stall)
//
// Every measurement is repeated (--repeat, interleaved so each sees the same machine) and the
// median is what the ratios use; the spread is printed next to it. Before each measurement the
// server is let settle (dirty pages flushed). The sandbox replica shares this machine's two cores,
// so by default its SQL thread is paused while measuring (replicas run elsewhere in production)
// and resumed, and waited for, at the end; --with-replica keeps it applying.
//
// It is a measurement, not a test: it asserts nothing and always prints what it saw.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
)

const alter = "ADD COLUMN extra INT NOT NULL DEFAULT 0"

type options struct {
	rows, chunk, repeat int
	rate                float64
	binary              string
	withReplica         bool
}

func main() {
	var o options
	flag.IntVar(&o.rows, "rows", 1000000, "rows in the benchmark table")
	flag.Float64Var(&o.rate, "rate", 500, "writes per second during the loaded run")
	flag.StringVar(&o.binary, "binary", "bin/go-ghostlite", "the go-ghostlite binary")
	flag.IntVar(&o.chunk, "chunk-size", 1000, "--chunk-size for go-ghostlite")
	flag.IntVar(&o.repeat, "repeat", 3, "measure each case this many times; the median counts")
	flag.BoolVar(&o.withReplica, "with-replica", false, "keep the sandbox replica applying while measuring")
	flag.Parse()
	o.repeat = max(o.repeat, 1)
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// samples are the repeated timings of one case.
type samples []time.Duration

func (s samples) median() time.Duration {
	c := append(samples(nil), s...)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	return c[len(c)/2]
}

func (s samples) spread() string {
	lo, hi := s[0], s[0]
	for _, d := range s {
		lo, hi = min(lo, d), max(hi, d)
	}
	return fmt.Sprintf("%.2f-%.2f", lo.Seconds(), hi.Seconds())
}

func run(o options) error {
	ctx := context.Background()
	port, _ := strconv.Atoi(env("GHOSTLITE_TEST_PORT", "23306"))
	cfg := dbconn.Config{Host: env("GHOSTLITE_TEST_HOST", "127.0.0.1"), Port: port,
		User: env("GHOSTLITE_TEST_USER", "ghostlite"), Password: env("GHOSTLITE_TEST_PASSWORD", "ghostlite")}
	srv, err := openServer(ctx, cfg)
	if err != nil {
		return err
	}
	if !o.withReplica {
		resume, err := srv.pauseReplica(ctx)
		if err != nil {
			return err
		}
		defer resume()
	}
	if err := srv.createSource(ctx, o.rows); err != nil {
		return err
	}
	fmt.Printf("table: %d rows, about %d bytes/row (PRIMARY KEY + one secondary index); ALTER: %s\n",
		o.rows, srv.avgRowLength(ctx), alter)
	fmt.Printf("each case measured %d times, interleaved; ratios use the medians\n\n", o.repeat)

	var insertSelect, alterCopy, idle, loaded samples
	var idleRSS, loadedRSS int64
	var stats loadgen.Stats
	var cutOver string
	for i := 0; i < o.repeat; i++ {
		r, err := measureRound(ctx, srv, cfg, o)
		if err != nil {
			return err
		}
		insertSelect, alterCopy = append(insertSelect, r.insertSelect), append(alterCopy, r.alterCopy)
		idle, idleRSS = append(idle, r.idle), max(idleRSS, r.idleRSS)
		loaded, loadedRSS = append(loaded, r.loaded), max(loadedRSS, r.loadedRSS)
		if r.load.MaxLatency >= stats.MaxLatency {
			stats, cutOver = r.load, r.cutOver
		}
		fmt.Printf("round %d: INSERT..SELECT %.2fs, ALTER %.2fs, idle %.2fs, loaded %.2fs\n", i+1,
			r.insertSelect.Seconds(), r.alterCopy.Seconds(), r.idle.Seconds(), r.loaded.Seconds())
	}

	base := alterCopy.median()
	fmt.Printf("\n%-44s %9s %8s %12s\n", "run (median)", "seconds", "ratio", "range")
	line := func(name string, s samples) {
		fmt.Printf("%-44s %9.2f %7.2fx %12s\n", name, s.median().Seconds(), s.median().Seconds()/base.Seconds(), s.spread())
	}
	line("INSERT INTO copy SELECT * FROM t", insertSelect)
	line("ALTER TABLE ... ALGORITHM=COPY (baseline)", alterCopy)
	line("go-ghostlite, idle", idle)
	line(fmt.Sprintf("go-ghostlite, %.0f writes/s", o.rate), loaded)
	fmt.Printf("\nloaded / idle: %.2fx\n", loaded.median().Seconds()/idle.median().Seconds())
	fmt.Printf("peak RSS: idle %d MB, loaded %d MB\n", idleRSS/1024, loadedRSS/1024)
	fmt.Printf("write load (worst round): %d acknowledged, %d failed, %d duplicate-key (tolerated), p99 %v, longest write wait %v\n",
		stats.Acked, stats.Failed, stats.Tolerated, stats.P99.Round(time.Millisecond), stats.MaxLatency.Round(time.Millisecond))
	if cutOver != "" {
		fmt.Println("cut-over:", cutOver)
	}
	return nil
}

// round is one measurement of every case.
type round struct {
	insertSelect, alterCopy, idle, loaded time.Duration
	idleRSS, loadedRSS                    int64
	load                                  loadgen.Stats
	cutOver                               string
}

func measureRound(ctx context.Context, srv *server, cfg dbconn.Config, o options) (round, error) {
	var r round
	if err := srv.exec(ctx, "DROP TABLE IF EXISTS gl_bench.copy", "CREATE TABLE gl_bench.copy LIKE gl_bench.src"); err != nil {
		return r, err
	}
	var err error
	if r.insertSelect, err = srv.timed(ctx, "INSERT INTO gl_bench.copy SELECT * FROM gl_bench.src"); err != nil {
		return r, err
	}
	if r.alterCopy, err = srv.timed(ctx, "ALTER TABLE gl_bench.copy "+alter+", ALGORITHM=COPY"); err != nil {
		return r, err
	}
	if err := srv.exec(ctx, "DROP TABLE gl_bench.copy"); err != nil {
		return r, err
	}
	if err := srv.freshTable(ctx); err != nil {
		return r, err
	}
	if r.idle, r.idleRSS, _, err = migrate(cfg, o); err != nil {
		return r, err
	}
	if err := srv.freshTable(ctx); err != nil {
		return r, err
	}
	var out string
	if r.loaded, r.loadedRSS, r.load, out, err = migrateUnderLoad(ctx, cfg, o); err != nil {
		return r, err
	}
	r.cutOver = cutOverLine(out)
	return r, nil
}

// migrateUnderLoad runs the migration while a paced write load runs on the table, started a
// second before and stopped a second after.
func migrateUnderLoad(ctx context.Context, cfg dbconn.Config, o options) (time.Duration, int64, loadgen.Stats, string, error) {
	loadDB, err := dbconn.Open(ctx, cfg, "gl_bench")
	if err != nil {
		return 0, 0, loadgen.Stats{}, "", err
	}
	defer loadDB.Close()
	loadCtx, stopLoad := context.WithCancel(ctx)
	statsCh := make(chan loadgen.Stats, 1)
	go func() {
		statsCh <- loadgen.Run(loadCtx, loadgen.Config{DB: loadDB, Rate: o.rate, Workers: 8, Ops: benchOps(o.rows),
			OnError: func(_ int, err error) bool { return strings.Contains(err.Error(), "1062") }})
	}()
	time.Sleep(time.Second) // the load is running before the migration starts
	d, rss, out, err := migrate(cfg, o)
	time.Sleep(time.Second)
	stopLoad()
	return d, rss, <-statsCh, out, err
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

// migrate runs the binary on gl_bench.t and returns wall time and peak RSS in KiB.
func migrate(cfg dbconn.Config, o options) (time.Duration, int64, string, error) {
	args := []string{"-f", "%M", o.binary, "--host=" + cfg.Host, "--port=" + strconv.Itoa(cfg.Port), "--user=" + cfg.User,
		"--password=" + cfg.Password, "--database=gl_bench", "--table=t", "--alter=" + alter, "--allow-on-master",
		"--execute", "--ok-to-drop-table", "--replica-server-id=99100", "--chunk-size=" + strconv.Itoa(o.chunk), "--log-format=json"}
	cmd := exec.Command("/usr/bin/time", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	out := stderr.String()
	if err != nil {
		return d, 0, out, fmt.Errorf("go-ghostlite failed: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	rss, _ := strconv.ParseInt(strings.TrimSpace(lines[len(lines)-1]), 10, 64)
	return d, rss, out, nil
}

// cutOverLine returns the tool's own cut-over summary log line, if any.
func cutOverLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "cut-over complete") {
			return l
		}
	}
	return ""
}
