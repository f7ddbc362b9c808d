// Command bench (run by script/bench) times go-ghostlite against the server's own copy paths on
// the same table in the same run, and prints the figures and their ratios:
//
//   - INSERT INTO copy SELECT * FROM t           (the raw copy cost)
//   - ALTER TABLE copy ..., ALGORITHM=COPY        (the server's own offline rebuild)
//   - go-ghostlite, idle                          (wall time and peak RSS)
//   - go-ghostlite, with a paced write load       (wall time, longest write wait = cut-over stall)
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
	"strconv"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
)

const alter = "ADD COLUMN extra INT NOT NULL DEFAULT 0"

func main() {
	rows := flag.Int("rows", 1000000, "rows in the benchmark table")
	rate := flag.Float64("rate", 500, "writes per second during the loaded run")
	binary := flag.String("binary", "bin/go-ghostlite", "the go-ghostlite binary")
	chunk := flag.Int("chunk-size", 1000, "--chunk-size for go-ghostlite")
	flag.Parse()
	if err := run(*rows, *rate, *binary, *chunk); err != nil {
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

func run(rows int, rate float64, binary string, chunk int) error {
	ctx := context.Background()
	port, _ := strconv.Atoi(env("GHOSTLITE_TEST_PORT", "23306"))
	cfg := dbconn.Config{Host: env("GHOSTLITE_TEST_HOST", "127.0.0.1"), Port: port,
		User: env("GHOSTLITE_TEST_USER", "ghostlite"), Password: env("GHOSTLITE_TEST_PASSWORD", "ghostlite")}
	admin, err := dbconn.Open(ctx, cfg, "")
	if err != nil {
		return err
	}
	must := func(q string) error {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		return nil
	}
	for _, q := range []string{"DROP DATABASE IF EXISTS gl_bench", "CREATE DATABASE gl_bench", `CREATE TABLE gl_bench.src (
		id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
		account_id INT NOT NULL, kind TINYINT NOT NULL, amount DECIMAL(12,2) NOT NULL,
		label VARCHAR(96) NOT NULL, ref CHAR(20) NOT NULL, created_at DATETIME NOT NULL,
		KEY account_idx (account_id)) ENGINE=InnoDB`,
		fmt.Sprintf(`INSERT INTO gl_bench.src (account_id, kind, amount, label, ref, created_at)
		SELECT seq %% 100000, seq %% 7, (seq %% 1000000) / 100, CONCAT('label for row ', seq, ' ', REPEAT('x', 30 + seq %% 20)),
		LPAD(seq, 20, '0'), '2026-01-01' + INTERVAL seq SECOND FROM gl_bench.seq_1_to_%d`, rows)} {
		if err := must(q); err != nil {
			return err
		}
	}
	admin.ExecContext(ctx, "ANALYZE TABLE gl_bench.src")
	var avgRow int64
	admin.QueryRowContext(ctx, "SELECT AVG_ROW_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA='gl_bench' AND TABLE_NAME='src'").Scan(&avgRow)
	fmt.Printf("table: %d rows, about %d bytes/row (PRIMARY KEY + one secondary index); ALTER: %s\n\n", rows, avgRow, alter)

	fresh := func(name string) error {
		for _, q := range []string{"DROP TABLE IF EXISTS gl_bench." + name, "DROP TABLE IF EXISTS gl_bench._" + name + "_del",
			"CREATE TABLE gl_bench." + name + " LIKE gl_bench.src", "INSERT INTO gl_bench." + name + " SELECT * FROM gl_bench.src"} {
			if err := must(q); err != nil {
				return err
			}
		}
		return nil
	}
	timed := func(q string) (time.Duration, error) {
		start := time.Now()
		err := must(q)
		return time.Since(start), err
	}

	if err := must("CREATE TABLE gl_bench.copy LIKE gl_bench.src"); err != nil {
		return err
	}
	insertSelect, err := timed("INSERT INTO gl_bench.copy SELECT * FROM gl_bench.src")
	if err != nil {
		return err
	}
	alterCopy, err := timed("ALTER TABLE gl_bench.copy " + alter + ", ALGORITHM=COPY")
	if err != nil {
		return err
	}

	if err := fresh("t"); err != nil {
		return err
	}
	idle, idleRSS, _, err := migrate(cfg, binary, chunk, "")
	if err != nil {
		return err
	}

	if err := fresh("t"); err != nil {
		return err
	}
	loadDB, err := dbconn.Open(ctx, cfg, "gl_bench")
	if err != nil {
		return err
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	statsCh := make(chan loadgen.Stats, 1)
	go func() {
		statsCh <- loadgen.Run(loadCtx, loadgen.Config{DB: loadDB, Rate: rate, Workers: 8, Ops: benchOps(rows),
			OnError: func(_ int, err error) bool { return strings.Contains(err.Error(), "1062") }})
	}()
	time.Sleep(time.Second) // the load is running before the migration starts
	loaded, loadedRSS, out, err := migrate(cfg, binary, chunk, "")
	time.Sleep(time.Second)
	stopLoad()
	st := <-statsCh
	if err != nil {
		return err
	}

	fmt.Printf("%-44s %9s %8s\n", "run", "seconds", "ratio")
	line := func(name string, d time.Duration, base time.Duration) {
		fmt.Printf("%-44s %9.2f %7.2fx\n", name, d.Seconds(), d.Seconds()/base.Seconds())
	}
	line("INSERT INTO copy SELECT * FROM t", insertSelect, alterCopy)
	line("ALTER TABLE ... ALGORITHM=COPY (baseline)", alterCopy, alterCopy)
	line("go-ghostlite, idle", idle, alterCopy)
	line(fmt.Sprintf("go-ghostlite, %.0f writes/s", rate), loaded, alterCopy)
	fmt.Printf("\nloaded / idle: %.2fx\n", loaded.Seconds()/idle.Seconds())
	fmt.Printf("peak RSS: idle %d MB, loaded %d MB\n", idleRSS/1024, loadedRSS/1024)
	fmt.Printf("write load: %d acknowledged, %d failed, %d duplicate-key (tolerated), p99 %v, longest write wait %v\n",
		st.Acked, st.Failed, st.Tolerated, st.P99.Round(time.Millisecond), st.MaxLatency.Round(time.Millisecond))
	if cut := cutOverLine(out); cut != "" {
		fmt.Println("cut-over:", cut)
	}
	return nil
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
func migrate(cfg dbconn.Config, binary string, chunk int, extra string) (time.Duration, int64, string, error) {
	args := []string{"-f", "%M", binary, "--host=" + cfg.Host, "--port=" + strconv.Itoa(cfg.Port), "--user=" + cfg.User,
		"--password=" + cfg.Password, "--database=gl_bench", "--table=t", "--alter=" + alter, "--allow-on-master",
		"--execute", "--ok-to-drop-table", "--replica-server-id=99100", "--chunk-size=" + strconv.Itoa(chunk), "--log-format=json"}
	if extra != "" {
		args = append(args, extra)
	}
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
