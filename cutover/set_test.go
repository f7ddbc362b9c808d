package cutover

import (
	"context"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Sets: several tables cut over together (Config.Also), one lock, one rename of each kind, all
// or nothing. The scenarios are the single table's, with every table of the set checked.

// Three tables under load: each original is locked and renamed away by sessions of its own and
// every ghost takes its name in one rename; every acknowledged write of each table is in its old
// or its new table, and no write finds a table missing (the originals are released in the order
// rename 2 waits on them).
func TestSetThreeStepHappyPathUnderLoad(t *testing.T) {
	f := newSetFixture(t, "set_happy", 3)
	r := f.happyPath(threeStep, []func(StepInfo) int64{lockSession, rename1Session, rename2Session}, nil)
	if len(r.steps) != 7 {
		t.Fatalf("hook saw steps %v, want 1..7", r.steps)
	}
	f.assertShortStall(r, "three-step, three tables")
	if visible, why := dbconn.MetadataLocksVisible(t.Context(), f.db); visible {
		for _, ws := range r.each { // the originals released in turn, as rename 2 waits on each
			assertNoOutage(t, ws)
		}
	} else {
		t.Logf("metadata locks not visible (%s): the originals are released at once", why)
	}
	if !f.logs.Contains("queries on `set_happy`, `set_happy_b`, `set_happy_c` were blocked") {
		t.Error("the cut-over did not lock the three tables")
	}
}

// Each session killed at each step of the first attempt, two tables: both tables end swapped
// (after a roll-back of both and a retry, or a roll-forward), and no acknowledged write of
// either is lost.
func TestSetKillEachSessionAtEachStep(t *testing.T) {
	killEachSet(t, "setchaos", threeStep, 2, 0, threeStepKillCases(true), nil)
}

// Lock-rename over two tables (MySQL 8.0.13+): one LOCK TABLES of both originals and both ghosts,
// one RENAME of all four names under it; C1 killed before and after the rename.
func TestSetLockRename(t *testing.T) {
	lockRenameHere(t)
	f := newSetFixture(t, "set_lr", 2)
	r := f.happyPath(lockRen, []func(StepInfo) int64{lockSession}, nil)
	assertNoOutage(t, r.writes)
	cases := []killCase{
		{"C1 killed before the rename", StepLockRename, lockSession, 2, "nothing was renamed", nil},
		{"C1 killed after the rename", StepLockRenameUnlock, lockSession, 1, "the swap is complete, rolling forward", nil},
	}
	killEachSet(t, "set_lr_chaos", lockRen, 2, 0, cases, assertNoOutage)
}

// The algorithms that cannot cut a set over refuse it in one line naming those that can, before
// touching the server.
func TestSetRefusedByAtomicAndTwoStep(t *testing.T) {
	for _, name := range []string{config.CutOverAtomic, config.CutOverTwoStep} {
		err := RefuseSet(name, 2)
		if err == nil || !strings.Contains(err.Error(), "--cut-over=three-step or --cut-over=lock-rename") {
			t.Errorf("%s with 2 tables: got %v", name, err)
		}
		if err := RefuseSet(name, 1); err != nil {
			t.Errorf("%s with 1 table refused: %v", name, err)
		}
	}
	for _, name := range []string{"", config.CutOverThreeStep, config.CutOverLockRename} {
		if err := RefuseSet(name, 3); err != nil {
			t.Errorf("%q with 3 tables refused: %v", name, err)
		}
	}
	db := testenv.Open(t, testenv.PrimaryConfig(), "")
	cfg := Config{DB: db, LockTimeout: 1e9, Tables: Tables{Schema: "s", Original: "a", Ghost: "_a_gho", Old: "_a_del"},
		Also: []Tables{{Schema: "s", Original: "b", Ghost: "_b_gho", Old: "_b_del"}}}
	if err := Atomic(context.Background(), cfg, noopSentinel()); err == nil || !strings.Contains(err.Error(), "cannot cut 2 tables over at once") {
		t.Fatalf("atomic with a set: got %v", err)
	}
	dup := cfg
	dup.Also = []Tables{{Schema: "s", Original: "b", Ghost: "_a_gho", Old: "_b_del"}}
	if err := ThreeStep(context.Background(), dup, noopSentinel()); err == nil || !strings.Contains(err.Error(), "must differ") {
		t.Fatalf("a ghost name shared by two tables: got %v", err)
	}
}

// The tables of a set in different layouts is a state no step leaves: unknown, nothing touched.
func TestSetMixedLayoutIsUnknown(t *testing.T) {
	in := tableState{exists: true}
	nothing := state{original: in, ghost: in}
	away := state{old: in, ghost: in}
	befores := []identities{{}, {}}
	if l := (states{nothing, nothing}).layout(befores); l != layoutNothingRenamed {
		t.Fatalf("same layouts: got %v", l)
	}
	if l := (states{nothing, away}).layout(befores); l != layoutUnknown {
		t.Fatalf("mixed layouts: got %v, want unknown", l)
	}
}
