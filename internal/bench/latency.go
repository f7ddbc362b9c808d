package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
)

// Application write latency per phase. What the users of a live table feel is how long their own
// writes wait, so under each load the bench records every write of its load and attributes each to
// the phase in which it was sent: go-ghostlite's phases as its log announces them (prepare, copy,
// catch-up, checksum, cut-over), and the server's own ALTER as one phase (it blocks writes from
// start to end). For each it reports the longest wait and the 99th percentile.

// The phases of a go-ghostlite run, in order, and the log messages that begin them (read by
// migration.read: a phase begins when the bench reads its line).
var phaseNames = []string{"prepare", "copy", "catch-up", "checksum", "cut-over"}

// phaseMark is when a phase began, as the bench read it from the log.
type phaseMark struct {
	name string
	at   time.Time
}

// phaseOf names the phase a log message begins, or "" when it begins none.
func phaseOf(message string) string {
	switch {
	case message == "phase: copy":
		return "copy"
	case strings.HasPrefix(message, "Row copy complete"):
		return "catch-up"
	case message == "phase: checksum":
		return "checksum"
	case message == "phase: cut-over":
		return "cut-over"
	case strings.Contains(message, "cut-over complete"):
		return "after" // writes sent after the swap are the new table's: not counted
	}
	return ""
}

// waits is the write latency of one phase: its longest and its 99th percentile.
type waits struct {
	n        int
	max, p99 time.Duration
}

func (w waits) String() string {
	if w.n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", w.max.Milliseconds(), w.p99.Milliseconds())
}

// worse is the larger of each figure of a and b (over the rounds of one case).
func (w waits) worse(b waits) waits {
	return waits{n: w.n + b.n, max: max(w.max, b.max), p99: max(w.p99, b.p99)}
}

// latencyOf is the latency of the writes sent in [from, to) (to zero: no end).
func latencyOf(writes []loadgen.Write, from, to time.Time) waits {
	var l []time.Duration
	for _, w := range writes {
		if w.Start.Before(from) || (!to.IsZero() && !w.Start.Before(to)) {
			continue
		}
		l = append(l, w.Latency())
	}
	if len(l) == 0 {
		return waits{}
	}
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	return waits{n: len(l), max: l[len(l)-1], p99: l[len(l)*99/100]}
}

// phaseWaits is the latency of the writes of each phase of a run with the marks given (the first
// mark begins at the run's start).
func phaseWaits(writes []loadgen.Write, marks []phaseMark) map[string]waits {
	out := map[string]waits{}
	for i, m := range marks {
		if m.name == "after" {
			break
		}
		var to time.Time
		if i+1 < len(marks) {
			to = marks[i+1].at
		}
		out[m.name] = out[m.name].worse(latencyOf(writes, m.at, to))
	}
	return out
}

// alterUnderLoad runs the server's own ALTER ... ALGORITHM=COPY on a fresh glr_bench.t while the
// load runs at rate, and returns its time and the latency of the writes sent while it ran.
func alterUnderLoad(ctx context.Context, s *server, cfg dbconn.Config, o options, rate float64) (time.Duration, waits, error) {
	if err := s.freshTable(ctx); err != nil {
		return 0, waits{}, err
	}
	load, stop, err := startLoad(ctx, cfg, o, rate) // migrate.go
	if err != nil {
		return 0, waits{}, err
	}
	start := time.Now()
	err = s.exec(ctx, "ALTER TABLE glr_bench.t "+alter+", ALGORITHM=COPY")
	end := time.Now()
	time.Sleep(time.Second)
	stop()
	return end.Sub(start), latencyOf(load.Writes(), start, end), err
}

// reportLatency prints, for each load, the longest and the 99th-percentile application write
// wait in each phase: the worst of the rounds.
func reportLatency(rates []float64, runs [][]migration, alters map[float64][]alterRun, alone map[float64]loadAlone) {
	fmt.Printf("\napplication write wait under load, per phase: max/p99 in ms (the worst of the rounds; - : no write sent then)\n")
	fmt.Printf("%-36s", "case")
	for _, p := range phaseNames {
		fmt.Printf(" %12s", p)
	}
	fmt.Printf(" %12s\n", "whole run")
	for j, rate := range rates {
		if rate <= 0 {
			continue
		}
		var per map[string]waits
		var whole waits
		for _, m := range runs[j] {
			per = mergeWaits(per, m.phases)
			for _, w := range m.phases {
				whole = whole.worse(w)
			}
		}
		fmt.Printf("%-36s", "go-ghostlite, "+caseName(rate))
		for _, p := range phaseNames {
			fmt.Printf(" %12s", per[p])
		}
		fmt.Printf(" %12s\n", whole)
		for _, m := range runs[j] {
			fmt.Printf("  row lock waits in the server during the run: %d, %d ms in all (every session's); binary logs begun: %d\n",
				m.lockWaits.waits, m.lockWaits.timeMS, m.binlogsBegun)
		}
		var a waits
		var took samples
		for _, r := range alters[rate] {
			a, took = a.worse(r.waits), append(took, r.took)
		}
		if len(took) > 0 {
			fmt.Printf("%-36s", "ALTER ALGORITHM=COPY, "+caseName(rate))
			for range phaseNames {
				fmt.Printf(" %12s", "")
			}
			fmt.Printf(" %12s (its time under load: %.2fs median)\n", a, took.median().Seconds())
		}
		if l, ok := alone[rate]; ok {
			fmt.Printf("%-36s", fmt.Sprintf("the load alone (%s), %s", aloneFor, caseName(rate)))
			for range phaseNames {
				fmt.Printf(" %12s", "")
			}
			fmt.Printf(" %12s (the machine's own noise: nothing else runs)\n", l.waits)
			fmt.Printf("%-36s", "  beside one busy server session")
			for range phaseNames {
				fmt.Printf(" %12s", "")
			}
			fmt.Printf(" %12s (a core computing, no lock: CPU contention alone)\n", l.busy)
		}
	}
}

// alterRun is one run of the server's ALTER under load.
type alterRun struct {
	took  time.Duration
	waits waits
}

func mergeWaits(into, from map[string]waits) map[string]waits {
	if into == nil {
		into = map[string]waits{}
	}
	for k, v := range from {
		into[k] = into[k].worse(v)
	}
	return into
}

// rowLocks is InnoDB's count of row lock waits and their total time so far (the server's
// Innodb_row_lock_waits and Innodb_row_lock_time): every session's, the tool's own included.
type rowLocks struct {
	waits  int64
	timeMS int64
}

func (s *server) rowLocks(ctx context.Context) rowLocks {
	var r rowLocks
	var name string
	_ = s.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_waits'").Scan(&name, &r.waits)
	_ = s.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_time'").Scan(&name, &r.timeMS)
	return r
}

// newestBinlog is the number of the server's newest binary log file (binlog.000018: 18), -1 when
// it cannot be read. A migration that begins new ones made the server rotate its binary log,
// which holds every commit for a moment (about 100 ms on MariaDB here, doc/performance.md).
func (s *server) newestBinlog(ctx context.Context) int {
	files, err := checkpoint.BinaryLogs(ctx, s.db)
	if err != nil {
		return -1
	}
	newest := -1
	for _, name := range files {
		if n, err := strconv.Atoi(name[strings.LastIndex(name, ".")+1:]); err == nil && n > newest {
			newest = n
		}
	}
	return newest
}
