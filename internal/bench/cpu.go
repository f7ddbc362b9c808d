package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
)

// CPU accounting. On a machine whose cores the server, the tool and the load generator share,
// "how much slower under load" is mostly "how much CPU the load leaves": the bench reads the CPU
// time the server process used in each case (when the server runs on this machine: its pid file
// is readable) and the tool's own (from /usr/bin/time), and measures the load alone, so the
// report can say what share of the machine each took.

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat's times (100 on Linux).
const clockTicks = 100

// aloneFor is how long the load runs alone, and again beside a busy server session: about as long
// as a copy phase of the default table, so that their longest waits compare over like windows.
const aloneFor = 15 * time.Second

// processCPU is the user+system CPU time process pid has used so far, or -1 when unreadable.
func processCPU(pid string) time.Duration {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return -1
	}
	// The command name (field 2) may hold spaces; the fields after its closing parenthesis are
	// state (3), ... utime (14), stime (15).
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return -1
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(utime+stime) * time.Second / clockTicks
}

// serverPID is the pid of the server when it runs on this machine ("" when it cannot be told).
func (s *server) serverPID(ctx context.Context) string {
	var file string
	if s.db.QueryRowContext(ctx, "SELECT @@pid_file").Scan(&file) != nil {
		return ""
	}
	// a sandbox server run from a Debian root names its pid file as seen inside that root
	b, err := os.ReadFile(os.Getenv("GHOSTLITE_TEST_SERVER_ROOT") + file)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// serverCPU is the CPU time the server has used so far, or -1 when it cannot be read.
func (s *server) serverCPU(ctx context.Context) time.Duration {
	if s.pid == "" {
		s.pid = s.serverPID(ctx)
	}
	if s.pid == "" {
		return -1
	}
	return processCPU(s.pid)
}

// loadAlone is what a paced load costs with nothing else running: cores of CPU the server and
// the load generator (this process) used per second of wall time.
type loadAlone struct {
	serverCores, generatorCores float64
	waits                       waits // the load's write latency with no migration (latency.go)
	// busy is the load's write latency while one server session computes (BENCHMARK of SHA2: a
	// core busy, no lock, no row read or written): what CPU contention alone costs the writes,
	// the part of a migration's copy no locking scheme removes (busyServerWaits).
	busy waits
}

// measureLoadAlone runs the bench's load at rate on a fresh glr_bench.t for d and reads the CPU it
// took. Zero cores when the server's CPU cannot be read.
func measureLoadAlone(ctx context.Context, s *server, cfg dbconn.Config, o options, rate float64, d time.Duration) (loadAlone, error) {
	if err := s.freshTable(ctx); err != nil {
		return loadAlone{}, err
	}
	load, stop, err := startLoad(ctx, cfg, o, rate) // migrate.go
	if err != nil {
		return loadAlone{}, err
	}
	server0, self0, start := s.serverCPU(ctx), processCPU("self"), time.Now()
	time.Sleep(d)
	server1, self1, took := s.serverCPU(ctx), processCPU("self"), time.Since(start)
	alone := loadAlone{waits: latencyOf(load.Writes(), start, start.Add(took))}
	if alone.busy, err = busyServerWaits(ctx, s, load, d); err != nil {
		stop()
		return loadAlone{}, err
	}
	stop()
	if server0 < 0 || server1 < 0 {
		return alone, nil
	}
	alone.serverCores = (server1 - server0).Seconds() / took.Seconds()
	alone.generatorCores = (self1 - self0).Seconds() / took.Seconds()
	return alone, nil
}

// busyServerWaits keeps one server session computing for d (BENCHMARK statements of about 0.1 s
// each) while load runs, and returns the latency of the load's writes sent meanwhile.
func busyServerWaits(ctx context.Context, s *server, load *loadgen.Load, d time.Duration) (waits, error) {
	start := time.Now()
	for time.Since(start) < d {
		if err := s.exec(ctx, "SELECT BENCHMARK(100000, SHA2(RAND(), 256))"); err != nil {
			return waits{}, err
		}
	}
	return latencyOf(load.Writes(), start, time.Now()), nil
}

// reportCPU prints, for each go-ghostlite case, the CPU the server and the tool used (means of
// the rounds), the cores busy on average, and the checksum's time and its share of the rest of
// the migration; then what each load costs alone.
func reportCPU(rates []float64, runs [][]migration, alone map[float64]loadAlone) {
	fmt.Printf("\n%-30s %9s %7s %11s %11s %15s\n", "CPU and checksum (means)", "server s", "tool s", "cores busy",
		"checksum s", "checksum share")
	for j, rate := range rates {
		var server, tool, took, sum time.Duration
		known := true
		for _, m := range runs[j] {
			server, tool, took, sum = server+m.serverCPU, tool+m.toolCPU, took+m.took, sum+m.checksum
			known = known && m.serverCPU >= 0
		}
		n := time.Duration(len(runs[j]))
		server, tool, took, sum = server/n, tool/n, took/n, sum/n
		serverText, cores := "?", "?"
		if known {
			serverText = fmt.Sprintf("%.2f", server.Seconds())
			cores = fmt.Sprintf("%.2f", (server+tool).Seconds()/took.Seconds())
		}
		share := "-"
		if sum > 0 && took > sum {
			share = fmt.Sprintf("%.1f%%", 100*sum.Seconds()/(took-sum).Seconds())
		}
		fmt.Printf("%-30s %9s %7.2f %11s %11.2f %15s\n", "go-ghostlite, "+caseName(rate), serverText, tool.Seconds(), cores,
			sum.Seconds(), share)
	}
	for _, rate := range rates {
		if a, ok := alone[rate]; ok && a.serverCores > 0 {
			fmt.Printf("the load alone, %s: server %.2f cores, load generator %.2f cores\n", caseName(rate),
				a.serverCores, a.generatorCores)
		}
	}
	fmt.Println("checksum share: the checksum's time over the rest of the migration's (what it adds to it)")
}
