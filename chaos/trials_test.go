package chaos

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// trialsDB is the database of TestTrials (TestProxy and the kill-tool tests use their own).
const trialsDB = "gl_chaos_trials"

// trial is one randomized kill: which algorithm, before which step, in which attempts, and a
// seed for picking the victim among the connections the hook is handed.
type trial struct {
	n         int
	algo      string
	step      cutover.Step
	attempts  map[int]bool // attempts in which to kill (always 1, sometimes 2 as well)
	victimRNG *rand.Rand
}

// trialResult is what one trial observed.
type trialResult struct {
	kills      []string // "step:victim"
	attempts   int      // highest attempt the hook saw
	secondRun  bool     // the first run failed (legitimately) and a second run completed
	w          *ledger
	lost       int
	lostDesc   []string
	firstError error
}

// TestTrials runs GHOSTLITE_CHAOS_TRIALS (default 30: the suite's sample; script/chaos runs 300 per algorithm) whole migrations, each of a fresh small
// table under a write load, killing one of the cut-over's connections before a random step.
// Each trial must end with the migrated table under the original name (after a retry, or after a
// second run when the first one legitimately gave up) and every acknowledged write in it.
// GHOSTLITE_CHAOS_PARALLEL (default 4) trials run at once; GHOSTLITE_CHAOS_SEED replays a run.
func TestTrials(t *testing.T) {
	t.Parallel() // its own database (trialsDB): the three chaos tests run side by side
	algos := availableAlgorithms(testenv.Flavor(t))
	if len(algos) == 0 {
		t.Fatal("the migrator accepts no cut-over algorithm")
	}
	trials := envInt("GHOSTLITE_CHAOS_TRIALS", 30)
	// GHOSTLITE_CHAOS_PER_ALGORITHM (script/chaos): that many trials of each algorithm, in turn.
	perAlgo := envInt("GHOSTLITE_CHAOS_PER_ALGORITHM", 0)
	if perAlgo > 0 {
		trials = perAlgo * len(algos)
	}
	parallel := envInt("GHOSTLITE_CHAOS_PARALLEL", 4)
	seed := int64(envInt("GHOSTLITE_CHAOS_SEED", int(time.Now().UnixNano()%1_000_000_000)))
	admin := testenv.Database(t, trialsDB)
	admin.SetMaxOpenConns(parallel * 3)
	fmt.Printf("chaos trials: %d trials, %d at a time, algorithms %v, GHOSTLITE_CHAOS_SEED=%d\n", trials, parallel, algos, seed)

	rng := rand.New(rand.NewSource(seed))
	sum := &summary{}
	start := time.Now()
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := 0; i < trials; i++ {
		tr := trial{
			n:        i,
			algo:     pickAlgorithm(algos, rng, i, perAlgo > 0),
			attempts: map[int]bool{1: true},
		}
		steps := algorithmSteps[tr.algo]
		if len(steps) == 0 { // an algorithm this suite does not know yet: try every step
			for st := cutover.StepLock; st <= cutover.StepLockRenameUnlock; st++ {
				steps = append(steps, st)
			}
		}
		tr.step = steps[rng.Intn(len(steps))]
		tr.victimRNG = rand.New(rand.NewSource(rng.Int63()))
		if rng.Intn(4) == 0 {
			tr.attempts[2] = true
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			logs := &testenv.LogBuffer{}
			res, err := runTrial(t, admin, tr, logs)
			sum.record(tr, res, err)
			if err != nil {
				t.Errorf("trial %d (%s, kill before %s in attempts %v, kills %v): %v\n%s",
					tr.n, tr.algo, tr.step, keys(tr.attempts), res.kills, err, logs.String())
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	report := fmt.Sprintf("chaos trials: %d in %s (GHOSTLITE_CHAOS_SEED=%d)\n%s", trials, elapsed.Round(time.Millisecond), seed, sum)
	// go test shows a passing package's output only with -v: the summary also goes to
	// GHOSTLITE_CHAOS_REPORT when set, for script/test to print.
	fmt.Print(report)
	t.Log("\n" + report)
	if path := os.Getenv("GHOSTLITE_CHAOS_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
			t.Errorf("write %s: %v", path, err)
		}
	}
	sum.mu.Lock()
	defer sum.mu.Unlock()
	for name, a := range sum.algos {
		if a.lost > 0 {
			t.Errorf("%s: %d acknowledged writes lost", name, a.lost)
		}
		if a.kills == 0 && a.trials >= 5 {
			t.Errorf("%s: %d trials but no connection was ever killed: the hook is not exercised", name, a.trials)
		}
	}
}

// pickAlgorithm chooses trial i's algorithm: in turn (so each gets its share exactly), or at random.
func pickAlgorithm(algos []string, rng *rand.Rand, i int, inTurn bool) string {
	if inTurn {
		return algos[i%len(algos)]
	}
	return algos[rng.Intn(len(algos))]
}

// algorithmSteps are the steps each algorithm calls its hook before (cutover.Step constants).
var algorithmSteps = map[string][]cutover.Step{
	config.CutOverThreeStep: {cutover.StepLock, cutover.StepSentinel, cutover.StepRename1, cutover.StepObserve1,
		cutover.StepRename2, cutover.StepObserve2, cutover.StepUnlock},
	config.CutOverAtomic: {cutover.StepSentry, cutover.StepLock, cutover.StepSentinel, cutover.StepAtomicRename,
		cutover.StepAtomicObserve, cutover.StepDropSentry, cutover.StepSentryDropped},
	config.CutOverTwoStep:    {cutover.StepLock, cutover.StepSentinel, cutover.StepRenameAway, cutover.StepRenameIn},
	config.CutOverLockRename: {cutover.StepLock, cutover.StepSentinel, cutover.StepLockRename, cutover.StepLockRenameUnlock},
}

func keys(m map[int]bool) []int {
	var out []int
	for k := 1; k <= 2; k++ {
		if m[k] {
			out = append(out, k)
		}
	}
	return out
}

func (s *summary) record(tr trial, res trialResult, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.get(tr.algo)
	a.trials++
	a.kills += len(res.kills)
	if len(res.kills) == 0 {
		a.noKill++
	}
	for _, k := range res.kills {
		a.killsPerStep[k]++
	}
	if res.attempts > 1 {
		a.retried++
	}
	if res.secondRun {
		a.secondRuns++
	}
	a.lost += res.lost
	if res.w != nil {
		a.acked += res.w.acked()
		if len(res.w.missingAt) > 0 {
			a.outages++
			if o := res.w.longestOutage(); o > a.worstOutage || a.worstTrial == "" {
				a.worstOutage = o
				a.worstTrial = fmt.Sprintf("t%d %v", tr.n, res.kills)
			}
		}
		a.otherErrs += len(res.w.other)
	}
}

// migrationConfig is a fast live migration of gl_chaos_trials.tbl with the cut-over algo. Its
// log goes to logs only (shown when the trial fails), not to the test's: a hundred trials would
// bury the report.
func migrationConfig(t testing.TB, tbl, algo string, logs *testenv.LogBuffer) config.Config {
	cfg := configtest.Config(t, trialsDB, tbl, "ADD COLUMN note VARCHAR(16) NULL", nil)
	cfg.ChunkSize = 100
	cfg.CutOverLockTimeout = time.Second
	cfg.CutOver = algo
	cfg.DefaultRetries = 5
	cfg.Logger = zerolog.New(logs).Level(zerolog.InfoLevel).With().Timestamp().Logger()
	return cfg
}

// runTrial runs one trial; logs receives the migration's log.
func runTrial(t testing.TB, admin *sql.DB, tr trial, logs *testenv.LogBuffer) (res trialResult, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tbl := fmt.Sprintf("t%d", tr.n)
	old, ghost := table.OldName(tbl, ""), table.GhostName(tbl)
	q := table.Qualify(trialsDB, tbl)
	for _, stmt := range []string{
		"DROP TABLE IF EXISTS " + q + ", " + table.Qualify(trialsDB, old) + ", " + table.Qualify(trialsDB, ghost) + ", " + table.Qualify(trialsDB, table.ChangelogName(tbl)),
		"CREATE TABLE " + q + " (id BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL, pad VARCHAR(32) NOT NULL DEFAULT 'x') ENGINE=InnoDB",
		fmt.Sprintf("INSERT INTO %s (id, v) WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < %d) SELECT n, 0 FROM s", q, seedRows),
	} {
		if _, err := admin.ExecContext(ctx, stmt); err != nil {
			return res, fmt.Errorf("set up: %s: %w", stmt, err)
		}
	}

	pool, err := dbconn.Open(ctx, testenv.PrimaryConfig(), trialsDB)
	if err != nil {
		return res, err
	}
	defer pool.Close()
	load := startWriter(pool, trialsDB, tbl, 1_000_000)
	stopped := false
	defer func() {
		if !stopped {
			load.Stop()
			res.w = tally(load.Writes())
		}
	}()
	// Let the load run before the migration starts.
	if !load.WaitAcked(10, 10*time.Second) {
		return res, errors.New("the write load did not start")
	}

	hook := func(ctx context.Context, step cutover.Step, info cutover.StepInfo) error {
		res.attempts = max(res.attempts, info.Attempt)
		if step != tr.step || !tr.attempts[info.Attempt] {
			return nil
		}
		type victim struct {
			name string
			id   int64
		}
		var vs []victim
		for _, v := range []victim{{"C1", info.Lock}, {"rename1", info.Rename1}, {"rename2", info.Rename2}} {
			if v.id != 0 {
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			return nil
		}
		v := vs[tr.victimRNG.Intn(len(vs))]
		if err := killAndWait(ctx, admin, v.id); err != nil {
			return fmt.Errorf("chaos: %w", err)
		}
		res.kills = append(res.kills, fmt.Sprintf("%s:%s", step, v.name))
		return nil
	}

	cfg := migrationConfig(t, tbl, tr.algo, logs)
	m, err := migrator.New(cfg)
	if err != nil {
		return res, err
	}
	m.SetCutOverSeams(cutover.TestSeams{BeforeStep: hook})
	runErr := m.Run(ctx)
	if runErr != nil {
		res.firstError = runErr
		if errors.Is(runErr, cutover.ErrUnknownState) {
			return res, fmt.Errorf("migration left the tables in an unknown state: %w", runErr)
		}
		// A legitimate failure: the original must be in place, untouched, and a second run must
		// complete.
		names, err := testenv.ReadExisting(ctx, admin, trialsDB, tbl, old)
		if err != nil {
			return res, err
		}
		if !names[tbl] || names[old] {
			return res, fmt.Errorf("migration failed (%v) and left %s=%v %s=%v", runErr, tbl, names[tbl], old, names[old])
		}
		if migrated, err := hasColumn(ctx, admin, trialsDB, tbl, "note"); err != nil || migrated {
			return res, fmt.Errorf("migration failed (%v) but %s is the migrated table (%v)", runErr, tbl, err)
		}
		cfg2 := migrationConfig(t, tbl, tr.algo, logs)
		m2, err := migrator.New(cfg2)
		if err != nil {
			return res, err
		}
		if err := m2.Run(ctx); err != nil {
			return res, fmt.Errorf("first run failed (%v) and the second run failed too: %w", runErr, err)
		}
		res.secondRun = true
	}
	// Writes after the cut-over go to the migrated table.
	time.Sleep(100 * time.Millisecond)
	load.Stop()
	res.w, stopped = tally(load.Writes()), true

	names, err := testenv.ReadExisting(ctx, admin, trialsDB, tbl, old, ghost)
	if err != nil {
		return res, err
	}
	if !names[tbl] || !names[old] || names[ghost] {
		return res, fmt.Errorf("after the migration: %s=%v %s=%v %s=%v; want true true false", tbl, names[tbl], old, names[old], ghost, names[ghost])
	}
	if migrated, err := hasColumn(ctx, admin, trialsDB, tbl, "note"); err != nil || !migrated {
		return res, fmt.Errorf("%s is not the migrated table (%v)", tbl, err)
	}
	res.lost, res.lostDesc, err = lostWrites(ctx, admin, trialsDB, tbl, res.w)
	if err != nil {
		return res, err
	}
	if res.lost > 0 {
		return res, fmt.Errorf("%d acknowledged writes lost (of %d): %v", res.lost, res.w.acked(), res.lostDesc)
	}
	if res.w.acked() == 0 {
		return res, errors.New("no write was acknowledged")
	}
	if _, err := admin.ExecContext(ctx, "DROP TABLE IF EXISTS "+q+", "+table.Qualify(trialsDB, old)); err != nil {
		return res, err
	}
	return res, nil
}
