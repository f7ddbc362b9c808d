package chaos

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"math/rand"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The driver logs "unexpected EOF" for every connection the trials kill: expected noise here.
func init() { _ = mysql.SetLogger(log.New(io.Discard, "", 0)) }

// seedRows is the size of each trial's table; updates only touch these rows, inserts add new ids.
const seedRows = 500

// envInt reads a positive integer from the environment, or def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// availableAlgorithms are the --cut-over algorithms the migrator accepts today on a server of
// flavor f: an algorithm is picked up by the suite as soon as config.Config.Validate stops
// refusing it (and the cut-over does not refuse it on that flavor).
func availableAlgorithms(f dbconn.Flavor) []string {
	var out []string
	for _, a := range config.CutOverAlgorithms() {
		cfg := config.Default()
		cfg.Database, cfg.Table, cfg.Alter, cfg.CutOver = "gl_chaos_probe", "t", "ENGINE=InnoDB", a
		if cfg.Validate() == nil && cutover.RefuseOn(a, f) == nil {
			out = append(out, a)
		}
	}
	for _, a := range out {
		if cutover.RefuseSet(a, 2) == nil {
			out = append(out, a+setSuffix)
		}
	}
	return out
}

// onlyAlgorithms keeps the entries of algos that only names (comma-separated, e.g.
// "three-step x2,lock-rename x2": GHOSTLITE_CHAOS_ALGORITHMS, script/chaos --algorithms); all
// of them when only is empty.
func onlyAlgorithms(algos []string, only string) []string {
	if only == "" {
		return algos
	}
	var out []string
	for _, a := range algos {
		if slices.Contains(strings.Split(only, ","), a) {
			out = append(out, a)
		}
	}
	return out
}

// setSuffix marks the trials of an algorithm that cut two tables over together ("three-step x2").
const setSuffix = " x2"

// algorithmOf is the --cut-over name of an entry of availableAlgorithms and how many tables its
// trials migrate together.
func algorithmOf(entry string) (string, int) {
	if name, ok := strings.CutSuffix(entry, setSuffix); ok {
		return name, 2
	}
	return entry, 1
}

// startWriter starts a paced load against schema.tbl (stop it and tally its journal). Inserts
// use ids above base (above the seed rows); updates raise v with GREATEST, so a row's final v is
// at least every acknowledged v, whatever the order in which concurrent updates committed.
func startWriter(db *sql.DB, schema, tbl string, base int64) *loadgen.Load {
	var nextID, nextV atomic.Int64
	nextID.Store(base)
	q := table.Qualify(schema, tbl)
	return startLoad(db, 250, 3, false,
		func(*rand.Rand) (string, []any) {
			return "INSERT INTO " + q + " (id, v) VALUES (?, 0)", []any{nextID.Add(1)}
		},
		func(r *rand.Rand) (string, []any) {
			return "UPDATE " + q + " SET v = GREATEST(v, ?) WHERE id = ?", []any{nextV.Add(1), int64(1 + r.Intn(seedRows))}
		})
}

// lostWrites compares what was acknowledged with schema.tbl: every inserted id must be there and
// every updated row must carry at least its highest acknowledged value. It returns a description
// of each loss (at most 10 listed) and their number.
func lostWrites(ctx context.Context, db *sql.DB, schema, tbl string, w *ledger) (int, []string, error) {
	have, err := testenv.ReadInt64s(ctx, db, schema, tbl, "id", "v")
	if err != nil {
		return 0, nil, err
	}
	n := 0
	var desc []string
	note := func(s string) {
		n++
		if len(desc) < 10 {
			desc = append(desc, s)
		}
	}
	for _, id := range w.inserted {
		if _, ok := have[id]; !ok {
			note(fmt.Sprintf("inserted id %d missing", id))
		}
	}
	for id, v := range w.updated {
		got, ok := have[id]
		switch {
		case !ok:
			note(fmt.Sprintf("updated row %d missing", id))
		case got < v:
			note(fmt.Sprintf("row %d has v=%d, acknowledged v=%d", id, got, v))
		}
	}
	return n, desc, nil
}

// killAndWait kills a connection id the cut-over handed to the hook, from the test's own admin
// pool, and waits until the processlist no longer shows it (a connection already gone is fine).
func killAndWait(ctx context.Context, admin *sql.DB, id int64) error {
	if err := testenv.KillAndWait(ctx, admin, id); err != nil && loadgen.Errno(err) != 1094 {
		return err
	}
	return nil
}

// hasColumn reports whether schema.tbl has the column col.
func hasColumn(ctx context.Context, db *sql.DB, schema, tbl, col string) (bool, error) {
	cols, err := testenv.ReadColumns(ctx, db, schema, tbl)
	return slices.Contains(cols, col), err
}

// algoStats is what the summary reports per algorithm.
type algoStats struct {
	trials, kills, noKill, retried, secondRuns int
	killsPerStep                               map[string]int
	acked, lost                                int
	outages                                    int // trials that saw error 1146
	worstOutage                                time.Duration
	worstTrial                                 string
	otherErrs                                  int
}

// summary collects the trials' results from concurrent goroutines.
type summary struct {
	mu    sync.Mutex
	algos map[string]*algoStats
}

func (s *summary) get(algo string) *algoStats {
	if s.algos == nil {
		s.algos = map[string]*algoStats{}
	}
	a := s.algos[algo]
	if a == nil {
		a = &algoStats{killsPerStep: map[string]int{}}
		s.algos[algo] = a
	}
	return a
}

func (s *summary) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.algos))
	for n := range s.algos {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%-15s %6s %6s %7s %8s %7s %8s %5s %8s %12s  %s\n",
		"algorithm", "trials", "kills", "no-kill", "retried", "rerun", "acked", "lost", "outages", "worst-outage", "kills per step")
	for _, n := range names {
		a := s.algos[n]
		steps := make([]string, 0, len(a.killsPerStep))
		for st, c := range a.killsPerStep {
			steps = append(steps, fmt.Sprintf("%s=%d", st, c))
		}
		sort.Strings(steps)
		worst := "none"
		if a.outages > 0 {
			worst = a.worstOutage.Round(time.Millisecond).String() + " (" + a.worstTrial + ")"
		}
		fmt.Fprintf(&b, "%-15s %6d %6d %7d %8d %7d %8d %5d %8d %12s  %s\n",
			n, a.trials, a.kills, a.noKill, a.retried, a.secondRuns, a.acked, a.lost, a.outages, worst, strings.Join(steps, " "))
	}
	return b.String()
}
