package chaos

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/migrator"
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

// availableAlgorithms are the --cut-over algorithms the migrator accepts today: an algorithm is
// picked up by the suite as soon as migrator.Config.Validate stops refusing it.
func availableAlgorithms() []string {
	var out []string
	for _, a := range []string{"three-step", "atomic", "two-step"} {
		cfg := migrator.DefaultConfig()
		cfg.Database, cfg.Table, cfg.Alter, cfg.CutOver = "gl_chaos_probe", "t", "ENGINE=InnoDB", a
		if cfg.Validate() == nil {
			out = append(out, a)
		}
	}
	return out
}

func mysqlErrno(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// writes records what a writer load got acknowledged: every inserted id, the highest value
// acknowledged per updated row, and the times of acks and of "table doesn't exist" errors.
type writes struct {
	mu        sync.Mutex
	inserted  []int64
	updated   map[int64]int64 // id -> highest acknowledged v
	ackTimes  []time.Time
	missingAt []time.Time    // error 1146
	otherErrs map[string]int // any other error, by text
}

// startWriter runs a paced load against schema.tbl until the returned stop is called; stop waits
// for the writers and returns what was acknowledged. Inserts use ids above the seed rows; updates
// raise v with GREATEST, so a row's final v is at least every acknowledged v, whatever the order
// in which concurrent updates committed.
func startWriter(db *sql.DB, schema, tbl string, base int64) (stop func() *writes) {
	w := &writes{updated: map[int64]int64{}, otherErrs: map[string]int{}}
	var nextID, nextV atomic.Int64
	nextID.Store(base)
	q := table.Qualify(schema, tbl)
	ops := []loadgen.Op{
		func(*rand.Rand) (string, []any) {
			return "INSERT INTO " + q + " (id, v) VALUES (?, 0)", []any{nextID.Add(1)}
		},
		func(r *rand.Rand) (string, []any) {
			return "UPDATE " + q + " SET v = GREATEST(v, ?) WHERE id = ?", []any{nextV.Add(1), int64(1 + r.Intn(seedRows))}
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		loadgen.Run(ctx, loadgen.Config{
			DB: db, Ops: ops, Rate: 250, Workers: 3,
			OnAck: func(op int, _ sql.Result, args []any) {
				now := time.Now()
				w.mu.Lock()
				defer w.mu.Unlock()
				w.ackTimes = append(w.ackTimes, now)
				if op == 0 {
					w.inserted = append(w.inserted, args[0].(int64))
					return
				}
				id, v := args[1].(int64), args[0].(int64)
				w.updated[id] = max(w.updated[id], v)
			},
			OnError: func(op int, err error) bool {
				now := time.Now()
				w.mu.Lock()
				defer w.mu.Unlock()
				if mysqlErrno(err) == 1146 {
					w.missingAt = append(w.missingAt, now)
					return true
				}
				w.otherErrs[err.Error()]++
				return true
			},
		})
	}()
	return func() *writes {
		cancel()
		<-done
		return w
	}
}

// acked is how many writes were acknowledged.
func (w *writes) acked() int { return len(w.ackTimes) }

// longestOutage is the longest time the table's name was seen missing: from the first error 1146
// of a burst to the first acknowledged write after the burst's last one (bursts are separated by
// an acknowledged write).
func (w *writes) longestOutage() time.Duration {
	if len(w.missingAt) == 0 {
		return 0
	}
	miss := append([]time.Time(nil), w.missingAt...)
	acks := append([]time.Time(nil), w.ackTimes...)
	sort.Slice(miss, func(i, j int) bool { return miss[i].Before(miss[j]) })
	sort.Slice(acks, func(i, j int) bool { return acks[i].Before(acks[j]) })
	var longest time.Duration
	i := 0
	for i < len(miss) {
		start := miss[i]
		// First ack after start ends the burst (if none, the burst lasts to the last error).
		k := sort.Search(len(acks), func(k int) bool { return acks[k].After(start) })
		end := miss[len(miss)-1]
		if k < len(acks) {
			end = acks[k]
		}
		for i < len(miss) && !miss[i].After(end) {
			i++
		}
		longest = max(longest, end.Sub(start))
	}
	return longest
}

// lostWrites compares what was acknowledged with schema.tbl: every inserted id must be there and
// every updated row must carry at least its highest acknowledged value. It returns a description
// of each loss (at most 10 listed) and their number.
func lostWrites(ctx context.Context, db *sql.DB, schema, tbl string, w *writes) (int, []string, error) {
	rows, err := db.QueryContext(ctx, "SELECT id, v FROM "+table.Qualify(schema, tbl))
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	have := map[int64]int64{}
	for rows.Next() {
		var id, v int64
		if err := rows.Scan(&id, &v); err != nil {
			return 0, nil, err
		}
		have[id] = v
	}
	if err := rows.Err(); err != nil {
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
// pool, and waits until the processlist no longer shows it.
func killAndWait(ctx context.Context, admin *sql.DB, id int64) error {
	if id == 0 {
		return errors.New("no connection id")
	}
	if _, err := admin.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", id)); err != nil && mysqlErrno(err) != 1094 {
		return fmt.Errorf("kill %d: %w", id, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		alive, err := inProcesslist(ctx, admin, id)
		if err != nil || !alive {
			return err
		}
		time.Sleep(2 * time.Millisecond)
	}
	return fmt.Errorf("connection %d still in the processlist 5s after KILL", id)
}

func inProcesslist(ctx context.Context, db *sql.DB, id int64) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", id).Scan(&n)
	return n > 0, err
}

// tableNames lists which of the trial's names exist.
func tableNames(ctx context.Context, db *sql.DB, schema string, names ...string) (map[string]bool, error) {
	out := map[string]bool{}
	rows, err := db.QueryContext(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", schema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		for _, want := range names {
			if n == want {
				out[n] = true
			}
		}
	}
	return out, rows.Err()
}

func hasColumn(ctx context.Context, db *sql.DB, schema, tbl, col string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?`, schema, tbl, col).Scan(&n)
	return n == 1, err
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
	fmt.Fprintf(&b, "%-11s %6s %6s %7s %8s %7s %8s %5s %8s %12s  %s\n",
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
		fmt.Fprintf(&b, "%-11s %6d %6d %7d %8d %7d %8d %5d %8d %12s  %s\n",
			n, a.trials, a.kills, a.noKill, a.retried, a.secondRuns, a.acked, a.lost, a.outages, worst, strings.Join(steps, " "))
	}
	return b.String()
}
