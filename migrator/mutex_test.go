package migrator

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/tablelock"
)

const mutexDB = "gl_mutex"

// mutexRun starts a migration of mutexDB.t that postpones its cut-over while postpone exists,
// with the seams opts set.
func mutexRun(t *testing.T, postpone string, dropGhost bool, opts ...func(*seams)) <-chan error {
	t.Helper()
	cfg := configtest.Config(t, mutexDB, "t", "ADD COLUMN c INT NULL", nil)
	cfg.InitiallyDropGhostTable = dropGhost
	cfg.PostponeCutOverFlagFile = postpone
	cfg.FlagFileInterval = 10 * time.Millisecond
	cfg.CutOverLockTimeout = time.Second
	cfg.DefaultRetries = 2
	cfg.Logger = cfg.Logger.With().Uint32("server_id", cfg.ReplicaServerID).Logger()
	var s seams
	for _, o := range opts {
		o(&s)
	}
	return runWithSeams(t, cfg, s)
}

// innodbID is the InnoDB table id of mutexDB.name, 0 when it does not exist.
func innodbID(t *testing.T, db *sql.DB, name string) int64 {
	t.Helper()
	ctx := context.Background()
	id, err := dbconn.TableID(ctx, db, dbconn.ReadableTableIDSource(ctx, db), mutexDB, name)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// waitPostponedOwn waits until the changelog says "postponed" and is not the table notID.
func waitPostponedOwn(t *testing.T, db *sql.DB, done <-chan error, notID int64) {
	t.Helper()
	waitPostponed(t, db, done, func() bool { return innodbID(t, db, table.ChangelogName("t")) != notID })
}

// A migration whose mutex connection is killed (an idle-connection killer) loses its lock; a
// second run then starts on the same table and, told to, drops the first run's ghost and
// changelog and creates its own. The first run must notice (when it reads the drop of its ghost,
// or at its next destructive step, the cut-over), stop with a clear error, and drop nothing: the tables under the helper names are
// the second run's now. The second run then completes.
func TestLostMutexStopsWithoutDroppingOthersTables(t *testing.T) {
	db := testenv.Table(t, mutexDB, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO t SELECT seq, seq FROM seq_1_to_2000")
	dir := t.TempDir()
	postponeA, postponeB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, p := range []string{postponeA, postponeB} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ghost, changelog := table.GhostName("t"), table.ChangelogName("t")

	doneA := mutexRun(t, postponeA, false)
	waitPostponedOwn(t, db, doneA, 0)
	ghostA, changelogA := innodbID(t, db, ghost), innodbID(t, db, changelog)

	// Kill A's mutex connection, as an idle-connection killer would.
	if err := killMutexHolder(context.Background(), db); err != nil {
		t.Fatal(err)
	}

	// B takes the free lock and, told to, replaces A's helper tables with its own.
	doneB := mutexRun(t, postponeB, true)
	waitPostponedOwn(t, db, doneB, changelogA)
	ghostB, changelogB := innodbID(t, db, ghost), innodbID(t, db, changelog)
	if ghostB == 0 || ghostB == ghostA || changelogB == 0 {
		t.Fatalf("B did not create its own helper tables (ghost %d -> %d, changelog %d -> %d)", ghostA, ghostB, changelogA, changelogB)
	}

	// A goes on to its cut-over.
	if err := os.Remove(postponeA); err != nil {
		t.Fatal(err)
	}
	// A stops on B's drop of its ghost as soon as it reads it (binlogapply.ErrHelperChanged), or
	// at its cut-over on the lost lock; either way it touches nothing of B's.
	errA := testenv.WaitResult(t, doneA, 60*time.Second)
	lost := errors.Is(errA, tablelock.ErrLost) && strings.Contains(errA.Error(), "migration lock")
	if !lost && !errors.Is(errA, binlogapply.ErrHelperChanged) {
		t.Fatalf("run A ended with %v, want tablelock.ErrLost or ErrHelperChanged", errA)
	}
	t.Logf("run A stopped: %v", errA)
	if got := innodbID(t, db, ghost); got != ghostB {
		t.Fatalf("B's ghost table was touched by A: id %d, want %d", got, ghostB)
	}
	if got := innodbID(t, db, changelog); got != changelogB {
		t.Fatalf("B's changelog table was touched by A: id %d, want %d", got, changelogB)
	}
	if hasColumnC(t, db) {
		t.Fatal("run A cut over although it had lost its lock")
	}

	// B, the lock holder, finishes.
	if err := os.Remove(postponeB); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, doneB, 60*time.Second); err != nil {
		t.Fatalf("run B: %v", err)
	}
	if !hasColumnC(t, db) {
		t.Fatal("run B did not migrate t")
	}
}

// hasColumnC reports whether mutexDB.t has the column the migrations add.
func hasColumnC(t *testing.T, db *sql.DB) bool {
	t.Helper()
	return testenv.HasColumn(t, db, mutexDB, "t", "c")
}

// killMutexHolder kills the connection holding the migration lock of mutexDB.t.
func killMutexHolder(ctx context.Context, db *sql.DB) error {
	var holder sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", tablelock.Name(mutexDB, "t")).Scan(&holder); err != nil || !holder.Valid {
		return fmt.Errorf("find the mutex holder: %v (held: %v)", err, holder.Valid)
	}
	_, err := db.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", holder.Int64))
	return err
}

// The lock can also be lost between cut-over attempts: every attempt checks it under its lock,
// before any rename, and the cut-over stops without retrying. With the lock gone the run cannot
// tell whose the helper tables are: it leaves them.
func TestLostMutexStopsCutOverAttempt(t *testing.T) {
	db := testenv.Table(t, mutexDB, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO t SELECT seq, seq FROM seq_1_to_500")
	killed := false
	hooks := cutover.TestSeams{BeforeStep: func(ctx context.Context, step cutover.Step, info cutover.StepInfo) error {
		if info.Attempt == 1 && step == cutover.StepSentinel {
			killed = true
			return killMutexHolder(ctx, db)
		}
		return nil
	}}
	done := mutexRun(t, "", false, func(s *seams) { s.cutOver = hooks })
	err := testenv.WaitResult(t, done, 60*time.Second)
	if !killed {
		t.Fatal("the cut-over never reached the sentinel")
	}
	if !errors.Is(err, tablelock.ErrLost) || !errors.Is(err, cutover.ErrUnsafe) {
		t.Fatalf("run ended with %v, want tablelock.ErrLost stopping the cut-over", err)
	}
	if hasColumnC(t, db) {
		t.Fatal("cut over without the lock")
	}
	left := testenv.TableNames(t, db, mutexDB, "_t_")
	if len(left) != 2 {
		t.Fatalf("helper tables %v; want the ghost and the changelog left in place", left)
	}
}

// A table under a helper name that this run did not create is never dropped, even with the lock
// held: here the ghost is replaced behind the run's back.
func TestDropOnlyTablesThisRunCreated(t *testing.T) {
	db := testenv.Table(t, mutexDB, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)")
	cfg := testConfig(t, mutexDB, "t", "ADD COLUMN c INT NULL", nil)
	m := mustNew(t, cfg)
	ctx := context.Background()
	s, err := m.prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	ghost := table.GhostName("t")
	testenv.Exec(t, db, "DROP TABLE "+table.QuoteIdent(ghost), "CREATE TABLE "+table.QuoteIdent(ghost)+" (other INT)")
	err = s.dropGhost(ctx)
	if err == nil || !strings.Contains(err.Error(), "not the table this run created") {
		t.Fatalf("dropGhost: %v, want a refusal", err)
	}
	if got := testenv.TableNames(t, db, mutexDB, ghost); len(got) != 1 {
		t.Fatalf("the other table under the ghost's name was dropped: %v", got)
	}
	// The run's own ghost is dropped as before.
	testenv.Exec(t, db, "DROP TABLE "+table.QuoteIdent(ghost))
	s.close()
	m2 := mustNew(t, cfg)
	s3, err := m2.prepare(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s3.close()
	if err := s3.dropGhost(ctx); err != nil {
		t.Fatalf("drop own ghost: %v", err)
	}
	if got := testenv.TableNames(t, db, mutexDB, ghost); len(got) != 0 {
		t.Fatalf("own ghost not dropped: %v", got)
	}
}
