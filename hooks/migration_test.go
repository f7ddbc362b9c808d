package hooks

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/migrator"
)

const hooksDB = "gl_hooks"

// migration is a migrator of hooksDB.t (on the primary) with the hooks of r attached.
func migration(t *testing.T, r *recorder, cfg config.Config, logs *testenv.LogBuffer) (*migrator.Migrator, *Hooks) {
	t.Helper()
	cfg.Logger = testenv.Logger(t, logs).Level(zerolog.InfoLevel)
	m, err := migrator.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{Path: r.dir, StatusInterval: 500 * time.Millisecond, Alter: cfg.Alter, DryRun: !cfg.Execute,
		Hint: "deploy 42", HintOwner: "alice", HintToken: "t0k", Logger: cfg.Logger}, m)
	m.Observe(h)
	m.GateStep(h.Step)
	t.Cleanup(h.Wait)
	return m, h
}

// baseConfig is the live migration of database.t these tests run (its logger is migration's).
func baseConfig(t *testing.T, database string) config.Config {
	t.Helper()
	cfg := configtest.Config(t, database, "t", "ADD COLUMN c INT NULL", nil)
	cfg.ExactRowcount, cfg.ChunkSize = true, 100
	cfg.FlagFileInterval = 10 * time.Millisecond
	return cfg
}

// TestEveryHookOnARealMigration installs every hook and runs a migration with a throttled copy
// (long enough for on-status), a postponed cut-over and an interactive command: each hook runs
// once at its moment, in gh-ost's order, with the run's values in its environment.
func TestEveryHookOnARealMigration(t *testing.T) {
	db := testenv.Database(t, hooksDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_1000")
	r := newRecorder(t)
	for _, name := range allHooks {
		r.install(name, "")
	}
	logs := &testenv.LogBuffer{}
	cfg := baseConfig(t, hooksDB)
	cfg.ConcurrentRowcount = false // counted in preparation: on-rowcount-complete has its place in the order
	m, h := migration(t, r, cfg, logs)
	m.Throttle(true)
	if err := m.Postpone(true); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()

	r.waitRan(OnStatus, done) // the copy is held while the status ticks
	m.Throttle(false)
	r.waitRan(OnBeginPostponed, done)
	if err := h.InteractiveCommand("unpostpone"); err != nil {
		t.Fatal(err)
	}
	if err := m.Postpone(false); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 2*time.Minute); err != nil {
		t.Fatalf("migration failed: %v", err)
	}
	h.Wait()

	var order []string
	for _, name := range r.order() {
		if name != OnStatus { // its count depends on timing; it ran (waited for above)
			order = append(order, name)
		}
	}
	want := []string{OnStartup, OnValidated, OnRowCountComplete, OnBeforeRowCopy, OnRowCopyComplete,
		OnBeginPostponed, OnInteractiveCommand, OnBeforeCutOver, OnSuccess}
	if !slices.Equal(order, want) {
		t.Fatalf("hooks ran in the order\n %q\nwant\n %q", order, want)
	}
	if !logs.Contains("hook " + OnSuccess + " ran") {
		t.Error("the hooks' runs are not in the log")
	}
	checkCommonEnv(t, r)
	checkProgressEnv(t, r)
	if !testenv.HasColumn(t, db, hooksDB, "t", "c") {
		t.Error("the table was not migrated")
	}
}

// With --concurrent-rowcount (gh-ost's default) the exact count runs beside the copy, and
// on-rowcount-complete runs once it is done, with the count, not the optimizer's estimate before
// it (which was seen as 1001 for 1000 rows).
func TestRowCountCompleteAfterTheConcurrentCount(t *testing.T) {
	db := testenv.Database(t, hooksDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_1000")
	r := newRecorder(t)
	r.install(OnBeforeRowCopy, "")
	r.install(OnRowCountComplete, "")
	cfg := baseConfig(t, hooksDB)
	cfg.ConcurrentRowcount = true
	m, h := migration(t, r, cfg, nil)
	m.Throttle(true) // the copy waits until the count is done
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	r.waitRan(OnRowCountComplete, done)
	m.Throttle(false)
	if err := testenv.WaitResult(t, done, 2*time.Minute); err != nil {
		t.Fatalf("migration failed: %v", err)
	}
	h.Wait()
	if got := r.order(); !slices.Equal(got, []string{OnBeforeRowCopy, OnRowCountComplete}) {
		t.Errorf("hooks ran in the order %q, want the count's after before-row-copy", got)
	}
	if got := r.env(OnRowCountComplete)["GH_OST_ESTIMATED_ROWS"]; got != "1000" {
		t.Errorf("on-rowcount-complete: GH_OST_ESTIMATED_ROWS=%s, want the exact count 1000", got)
	}
}

// An ALTER the server does instantly (--attempt-instant-ddl) runs on-success with
// GH_OST_INSTANT_DDL=true, as gh-ost's.
func TestInstantDDLOnSuccess(t *testing.T) {
	db := testenv.Database(t, hooksDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_100")
	r := newRecorder(t)
	r.install(OnSuccess, "")
	cfg := baseConfig(t, hooksDB)
	cfg.AttemptInstantDDL = true
	m, h := migration(t, r, cfg, nil)
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("migration failed: %v", err)
	}
	h.Wait()
	if got := r.env(OnSuccess)["GH_OST_INSTANT_DDL"]; got != "true" {
		t.Errorf("on-success after an instant ALTER: GH_OST_INSTANT_DDL=%q, want true", got)
	}
	if !testenv.HasColumn(t, db, hooksDB, "t", "c") {
		t.Error("the table was not altered")
	}
}

// checkCommonEnv checks the variables every hook gets, on every run of every hook.
func checkCommonEnv(t *testing.T, r *recorder) {
	t.Helper()
	host, _ := os.Hostname()
	password := testenv.PrimaryConfig().Password
	for _, name := range allHooks {
		for _, env := range r.envs(name) {
			for k, v := range map[string]string{"GH_OST_DATABASE_NAME": hooksDB, "GH_OST_TABLE_NAME": "t",
				"GH_OST_GHOST_TABLE_NAME": "_t_gho", "GH_OST_OLD_TABLE_NAME": "_t_del", "GH_OST_DDL": "ADD COLUMN c INT NULL",
				"GH_OST_EXECUTING_HOST": host, "GH_OST_HOOKS_HINT": "deploy 42", "GH_OST_HOOKS_HINT_OWNER": "alice",
				"GH_OST_HOOKS_HINT_TOKEN": "t0k", "GH_OST_DRY_RUN": "false", "GH_OST_REVERT": "false"} {
				if env[k] != v {
					t.Errorf("%s: %s=%q, want %q", name, k, env[k], v)
				}
			}
			for k, v := range env {
				if password != "" && strings.Contains(v, password) {
					t.Errorf("%s: %s carries the password", name, k)
				}
			}
		}
	}
}

// checkProgressEnv checks the values that follow the run: rows, progress, ETA, hosts, the status
// line and the command.
func checkProgressEnv(t *testing.T, r *recorder) {
	t.Helper()
	start := r.env(OnStartup)
	if start["GH_OST_COPIED_ROWS"] != "0" || start["GH_OST_ETA_SECONDS"] != strconv.FormatInt(etaUnknown, 10) || start["GH_OST_ELAPSED_COPY_SECONDS"] != "0.000000" {
		t.Errorf("on-startup: %v", start)
	}
	if got := r.env(OnRowCountComplete)["GH_OST_ESTIMATED_ROWS"]; got != "1000" {
		t.Errorf("on-rowcount-complete: GH_OST_ESTIMATED_ROWS=%s, want the exact count 1000", got)
	}
	status := r.envs(OnStatus)[0]
	if !strings.HasPrefix(status["GH_OST_STATUS"], "'Copy: ") || !strings.Contains(status["GH_OST_STATUS"], "; ETA: ") {
		t.Errorf("on-status: GH_OST_STATUS=%q, want the status line", status["GH_OST_STATUS"])
	}
	if got := r.env(OnInteractiveCommand)["GH_OST_COMMAND"]; got != "'unpostpone'" {
		t.Errorf("on-interactive-command: GH_OST_COMMAND=%q", got)
	}
	done := r.env(OnSuccess)
	for k, v := range map[string]string{"GH_OST_COPIED_ROWS": "1000", "GH_OST_PROGRESS": "100.000000", "GH_OST_ETA_SECONDS": "0", "GH_OST_INSTANT_DDL": "false",
		"GH_OST_MIGRATED_HOST": testenv.PrimaryConfig().Host, "GH_OST_INSPECTED_HOST": testenv.PrimaryConfig().Host} {
		if done[k] != v {
			t.Errorf("on-success: %s=%q, want %q", k, done[k], v)
		}
	}
	for _, k := range []string{"GH_OST_ELAPSED_SECONDS", "GH_OST_ELAPSED_COPY_SECONDS"} {
		if f, err := strconv.ParseFloat(done[k], 64); err != nil || f <= 0 {
			t.Errorf("on-success: %s=%q, want a positive number of seconds", k, done[k])
		}
	}
	if lag, err := strconv.ParseFloat(done["GH_OST_HEARTBEAT_LAG"], 64); err != nil || lag < 0 || lag > 60 {
		t.Errorf("on-success: GH_OST_HEARTBEAT_LAG=%q", done["GH_OST_HEARTBEAT_LAG"])
	}
}

// abortOnReplica runs a --test-on-replica migration (skip-replica-stop as given) of a 300-row table
// on the sandbox replica with every hook installed and failing (exit 3) in place of its empty one,
// and checks that the hook aborted the run, that the hooks ran in the order want (on-status
// aside), that replication runs on and that the replica's original is untouched.
func abortOnReplica(t *testing.T, skipStop bool, failing string, want []string) {
	t.Helper()
	const schema = "glr_hooks_replica"
	primary := testenv.Database(t, schema)
	t.Cleanup(func() { _, _ = primary.Exec("DROP DATABASE IF EXISTS " + schema) })
	testenv.Exec(t, primary, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_300")
	testenv.WaitReplica(t)
	replica := testenv.Open(t, testenv.ReplicaConfig(), schema)
	r := newRecorder(t)
	for _, name := range allHooks {
		r.install(name, "")
	}
	r.install(failing, "echo 'not now'; exit 3")
	cfg := baseConfig(t, schema)
	cfg.Conn, cfg.AllowOnMaster, cfg.TestOnReplica, cfg.TestOnReplicaSkipReplicaStop = testenv.ReplicaConfig(), false, true, skipStop
	cfg.ExactRowcount, cfg.DefaultRetries = false, 2
	m, _ := migration(t, r, cfg, nil)
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	err := testenv.WaitResult(t, done, 2*time.Minute)
	if !errors.Is(err, migrator.ErrAborted) || !strings.Contains(err.Error(), failing+" exited with status 3") {
		t.Fatalf("got %v, want the run aborted by the hook", err)
	}
	if got := r.order(); !slices.Equal(without(got, OnStatus), want) {
		t.Fatalf("hooks ran in the order\n %q\nwant\n %q", got, want)
	}
	assertReplicating(t, replica)
	assertOriginal(t, replica, schema, 300)
}

// TestFailingBeforeCutOverOnReplica: with --test-on-replica, a failing before-cut-over hook aborts
// the run before replication is stopped (gh-ost runs it before the cut-over's attempts): no
// attempt is made, on-failure runs, replication runs on, the original is untouched and the helper
// tables are dropped.
func TestFailingBeforeCutOverOnReplica(t *testing.T) {
	testenv.Serial(t) // --test-on-replica stops replication
	abortOnReplica(t, false, OnBeforeCutOver,
		[]string{OnStartup, OnValidated, OnBeforeRowCopy, OnRowCopyComplete, OnBeforeCutOver, OnFailure})
}

// TestFailingStopReplicationOnReplica: with --test-on-replica a failing on-stop-replication aborts
// the migration before replication is stopped and anything is locked (gh-ost fails the attempt):
// on-start-replication runs, replication runs on, the replica's original is untouched. The same
// with --test-on-replica-skip-replica-stop, where the hook is what would stop replication.
func TestFailingStopReplicationOnReplica(t *testing.T) {
	testenv.Serial(t) // --test-on-replica stops replication
	for _, skipStop := range []bool{false, true} {
		t.Run(fmt.Sprintf("skip-replica-stop=%v", skipStop), func(t *testing.T) {
			abortOnReplica(t, skipStop, OnStopReplication,
				[]string{OnStartup, OnValidated, OnBeforeRowCopy, OnRowCopyComplete, OnBeforeCutOver, OnStopReplication, OnStartReplication, OnFailure})
		})
	}
}

// TestFailingHookAbortsMigration: a non-zero exit of on-startup, on-validated, on-before-row-copy,
// on-row-copy-complete or on-before-cut-over aborts the migration at once, as gh-ost does: the
// later hooks do not run but on-failure, the error is one line naming the hook and its exit status,
// the original is untouched and the ghost and changelog are dropped.
func TestFailingHookAbortsMigration(t *testing.T) {
	order := []string{OnStartup, OnValidated, OnBeforeRowCopy, OnRowCopyComplete, OnBeforeCutOver}
	for i, failing := range order {
		t.Run(failing, func(t *testing.T) {
			db := testenv.Database(t, hooksDB)
			testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_300")
			r := newRecorder(t)
			for _, name := range allHooks {
				r.install(name, "")
			}
			r.install(failing, "echo 'not now' >&2; exit 3")
			m, _ := migration(t, r, baseConfig(t, hooksDB), nil)
			err := m.Run(context.Background())
			want := "migration aborted: hook " + filepath.Join(r.dir, failing) + " exited with status 3; the original table is untouched"
			if !errors.Is(err, migrator.ErrAborted) || err.Error() != want {
				t.Fatalf("got %v\nwant %s", err, want)
			}
			ran := without(r.order(), OnStatus)
			ran = without(ran, OnRowCountComplete) // after on-validated: runs when on-validated passes
			if wantRan := append(slices.Clone(order[:i+1]), OnFailure); !slices.Equal(ran, wantRan) {
				t.Errorf("hooks ran %q, want %q", ran, wantRan)
			}
			assertOriginal(t, db, hooksDB, 300)
		})
	}
}

// TestFailingOnSuccess: the migration is done when on-success runs; its failure makes the run
// return an error naming the hook, but nothing is undone and on-failure does not run.
func TestFailingOnSuccess(t *testing.T) {
	db := testenv.Database(t, hooksDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_300")
	r := newRecorder(t)
	r.install(OnSuccess, "exit 2")
	r.install(OnFailure, "")
	m, _ := migration(t, r, baseConfig(t, hooksDB), nil)
	err := m.Run(context.Background())
	if want := "the migration is complete, but hook " + filepath.Join(r.dir, OnSuccess) + " exited with status 2"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
	if got := r.order(); !slices.Equal(got, []string{OnSuccess}) {
		t.Errorf("hooks ran %q, want on-success only", got)
	}
	if !testenv.HasColumn(t, db, hooksDB, "t", "c") || testenv.CountRows(t, db, hooksDB, "t") != 300 {
		t.Error("the table was not migrated")
	}
}

// assertOriginal checks schema.t on db is the original (rows rows, no column c) and no helper
// table is left.
func assertOriginal(t *testing.T, db *sql.DB, schema string, rows int64) {
	t.Helper()
	if testenv.HasColumn(t, db, schema, "t", "c") {
		t.Error("the original was altered")
	}
	if n := testenv.CountRows(t, db, schema, "t"); n != rows {
		t.Errorf("the original has %d rows, want %d", n, rows)
	}
	if left := testenv.TableNames(t, db, schema, "_t_"); len(left) != 0 {
		t.Errorf("helper tables left behind: %q", left)
	}
}

func without(list []string, drop string) []string {
	return slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == drop })
}

// assertReplicating checks replication runs on the replica: both threads (read by flavor).
func assertReplicating(t *testing.T, replica *sql.DB) {
	t.Helper()
	if !testenv.ReplicaRunning(t, replica) {
		t.Errorf("replication does not run after the failed cut-over: %v", testenv.ReplicaStatus(t, replica))
	}
}
