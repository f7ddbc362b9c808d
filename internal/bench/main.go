// Command bench (run by script/bench) times go-ghostlite against the server's own copy paths on
// the same table in the same run, and prints the figures and their ratios:
//
//   - INSERT INTO copy SELECT * FROM t           (the raw copy cost)
//   - ALTER TABLE copy ..., ALGORITHM=COPY        (the server's own offline rebuild)
//   - go-ghostlite, idle and under each paced write load of --rates (500 and 2,000 writes/s):
//     wall time, rows/s, applied binlog events/s at peak and peak backlog (from the tool's JSON
//     status lines), the longest application write wait once the copy is done (the cut-over
//     stall) and peak RSS
//   - under each load, the longest and the 99th-percentile application write wait in each phase
//     of go-ghostlite (prepare, copy, catch-up, checksum, cut-over) and during the server's own
//     ALTER run under the same load (latency.go)
//
// Every measurement is repeated (--repeat, interleaved so each sees the same machine) and the
// median is what the ratios use; the spread is printed next to it. Before each measurement the
// server is let settle (dirty pages flushed). The sandbox replica shares this machine's two cores,
// so by default its SQL thread is paused while measuring (replicas run elsewhere in production)
// and resumed, and waited for, at the end; --with-replica keeps it applying. Its database is
// glr_bench: the sandbox replica applies the tables of glr_* databases (script/sandbox).
//
// It is a measurement, not a test: it asserts nothing and always prints what it saw.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

const alter = "ADD COLUMN extra INT NOT NULL DEFAULT 0"

type options struct {
	rows, chunk, repeat int
	rates               []float64
	binary, toolArgs    string
	logDir              string
	withReplica         bool
}

func main() {
	var o options
	flag.IntVar(&o.rows, "rows", 1000000, "rows in the benchmark table")
	rates := flag.String("rates", "500,2000", "comma-separated write loads (writes/s) to migrate under, besides idle")
	flag.StringVar(&o.binary, "binary", "bin/go-ghostlite", "the go-ghostlite binary")
	flag.IntVar(&o.chunk, "chunk-size", 0, "--chunk-size for go-ghostlite (0: the tool's default)")
	flag.StringVar(&o.toolArgs, "tool-args", "", "more flags for go-ghostlite, space-separated")
	flag.StringVar(&o.logDir, "log-dir", "", "keep each go-ghostlite run's log in this directory")
	flag.IntVar(&o.repeat, "repeat", 3, "measure each case this many times; the median counts")
	flag.BoolVar(&o.withReplica, "with-replica", false, "keep the sandbox replica applying while measuring")
	flag.Parse()
	o.repeat = max(o.repeat, 1)
	for _, r := range strings.Split(*rates, ",") {
		if v, err := strconv.ParseFloat(strings.TrimSpace(r), 64); err == nil && v > 0 {
			o.rates = append(o.rates, v)
		} else if strings.TrimSpace(r) != "" {
			fmt.Fprintf(os.Stderr, "bench: --rates: %q is not a positive number of writes/s\n", r)
			os.Exit(2)
		}
	}
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
	if o.logDir != "" {
		if err := os.MkdirAll(o.logDir, 0o755); err != nil {
			return fmt.Errorf("--log-dir: %w", err)
		}
	}
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
	fmt.Printf("server: %s\ntable: %d rows, about %d bytes/row (PRIMARY KEY + one secondary index); ALTER: %s\n",
		srv.flavor.Version, o.rows, srv.avgRowLength(ctx), alter)
	fmt.Printf("each case measured %d times, interleaved; ratios use the medians\n\n", o.repeat)

	rates := append([]float64{0}, o.rates...)
	var insertSelect, alterCopy samples
	runs := make([][]migration, len(rates))
	alters := map[float64][]alterRun{}
	for i := 0; i < o.repeat; i++ {
		if err := srv.exec(ctx, "DROP TABLE IF EXISTS glr_bench.copy", "CREATE TABLE glr_bench.copy LIKE glr_bench.src"); err != nil {
			return err
		}
		is, err := srv.timed(ctx, "INSERT INTO glr_bench.copy SELECT * FROM glr_bench.src")
		if err != nil {
			return err
		}
		ac, err := srv.timed(ctx, "ALTER TABLE glr_bench.copy "+alter+", ALGORITHM=COPY")
		if err != nil {
			return err
		}
		if err := srv.exec(ctx, "DROP TABLE glr_bench.copy"); err != nil {
			return err
		}
		insertSelect, alterCopy = append(insertSelect, is), append(alterCopy, ac)
		fmt.Printf("round %d: INSERT..SELECT %.2fs, ALTER %.2fs", i+1, is.Seconds(), ac.Seconds())
		for j, rate := range rates {
			if err := srv.freshTable(ctx); err != nil {
				return err
			}
			m, err := migrateAt(ctx, srv, cfg, o, rate)
			if err != nil {
				return err
			}
			runs[j] = append(runs[j], m)
			fmt.Printf(", %s %.2fs", caseName(rate), m.took.Seconds())
		}
		for _, rate := range o.rates {
			took, w, err := alterUnderLoad(ctx, srv, cfg, o, rate) // latency.go
			if err != nil {
				return err
			}
			alters[rate] = append(alters[rate], alterRun{took, w})
			fmt.Printf(", ALTER at %s %.2fs", caseName(rate), took.Seconds())
		}
		fmt.Println()
	}
	report(o, rates, insertSelect, alterCopy, runs)
	alone := map[float64]loadAlone{}
	for _, rate := range o.rates {
		if alone[rate], err = measureLoadAlone(ctx, srv, cfg, o, rate, aloneFor); err != nil {
			return err
		}
	}
	reportLatency(rates, runs, alters, alone)
	reportCPU(rates, runs, alone)
	return nil
}

func caseName(rate float64) string {
	if rate <= 0 {
		return "idle"
	}
	return fmt.Sprintf("%.0f writes/s", rate)
}

// report prints the table: the medians of every case and their ratios, and the worst of each
// peak figure over the rounds.
func report(o options, rates []float64, insertSelect, alterCopy samples, runs [][]migration) {
	base, ins := alterCopy.median(), insertSelect.median()
	fmt.Printf("\n%-30s %8s %7s %7s %9s %9s %8s %6s %9s %7s %12s\n", "case (median)", "seconds", "/ALTER", "/INSERT",
		"rows/s", "applied/s", "backlog", "lag s", "cut-over", "RSS MB", "range")
	fmt.Printf("%-30s %8.2f %6.2fx %6.2fx %9.0f %9s %8s %6s %9s %7s %12s\n", "INSERT INTO copy SELECT", ins.Seconds(),
		ins.Seconds()/base.Seconds(), 1.0, float64(o.rows)/ins.Seconds(), "", "", "", "", "", insertSelect.spread())
	fmt.Printf("%-30s %8.2f %6.2fx %6.2fx %9.0f %9s %8s %6s %9s %7s %12s\n", "ALTER TABLE ALGORITHM=COPY", base.Seconds(),
		1.0, base.Seconds()/ins.Seconds(), float64(o.rows)/base.Seconds(), "", "", "", "", "", alterCopy.spread())
	var idle time.Duration
	for j, rate := range rates {
		var took samples
		var peakApplied, peakLag float64
		var peakBacklog int
		var wait time.Duration
		var rss int64
		for _, m := range runs[j] {
			took = append(took, m.took)
			peakApplied, peakBacklog = max(peakApplied, m.peakApplied), max(peakBacklog, m.peakBacklog)
			peakLag = max(peakLag, m.peakLag)
			wait, rss = max(wait, m.cutOverWait), max(rss, m.rssKB)
		}
		d := took.median()
		if rate <= 0 {
			idle = d
		}
		waitText := "-"
		if rate > 0 {
			waitText = fmt.Sprintf("%dms", wait.Milliseconds())
		}
		fmt.Printf("%-30s %8.2f %6.2fx %6.2fx %9.0f %9.0f %8d %6.1f %9s %7d %12s\n", "go-ghostlite, "+caseName(rate), d.Seconds(),
			d.Seconds()/base.Seconds(), d.Seconds()/ins.Seconds(), float64(o.rows)/d.Seconds(), peakApplied, peakBacklog,
			peakLag, waitText, rss/1024, took.spread())
		if rate > 0 {
			fmt.Printf("  %s / idle: %.2fx\n", caseName(rate), d.Seconds()/idle.Seconds())
		}
	}
	fmt.Println("\ncut-over: the longest application write that ended after the tool logged \"cutting over\"")
	for j, rate := range rates {
		for _, m := range runs[j] {
			if rate > 0 && m.cutOver != "" {
				fmt.Printf("%s: %d acknowledged, %d failed, p99 %v; %s\n", caseName(rate), m.load.Acked, m.load.Failed,
					m.load.P99.Round(time.Millisecond), m.cutOver)
				break
			}
		}
	}
}
