package migrator

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Other sessions' routine work during a run, beside the maintenance statements of routine_test.go:
// a consistent dump of the schema while the rows are copied, an event scheduler job writing the
// table, and a restart of the server while the cut-over holds its lock. Each either rides it out
// (the server's own ALTER's result, no acknowledged write lost) or stops naming the real cause,
// the original in place, and --resume finishes the migration.

const (
	routineCreate = "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(40) NOT NULL)"
	routineFill   = "INSERT INTO t SELECT seq, CONCAT('r', seq) FROM seq_1_to_3000"
	routineAlter  = "ADD COLUMN c INT NOT NULL DEFAULT 3"
)

// routineLoad updates, inserts and deletes rows of t.
func routineLoad(db *sql.DB) *loadgen.Load {
	return loadgen.Start(context.Background(), loadgen.Config{DB: db, Rate: 200, Workers: 2, Ops: []loadgen.Op{
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET v = CONCAT('u', ?) WHERE id = ?", []any{r.Intn(1000), 1 + r.Intn(4000)}
		},
		func(r *rand.Rand) (string, []any) {
			return "INSERT INTO t (id, v) VALUES (?, 'new') ON DUPLICATE KEY UPDATE v = 'dup'", []any{1 + r.Intn(4000)}
		},
		func(r *rand.Rand) (string, []any) { return "DELETE FROM t WHERE id = ?", []any{1 + r.Intn(4000)} },
	}})
}

// stopLoadAndSnapshot stops the load (it must have written and never failed) and copies t, as of
// the cut-over, into want: what the server's ALTER is given.
func stopLoadAndSnapshot(t *testing.T, db *sql.DB, load *loadgen.Load) {
	t.Helper()
	if !load.WaitAcked(load.Acked()+50, 30*time.Second) {
		t.Fatalf("the load did not write: %v", load.Err())
	}
	if st := load.Stop(); st.Failed > 0 {
		t.Fatalf("the load failed: %v", st.FirstError)
	}
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
}

// A `mysqldump --single-transaction` of the whole schema (the original and the helper tables)
// runs while the rows are copied and the load writes: its snapshot and its metadata locks are
// ridden out, and the dump completes too.
func TestDumpDuringTheCopy(t *testing.T) {
	t.Parallel() // a database of its own
	db, cfg, postponeFile := sameResultSetup(t, routineCreate, routineAlter, routineFill)
	cfg.ChunkSize = 300
	dump := testenv.DumpCommand(t, "--single-transaction", "--skip-lock-tables", cfg.Database)
	var out, stderr bytes.Buffer
	dump.Stdout, dump.Stderr = &out, &stderr
	dumped := make(chan error, 1)
	var started atomic.Bool
	s := seams{beforeChunk: func(ctx context.Context, n int64) error {
		switch n {
		case 2: // the dump starts while the copy goes on
			if err := dump.Start(); err != nil {
				return fmt.Errorf("start %s: %w", dump.Path, err)
			}
			started.Store(true)
			go func() { dumped <- dump.Wait() }()
		case 6: // and has ended before the copy does
			select {
			case err := <-dumped:
				dumped <- err
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}}
	load := routineLoad(db)
	defer load.Stop()
	done := runWithSeams(t, cfg, s)
	waitPostponed(t, db, done)
	if !started.Load() {
		t.Fatal("the copy never reached its chunk 2: the dump did not run during it")
	}
	if err := <-dumped; err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(dump.Args, " "), err, stderr.String())
	}
	if !strings.Contains(out.String(), "CREATE TABLE `t`") || !strings.Contains(out.String(), "INSERT INTO `t` VALUES") {
		t.Errorf("the dump lacks t: %d bytes, %s", out.Len(), stderr.String())
	}
	stopLoadAndSnapshot(t, db, load)
	finishRun(t, postponeFile, done)
	assertSameAsServerAlter(t, db, "want", routineAlter)
}

// An event scheduler job writing t every second, from before the run until the cut-over is
// postponed: its writes reach the ghost like any session's.
func TestEventSchedulerJobDuringTheRun(t *testing.T) {
	db, cfg, postponeFile := sameResultSetup(t, routineCreate, routineAlter, routineFill)
	testenv.SetGlobal(t, db, "event_scheduler", "ON")
	const fired = "SELECT COUNT(*) FROM t WHERE id > 10000"
	testenv.Exec(t, db, `CREATE EVENT gl_routine_job ON SCHEDULE EVERY 1 SECOND DO BEGIN
		INSERT INTO t (id, v) SELECT 10001 + COUNT(*), 'event' FROM t WHERE id > 10000;
		UPDATE t SET v = CONCAT(v, 'e') WHERE id <= 5; END`)
	t.Cleanup(func() { _, _ = db.Exec("DROP EVENT IF EXISTS gl_routine_job") })
	done := runToPostponed(t, db, cfg)
	var before int
	if err := db.QueryRow(fired).Scan(&before); err != nil {
		t.Fatal(err)
	}
	testenv.WaitFor(t, 10*time.Second, 50*time.Millisecond, "the job to write t twice during the run", func() (bool, error) {
		var n int
		err := db.QueryRow(fired).Scan(&n)
		return n >= before+2, err
	})
	testenv.Exec(t, db, "DROP EVENT gl_routine_job")
	testenv.WaitFor(t, 10*time.Second, 20*time.Millisecond, "the job's last run to end", func() (bool, error) {
		var n int
		err := db.QueryRow(`SELECT COUNT(*) FROM ` + dbconn.ProcesslistTable(context.Background(), db) + ` WHERE INFO LIKE '%10001 + COUNT%'
			AND ID <> CONNECTION_ID()`).Scan(&n)
		return n == 0, err
	})
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	finishRun(t, postponeFile, done)
	assertSameAsServerAlter(t, db, "want", routineAlter)
}

// The primary restarts while the cut-over holds the original locked, before the sentinel is
// written: every session of the run is cut. The run either completes or stops naming the lost
// connection, the original in place under its name with every acknowledged write; with
// --checkpoint, --resume then completes the migration with the server's ALTER's result.
func TestServerRestartDuringTheCutOver(t *testing.T) {
	testenv.Serial(t) // it restarts the primary
	if !testenv.CanRestartServers() {
		testenv.Unavailable(t, "GHOSTLITE_TEST_SANDBOX is not set: the test restarts the sandbox primary")
	}
	db, cfg, postponeFile := sameResultSetup(t, routineCreate, routineAlter, routineFill)
	cfg.Checkpoint, cfg.CheckpointInterval = true, 100*time.Millisecond
	restarted := false
	s := seams{cutOver: cutover.TestSeams{BeforeStep: func(ctx context.Context, step cutover.Step, info cutover.StepInfo) error {
		if step != cutover.StepSentinel || restarted {
			return nil
		}
		restarted = true
		return testenv.RestartServerErr(context.WithoutCancel(ctx), "primary") // never cut short: a half-done restart leaves the server down
	}}}
	load := routineLoad(db)
	defer load.Stop()
	done := runWithSeams(t, cfg, s)
	waitPostponed(t, db, done)
	stopLoadAndSnapshot(t, db, load)
	time.Sleep(2 * cfg.CheckpointInterval) // a checkpoint after the last write
	if err := os.Remove(postponeFile); err != nil {
		t.Fatal(err)
	}
	err := testenv.WaitResult(t, done, 120*time.Second)
	if !restarted {
		t.Fatalf("the cut-over never reached its sentinel step (run: %v)", err)
	}
	testenv.WaitReplica(t)
	if err != nil {
		t.Logf("the run stopped: %v", err)
		assertNamesLostConnection(t, err)
		if testenv.HasColumn(t, db, cfg.Database, "t", "c") {
			t.Fatal("the run failed, yet t is migrated")
		}
		assertSameRows(t, db, "t", "want")
		resumed := cfg
		resumed.Resume = true
		live(&resumed)
		if err := testenv.WaitResult(t, runMigration(t, resumed), 90*time.Second); err != nil {
			t.Fatalf("--resume after the restart: %v", err)
		}
	}
	assertSameAsServerAlter(t, db, "want", routineAlter)
	if left := testenv.TableNames(t, db, cfg.Database, "_t_"); len(left) > 0 {
		t.Errorf("helper tables left: %v", left)
	}
}

// assertNamesLostConnection checks a run's error names the server's restart (the cut-over's lock
// check, once the server is back) or its going away (the binlog stream, while it is down), not a
// consequence of it.
func assertNamesLostConnection(t *testing.T, err error) {
	t.Helper()
	if !strings.Contains(err.Error(), "the server restarted") && !strings.Contains(err.Error(), "the server stopped answering") {
		t.Errorf("the error does not name the restart: %v", err)
	}
}
