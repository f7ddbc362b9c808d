package chaos

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// TestKillTool kills the go-ghostlite process itself (kill -9) before each step of the
// three-step cut-over, under a write load, and checks that the original is under its name again
// (at once, or after --recover-cut-over), that a new migration completes, and that no
// acknowledged write is lost. The binary pauses at the step through the test seam
// GHOSTLITE_TEST_PAUSE_AT_CUT_OVER_STEP (an environment variable of the binary).
func TestKillTool(t *testing.T) {
	t.Parallel() // its own databases: the three chaos tests run side by side
	testenv.Open(t, testenv.PrimaryConfig(), "")
	bin := ktBuild(t)
	var report []string
	for step := cutover.StepLock; step <= cutover.StepUnlock; step++ {
		t.Run(fmt.Sprintf("%d_before_%s", step, step), func(t *testing.T) {
			r := ktKillAt(t, bin, step)
			report = append(report, fmt.Sprintf("step %d (%s): %s", step, step, r))
		})
	}
	t.Logf("kill -9 before each cut-over step:\n%s", strings.Join(report, "\n"))
}

const ktRows = 3000

// ktKillAt runs one case and returns a one-line account of it.
func ktKillAt(t *testing.T, bin string, step cutover.Step) string {
	schema := fmt.Sprintf("gl_recover_kill_%d", step)
	db := testenv.Database(t, schema)
	t.Cleanup(func() {
		if !t.Failed() {
			testenv.Exec(t, db, "DROP DATABASE IF EXISTS `"+schema+"`")
		}
	})
	testenv.Exec(t, db, "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY, v BIGINT NOT NULL DEFAULT 0, pad VARCHAR(32)) ENGINE=InnoDB")
	for i := 0; i < ktRows; i += 500 {
		testenv.Exec(t, db, "INSERT INTO t (v, pad) VALUES "+strings.Repeat("(0, 'seed'),", 499)+"(0, 'seed')")
	}
	w := ktStartWriters(ktPool(t, schema), ktRows, 300)
	defer w.Stop()

	// 1. A migration paused before the step, then killed.
	marker := fmt.Sprintf("test: paused before cut-over step %d", step)
	p := ktStart(t, bin, int(step), marker, ktArgs(schema, "--alter=ADD COLUMN c1 INT NULL", "--execute")...)
	select {
	case <-p.marker:
	case <-p.done:
		t.Fatalf("go-ghostlite exited before pausing at step %d\n%s", step, p.output())
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Fatalf("go-ghostlite did not pause at step %d within 60s\n%s", step, p.output())
	}
	// The hook runs just after the previous step was issued: let the renames reach their wait.
	wantQueued := map[cutover.Step]int{cutover.StepObserve1: 1, cutover.StepRename2: 1, cutover.StepObserve2: 2, cutover.StepUnlock: 2}[step]
	ktWaitRenames(t, db, schema, wantQueued)
	time.Sleep(100 * time.Millisecond) // let writers queue behind the lock
	killed := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 our go-ghostlite (pid %d): %v", p.cmd.Process.Pid, err)
	}
	if code := p.wait(t, 10*time.Second); code != -1 {
		t.Fatalf("go-ghostlite exited with %d, not killed", code)
	}

	// 2. (a) Once the server has noticed the death (the dead run's renames ran or were aborted,
	// its mutex is free), is t under its name?
	settled := ktSettle(t, db, schema, killed, 2*time.Second)
	present := testenv.Existing(t, db, schema, "t")["t"]
	namesAfterKill := testenv.TableNames(t, db, schema, "")
	account := fmt.Sprintf("settled %s after the kill: t %s; tables %v", settled.Round(time.Millisecond), map[bool]string{true: "present", false: "missing"}[present], namesAfterKill)

	// (b) A new run without the recovery flag: refuses with the died-cut-over message, or with
	// the usual helper-table refusal.
	code, out := ktRun(t, bin, ktArgs(schema, "--alter=ADD COLUMN c2 INT NULL", "--execute")...)
	// The error that ends the run: the fatal line of the JSON log, with this message.
	died := fmt.Sprintf(`"message":"%s.t is missing but _t_del and _t_gho exist: a previous run died during its cut-over; run again with --recover-cut-over to restore t (nothing was changed)"`, schema)
	var drops []string
	switch {
	case code == 1 && strings.Contains(out, died) && strings.Contains(out, `{"level":"fatal"`):
		if present {
			t.Errorf("the died-cut-over refusal while t exists\n%s", out)
		}
		account += "; rerun refused: died during cut-over"
	case code == 1 && strings.Contains(out, "left by an earlier migration"):
		if !present {
			t.Errorf("t is missing but the rerun gave the helper-table refusal\n%s", out)
		}
		account += "; rerun refused: helper tables left"
		drops = append(drops, "--initially-drop-ghost-table")
		if slices.Contains(namesAfterKill, "_t_del") {
			drops = append(drops, "--initially-drop-old-table")
		}
	default:
		t.Fatalf("rerun without --recover-cut-over: exit %d, want a refusal\n%s", code, out)
	}

	// --recover-cut-over exits 0 in every state a kill leaves, and t is in place after it.
	recStart := time.Now()
	code, out = ktRun(t, bin, ktArgs(schema, "--recover-cut-over")...)
	if code != 0 {
		t.Fatalf("--recover-cut-over: exit %d\n%s", code, out)
	}
	restored := time.Now()
	if !testenv.Existing(t, db, schema, "t")["t"] {
		t.Fatalf("t is missing after --recover-cut-over\n%s", out)
	}
	switch rolledBack := strings.Contains(out, "restored: "); {
	case rolledBack && !present:
		account += fmt.Sprintf("; --recover-cut-over (a %s run) restored t %s after the kill",
			restored.Sub(recStart).Round(time.Millisecond), restored.Sub(killed).Round(time.Millisecond))
	case !rolledBack && present && strings.Contains(out, "nothing to recover"):
		account += "; --recover-cut-over: nothing to recover"
	default:
		t.Errorf("--recover-cut-over: rolled back %v while t present %v after the kill\n%s", rolledBack, present, out)
	}
	if n, first, last := loadgen.Failures(w.Writes(), 1146); n > 0 {
		account += fmt.Sprintf("; writers saw 1146 %d time(s), from %s to %s after the kill",
			n, first.Sub(killed).Round(time.Millisecond), last.Sub(killed).Round(time.Millisecond))
	} else {
		account += "; writers never saw 1146"
	}

	// (c) A final migration completes, under load.
	code, out = ktRun(t, bin, ktArgs(schema, append([]string{"--alter=ADD COLUMN c2 INT NULL", "--execute", "--ok-to-drop-table"}, drops...)...)...)
	if code != 0 {
		t.Fatalf("final migration: exit %d\n%s", code, out)
	}
	time.Sleep(200 * time.Millisecond) // a few writes on the migrated table
	st := w.Stop()
	cols := testenv.Columns(t, db, schema, "t")
	if !slices.Contains(cols, "c2") {
		t.Errorf("the final table has columns %v, want c2 added", cols)
	}

	// (d) Every acknowledged write is in the final table.
	acked := tally(w.Writes())
	ktVerify(t, db, schema, acked)
	if len(acked.other) > 0 {
		t.Errorf("%d writes failed with errors other than 1146 (table missing), first: %v", len(acked.other), acked.other[0])
	}
	account += fmt.Sprintf("; final table has %v; load acked %d, tolerated %d, max latency %s",
		cols, st.Acked, st.Tolerated, st.MaxLatency.Round(time.Millisecond))
	t.Log(account)
	return account
}

// ktWaitRenames waits (up to 5 s) until n RENAMEs of schema are queued on the server.
func ktWaitRenames(t *testing.T, db *sql.DB, schema string, n int) {
	t.Helper()
	if n == 0 {
		return
	}
	ctx := context.Background()
	var got int
	err := testenv.Poll(ctx, 5*time.Second, 5*time.Millisecond, "RENAMEs queued", func() (bool, error) {
		var err error
		got, err = ktRenames(ctx, db, schema)
		return got >= n, err
	})
	if err != nil {
		t.Fatalf("%d RENAME(s) queued, want %d (%v)", got, n, err)
	}
}

// ktSettle waits until the server has dealt with the dead run: no RENAME of schema is queued and
// its migration mutex is free. It fails the test after d; it returns when, after start, that was.
func ktSettle(t *testing.T, db *sql.DB, schema string, start time.Time, d time.Duration) time.Duration {
	t.Helper()
	ctx := context.Background()
	var queued int
	var holder sql.NullInt64
	err := testenv.Poll(ctx, d-time.Since(start), 2*time.Millisecond, "the dead run settled", func() (bool, error) {
		var err error
		if queued, err = ktRenames(ctx, db, schema); err != nil {
			return false, err
		}
		if err := db.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", "go-ghostlite."+schema+".t").Scan(&holder); err != nil {
			return false, err
		}
		return queued == 0 && !holder.Valid, nil
	})
	if err != nil {
		t.Fatalf("%s after the kill: %d RENAME(s) of the dead run still queued, mutex held by %v (%v)", d, queued, holder, err)
	}
	return time.Since(start)
}
