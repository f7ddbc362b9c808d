package migrator

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/tablelock"
)

const stepGateDB = "gl_stepgate"

// stepGateRun runs a migration of stepGateDB.t (300 rows) whose step gate refuses at step refuse;
// it returns the steps and phases heard, in order, and the run's error.
func stepGateRun(t *testing.T, refuse observe.Step, execute bool) ([]string, error) {
	t.Helper()
	db := testenv.Database(t, stepGateDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_300")
	cfg := testConfig(t, stepGateDB, "t", "ADD COLUMN c INT NULL", nil)
	if execute {
		live(&cfg)
	}
	m := mustNew(t, cfg)
	var heard []string // the gate and the observer both run on the run's goroutine
	m.Observe(observe.ObserverFunc(func(c observe.PhaseChange) { heard = append(heard, "phase "+c.Phase.String()) }))
	m.GateStep(func(_ context.Context, at observe.Step) error {
		heard = append(heard, at.String())
		if at == refuse {
			return errors.New("refused by the test")
		}
		return nil
	})
	err := m.Run(context.Background())
	return heard, err
}

// assertUntouched checks stepGateDB.t is the original (300 rows, no column c) and that no helper
// table of this run is left.
func assertUntouched(t *testing.T) {
	t.Helper()
	db := testenv.Open(t, testenv.PrimaryConfig(), stepGateDB)
	if testenv.HasColumn(t, db, stepGateDB, "t", "c") {
		t.Error("the original was altered")
	}
	if n := testenv.CountRows(t, db, stepGateDB, "t"); n != 300 {
		t.Errorf("the original has %d rows, want 300", n)
	}
	if left := testenv.TableNames(t, db, stepGateDB, "_t_"); len(left) != 0 {
		t.Errorf("helper tables left behind: %q", left)
	}
	var free int
	if err := db.QueryRow("SELECT IS_FREE_LOCK(?)", tablelock.Name(stepGateDB, "t")).Scan(&free); err != nil || free != 1 {
		t.Errorf("the migration lock is still held (%d, %v)", free, err)
	}
}

// TestStepGateAbortsBeforeCutOver: a step gate that fails at any step before the cut-over aborts
// the run there, as any failure of that phase: the failed phase is announced, the original is
// untouched, the ghost and the changelog are dropped, the lock released; the error is one line
// wrapping ErrAborted and the gate's.
func TestStepGateAbortsBeforeCutOver(t *testing.T) {
	all := []string{"phase prepare", "startup", "validated", "phase copy", "before-row-copy", "row-copy-complete",
		"phase checksum", "phase cut-over", "before-cut-over"}
	for _, refuse := range []observe.Step{observe.StepStartup, observe.StepValidated, observe.StepBeforeRowCopy, observe.StepRowCopyComplete, observe.StepBeforeCutOver} {
		t.Run(refuse.String(), func(t *testing.T) {
			heard, err := stepGateRun(t, refuse, true)
			if !errors.Is(err, ErrAborted) || err.Error() != "migration aborted: refused by the test; the original table is untouched" {
				t.Fatalf("got %v, want the run aborted by the gate", err)
			}
			upTo := slices.Index(all, refuse.String())
			want := append(slices.Clone(all[:upTo+1]), "phase failed")
			if !slices.Equal(heard, want) {
				t.Errorf("heard %q\nwant  %q", heard, want)
			}
			assertUntouched(t)
		})
	}
}

// A dry run passes its steps too: a gate failing at observe.StepValidated aborts it, with the ghost
// dropped as the dry run itself would.
func TestStepGateAbortsDryRun(t *testing.T) {
	heard, err := stepGateRun(t, observe.StepValidated, false)
	if !errors.Is(err, ErrAborted) {
		t.Fatalf("got %v, want the dry run aborted", err)
	}
	if want := []string{"phase prepare", "startup", "validated", "phase failed"}; !slices.Equal(heard, want) {
		t.Errorf("heard %q, want %q", heard, want)
	}
	assertUntouched(t)
}

// A gate failing at observe.StepSuccess does not undo the migration: the table is migrated, the run
// ends done (not failed), and Run returns the gate's error.
func TestStepGateFailingAtSuccess(t *testing.T) {
	heard, err := stepGateRun(t, observe.StepSuccess, true)
	if err == nil || errors.Is(err, ErrAborted) || !strings.HasPrefix(err.Error(), "the migration is complete, but refused by the test") {
		t.Fatalf("got %v, want the gate's error after a complete migration", err)
	}
	if n := len(heard); n < 2 || heard[n-2] != "phase done" || heard[n-1] != "success" || slices.Contains(heard, "phase failed") {
		t.Errorf("heard %q, want done then success, never failed", heard)
	}
	db := testenv.Open(t, testenv.PrimaryConfig(), stepGateDB)
	if !testenv.HasColumn(t, db, stepGateDB, "t", "c") || testenv.CountRows(t, db, stepGateDB, "t") != 300 {
		t.Error("the table was not migrated")
	}
}
