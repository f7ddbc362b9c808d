package cutover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// lockRenameHere limits a test of the lock-rename algorithm to the flavors that allow it.
func lockRenameHere(t *testing.T) {
	t.Helper()
	testenv.FlavorLimit(t, func(f dbconn.Flavor) bool { return RefuseOn(config.CutOverLockRename, f) == nil },
		"RENAME TABLE under LOCK TABLES is refused there (TestLockRenameRefusedOnMariaDB)")
}

// The happy path under a concurrent write load: C1 locks both tables, proves the sync on itself,
// renames under its own lock and unlocks; no write ever fails for a missing table, and every
// acknowledged write is in old or new.
func TestLockRenameHappyPathUnderLoad(t *testing.T) {
	lockRenameHere(t)
	f := newFixture(t, "lr_happy")
	r := f.happyPath(lockRen, []func(StepInfo) int64{lockSession}, nil)
	assertNoOutage(t, r.writes)
	want := []Step{StepLock, StepSentinel, StepLockRename, StepLockRenameUnlock}
	if fmt.Sprint(r.steps) != fmt.Sprint(want) {
		t.Fatalf("hook saw steps %v, want %v", r.steps, want)
	}
	f.assertShortStall(r, "lock-rename")
}

// C1 killed before, during and after the apply and the rename, with writers queued behind its
// lock whenever it holds one: the original never goes missing, nothing is lost, and the cut-over
// finishes (on a retry when nothing was renamed, at once when the rename ran).
func TestLockRenameFailureMatrix(t *testing.T) {
	lockRenameHere(t)
	cases := []killCase{
		{"C1 killed before locking", StepLock, lockSession, 2, "nothing was renamed", nil},
		{"C1 killed before the apply", StepSentinel, lockSession, 2, "nothing was renamed", nil},
		{"C1 killed before the rename", StepLockRename, lockSession, 2, "nothing was renamed", nil},
	}
	killEach(t, "lr_chaos", lockRen, StepLock, cases, assertNoOutage)
	after := []killCase{{"C1 killed after the rename", StepLockRenameUnlock, lockSession, 1, "the swap is complete, rolling forward", nil}}
	killEach(t, "lr_after", lockRen, 0, after, assertNoOutage)
}

// C1 killed while the tail is applied on it: the proof fails, nothing was renamed, the original
// is in place, and attempt 2 swaps.
func TestLockRenameKilledDuringTheApply(t *testing.T) {
	lockRenameHere(t)
	f := newFixture(t, "lr_apply")
	var c1 int64
	cfg := f.config(3, func(_ context.Context, step Step, info StepInfo) error {
		if step == StepSentinel && info.Attempt == 1 {
			c1 = info.Lock
		}
		return nil
	})
	killed := false
	s := f.track(sentinelFunc(func(ctx context.Context) error {
		if killed {
			return nil
		}
		killed = true
		if err := f.killAndWait(ctx, c1); err != nil {
			return err
		}
		return errors.New("the locking session died during the apply")
	}))
	l := f.startLoad(3)
	err := lockRen.run(context.Background(), cfg, s)
	done := time.Now()
	writes := finish(l)
	if err != nil {
		t.Fatalf("lock-rename: %v", err)
	}
	if !killed {
		t.Fatal("C1 was never killed")
	}
	f.assertSwapped()
	f.assertNoLoss(writes, done, true)
	assertNoOutage(t, writes)
}

// On MariaDB the algorithm is refused (error 1192 there), in one line naming three-step, before
// anything is touched; MySQL before 8.0.13 likewise.
func TestLockRenameRefusedOnMariaDB(t *testing.T) {
	for _, f := range []dbconn.Flavor{{MariaDB: true, Major: 10, Minor: 11}, {MariaDB: true, Major: 11, Minor: 8}, {Major: 8, Minor: 0, Patch: 12}} {
		err := RefuseOn(config.CutOverLockRename, f)
		if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "--cut-over=three-step") {
			t.Errorf("%s: got %v, want a refusal naming three-step", f, err)
		}
	}
	for _, f := range []dbconn.Flavor{{Major: 8, Minor: 0, Patch: 13}, {Major: 8, Minor: 4}, {Major: 9, Minor: 7, Patch: 4}} {
		if err := RefuseOn(config.CutOverLockRename, f); err != nil {
			t.Errorf("%s: %v, want lock-rename allowed", f, err)
		}
	}
	if !testenv.Flavor(t).MariaDB {
		return // the sandbox's lock-rename runs are TestLockRename*'s
	}
	f := newFixture(t, "lr_mariadb")
	err := lockRen.run(context.Background(), f.config(2, nil), f.noop())
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "error 1192") {
		t.Fatalf("got %v, want ErrUnsafe naming error 1192", err)
	}
	f.assertIntact()
}
