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
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
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
	tables    int    // 1, or more: a set cut over together (algorithms that take one)
	label     string // the report's name: the algorithm, "x2" added for a set
}

// trialResult is what one trial observed.
type trialResult struct {
	kills      []string  // "step:victim"
	attempts   int       // highest attempt the hook saw
	secondRun  bool      // the first run failed (legitimately) and a second run completed
	ws         []*ledger // the writes to each table
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
	algos := onlyAlgorithms(availableAlgorithms(testenv.Flavor(t)), os.Getenv("GHOSTLITE_CHAOS_ALGORITHMS"))
	if len(algos) == 0 {
		t.Fatal("the migrator accepts no cut-over algorithm (or GHOSTLITE_CHAOS_ALGORITHMS names none of them)")
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
		tr := trial{n: i, attempts: map[int]bool{1: true}}
		tr.label = pickAlgorithm(algos, rng, i, perAlgo > 0)
		tr.algo, tr.tables = algorithmOf(tr.label)
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
					tr.n, tr.label, tr.step, keys(tr.attempts), res.kills, err, logs.String())
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
	a := s.get(tr.label)
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
	outage := false
	for _, w := range res.ws {
		a.acked += w.acked()
		a.otherErrs += len(w.other)
		if len(w.missingAt) == 0 {
			continue
		}
		outage = true
		if o := w.longestOutage(); o > a.worstOutage || a.worstTrial == "" {
			a.worstOutage = o
			a.worstTrial = fmt.Sprintf("t%d %v", tr.n, res.kills)
		}
	}
	if outage {
		a.outages++
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
	tbls := tr.tableNames()
	if err := createTrialTables(ctx, admin, tbls); err != nil {
		return res, err
	}
	pool, err := dbconn.Open(ctx, testenv.PrimaryConfig(), trialsDB)
	if err != nil {
		return res, err
	}
	defer pool.Close()
	loads := make([]*loadgen.Load, len(tbls))
	for i, tbl := range tbls {
		loads[i] = startWriter(pool, trialsDB, tbl, 1_000_000)
	}
	stopLoads := func() {
		if res.ws != nil {
			return
		}
		for _, l := range loads {
			l.Stop()
			res.ws = append(res.ws, tally(l.Writes()))
		}
	}
	defer stopLoads()
	// Let the load run before the migration starts.
	for _, l := range loads {
		if !l.WaitAcked(10, 10*time.Second) {
			return res, errors.New("the write load did not start")
		}
	}

	hook := tr.killHook(admin, &res)
	runErr := runTrialMigration(ctx, t, tbls, tr.algo, logs, hook)
	if runErr != nil {
		res.firstError = runErr
		if errors.Is(runErr, cutover.ErrUnknownState) {
			return res, fmt.Errorf("migration left the tables in an unknown state: %w", runErr)
		}
		// A legitimate failure: the originals must be in place, untouched, and a second run must
		// complete.
		if err := checkOriginals(ctx, admin, tbls, runErr); err != nil {
			return res, err
		}
		if err := runTrialMigration(ctx, t, tbls, tr.algo, logs, nil); err != nil {
			return res, fmt.Errorf("first run failed (%v) and the second run failed too: %w", runErr, err)
		}
		res.secondRun = true
	}
	// Writes after the cut-over go to the migrated table.
	time.Sleep(100 * time.Millisecond)
	stopLoads()
	for i, tbl := range tbls {
		if err := checkMigrated(ctx, admin, tbl, res.ws[i], &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// tableNames are the trial's tables: t<n>, and t<n>_b, t<n>_c... for a set.
func (tr trial) tableNames() []string {
	names := []string{fmt.Sprintf("t%d", tr.n)}
	for i := 1; i < tr.tables; i++ {
		names = append(names, fmt.Sprintf("t%d_%c", tr.n, 'a'+i))
	}
	return names
}

// createTrialTables (re)creates each table with its seed rows, and drops its helper tables.
func createTrialTables(ctx context.Context, admin *sql.DB, tbls []string) error {
	for _, tbl := range tbls {
		q := table.Qualify(trialsDB, tbl)
		for _, stmt := range []string{
			"DROP TABLE IF EXISTS " + q + ", " + table.Qualify(trialsDB, table.OldName(tbl, "")) + ", " + table.Qualify(trialsDB, table.GhostName(tbl)) + ", " + table.Qualify(trialsDB, table.ChangelogName(tbl)),
			"CREATE TABLE " + q + " (id BIGINT NOT NULL PRIMARY KEY, v BIGINT NOT NULL, pad VARCHAR(32) NOT NULL DEFAULT 'x') ENGINE=InnoDB",
			fmt.Sprintf("INSERT INTO %s (id, v) WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < %d) SELECT n, 0 FROM s", q, seedRows),
		} {
			if _, err := admin.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("set up: %s: %w", stmt, err)
			}
		}
	}
	return nil
}

// killHook kills one of the cut-over's connections, chosen by tr's seed, before tr.step in the
// attempts tr names; res records it.
func (tr trial) killHook(admin *sql.DB, res *trialResult) func(context.Context, cutover.Step, cutover.StepInfo) error {
	return func(ctx context.Context, step cutover.Step, info cutover.StepInfo) error {
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
}

// runTrialMigration migrates tbls with algo: one migration, or a set cut over together; hook
// (when set) is the cut-over's test seam.
func runTrialMigration(ctx context.Context, t testing.TB, tbls []string, algo string, logs *testenv.LogBuffer, hook func(context.Context, cutover.Step, cutover.StepInfo) error) error {
	var ms []*migrator.Migrator
	run := func(ctx context.Context) error { return ms[0].Run(ctx) }
	if len(tbls) == 1 {
		m, err := migrator.New(migrationConfig(t, tbls[0], algo, logs))
		if err != nil {
			return err
		}
		ms = []*migrator.Migrator{m}
	} else {
		var cfgs []config.Config
		for _, tbl := range tbls {
			cfgs = append(cfgs, migrationConfig(t, tbl, algo, logs))
		}
		set, err := migrator.NewSet(cfgs)
		if err != nil {
			return err
		}
		ms, run = set.Members(), set.Run
	}
	if hook != nil {
		for _, m := range ms {
			m.SetCutOverSeams(cutover.TestSeams{BeforeStep: hook})
		}
	}
	return run(ctx)
}

// checkOriginals checks, after a run that failed with runErr, that every original is in place
// under its name and not migrated.
func checkOriginals(ctx context.Context, admin *sql.DB, tbls []string, runErr error) error {
	for _, tbl := range tbls {
		old := table.OldName(tbl, "")
		names, err := testenv.ReadExisting(ctx, admin, trialsDB, tbl, old)
		if err != nil {
			return err
		}
		if !names[tbl] || names[old] {
			return fmt.Errorf("migration failed (%v) and left %s=%v %s=%v", runErr, tbl, names[tbl], old, names[old])
		}
		if migrated, err := hasColumn(ctx, admin, trialsDB, tbl, "note"); err != nil || migrated {
			return fmt.Errorf("migration failed (%v) but %s is the migrated table (%v)", runErr, tbl, err)
		}
	}
	return nil
}

// checkMigrated checks tbl is the migrated table, its old table is kept and no ghost is left,
// that no write of w is lost (counted in res), then drops tbl and its old table.
func checkMigrated(ctx context.Context, admin *sql.DB, tbl string, w *ledger, res *trialResult) error {
	old, ghost := table.OldName(tbl, ""), table.GhostName(tbl)
	names, err := testenv.ReadExisting(ctx, admin, trialsDB, tbl, old, ghost)
	if err != nil {
		return err
	}
	if !names[tbl] || !names[old] || names[ghost] {
		return fmt.Errorf("after the migration: %s=%v %s=%v %s=%v; want true true false", tbl, names[tbl], old, names[old], ghost, names[ghost])
	}
	if migrated, err := hasColumn(ctx, admin, trialsDB, tbl, "note"); err != nil || !migrated {
		return fmt.Errorf("%s is not the migrated table (%v)", tbl, err)
	}
	lost, desc, err := lostWrites(ctx, admin, trialsDB, tbl, w)
	if err != nil {
		return err
	}
	res.lost += lost
	res.lostDesc = append(res.lostDesc, desc...)
	if lost > 0 {
		return fmt.Errorf("%s: %d acknowledged writes lost (of %d): %v", tbl, lost, w.acked(), desc)
	}
	if w.acked() == 0 {
		return fmt.Errorf("%s: no write was acknowledged", tbl)
	}
	_, err = admin.ExecContext(ctx, "DROP TABLE IF EXISTS "+table.Qualify(trialsDB, tbl)+", "+table.Qualify(trialsDB, old))
	return err
}
