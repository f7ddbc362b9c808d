package cutover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// The ambiguous renames: the tool sees a rename session fail while the server still completes
// its RENAME (a KILL landing as the rename is granted). Reproduced deterministically: the rename
// is made to wait on a metadata lock the test holds, its connection is closed on the client side
// (the tool gets an error at once, the server keeps the statement), and the test lets the
// server's RENAME run only once the tool's recovery has issued its own rename. Recovery must not
// read the state while a rename session of ours can still act, and must never give advice the
// final state contradicts.

// assertConsistent checks the outcome against the tables: success means swapped; a failure means
// the original is intact (and no "by hand" advice, since nothing is left to do by hand).
func (f *fixture) assertConsistent(err error) {
	f.t.Helper()
	if err == nil {
		f.assertSwapped()
		return
	}
	if errors.Is(err, ErrUnknownState) || strings.Contains(err.Error(), "by hand") {
		orig, old, ghost := f.exists()
		f.t.Fatalf("cut-over gave up with %v\nwhile the tables are %s=%v %s=%v %s=%v (swap complete or original intact: no advice applies)",
			err, f.tables.Original, orig, f.tables.Old, old, f.tables.Ghost, ghost)
	}
	f.assertIntact()
}

// cutWhenWaiting waits (in the background) until the rename session id waits on a metadata lock,
// closes its client side, then releases the test's metadata lock once another RENAME (the
// recovery's) waits too, or when done closes.
//
//nolint:contextcheck // its own context: the watcher outlives the hook that starts it
func (f *fixture) cutWhenWaiting(cc *clientCut, id int64, release func(), done <-chan struct{}) (cut <-chan struct{}, result <-chan error) {
	out := make(chan error, 1)
	cutc := make(chan struct{})
	go func() {
		defer release()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := f.waitFor(ctx, "rename waiting on a metadata lock", func() (bool, error) {
			var n int
			err := f.admin.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+dbconn.ProcesslistTable(ctx, f.admin)+` WHERE ID = ? AND STATE = ?`, id, mdlWaitState).Scan(&n)
			return n == 1, err
		})
		if err == nil {
			err = cc.cut(id)
		}
		if err != nil {
			out <- fmt.Errorf("cut connection %d: %w", id, err)
			return
		}
		close(cutc)
		for {
			select {
			case <-done:
				out <- nil
				return
			case <-time.After(5 * time.Millisecond):
			}
			if other, err := f.renameWaitingExcept(ctx, id); err != nil || other {
				out <- err
				return
			}
		}
	}()
	return cutc, out
}

// ambiguousRename runs algo (one attempt) on a pool whose connections the test can cut on the
// client side. Before step of attempt 1 the hook holds a metadata lock on the ghost, so the
// rename session victim picks waits; once it waits its client side is cut and, when the recovery's
// own rename waits too, the lock is released (the server completes both in order). With
// cutBeforeStep the hook returns only once the cut is done. It returns the cut-over's error,
// checked consistent with the tables.
func (f *fixture) ambiguousRename(algo algoRunner, step Step, victim func(StepInfo) int64, cutBeforeStep bool) error {
	t := f.t
	t.Helper()
	cc := &clientCut{}
	done := make(chan struct{})
	var bg <-chan error
	hook := func(ctx context.Context, s Step, info StepInfo) error {
		if info.Attempt != 1 || s != step {
			return nil
		}
		release, err := f.holdMDL(ctx, f.tables.Ghost)
		if err != nil {
			return err
		}
		var cut <-chan struct{}
		cut, bg = f.cutWhenWaiting(cc, victim(info), release, done)
		if !cutBeforeStep {
			return nil
		}
		select {
		case <-cut:
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("the rename was not cut")
		}
	}
	cfg := f.config(1, hook)
	cfg.DB = f.cuttablePool(cc)
	err := algo.run(context.Background(), cfg, f.noop())
	close(done)
	if bg == nil {
		t.Fatal("the hook never ran")
	}
	if berr := <-bg; berr != nil {
		t.Fatal(berr)
	}
	f.assertConsistent(err)
	return err
}

// Two-step: the rename-in session fails on the client while the server still renames the ghost
// in. The old recovery read "original missing", rolled forward, got "_t_gho doesn't exist" and
// told the user to rename it in by hand, while the swap was complete.
func TestTwoStepRenameInAmbiguous(t *testing.T) {
	f := newFixture(t, "t_amb")
	if err := f.ambiguousRename(twoStep, StepRenameIn, rename1Session, false); err != nil {
		t.Fatalf("TwoStep: %v (the sentinel was applied: the recovery must roll forward)", err)
	}
}

// Three-step: rename 2 fails on the client just as the unlock lets it run, while the server
// completes it. The old recovery read "original missing", rolled back, got "Table already
// exists" and told the user to rename the old table back by hand, while the swap was complete.
// The original's name sorts before the ghost's (upper case < '_'), so rename 2 takes the
// original's name first and then waits on the ghost, which the test holds. Rename 2 already
// waits (observed) before the unlock: it is cut before the unlock.
func TestThreeStepRename2Ambiguous(t *testing.T) {
	f := newFixture(t, "Amb3")
	if err := f.ambiguousRename(threeStep, StepUnlock, rename2Session, true); err != nil {
		// Rolled back: a retry must finish the migration.
		if err := ThreeStep(context.Background(), f.config(1, nil), f.noop()); err != nil {
			t.Fatalf("retry: %v", err)
		}
		f.assertSwapped()
	}
}

// A rename of the recovery fails because the state changed after it was read (here another
// session completes the swap meanwhile): the recovery reads the state again and decides again,
// instead of retrying blindly and then advising a rename the tables contradict.
func TestRecoveryRereadsStateAfterRenameError(t *testing.T) {
	f := newFixture(t, "t_reread")
	ctx := context.Background()
	var bg <-chan error
	done := make(chan struct{})
	other := make(chan error, 1)
	hook := func(ctx context.Context, step Step, info StepInfo) error {
		if info.Attempt != 1 || step != StepRenameIn {
			return nil
		}
		release, err := f.holdMDL(ctx, f.tables.Ghost)
		if err != nil {
			return err
		}
		conn, err := f.admin.Conn(ctx)
		if err != nil {
			release()
			return err
		}
		var id int64
		if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
			release()
			return err
		}
		go func() { //nolint:contextcheck // the other session's rename outlives the hook
			defer conn.Close()
			_, err := conn.ExecContext(context.Background(), f.rename(f.tables.Ghost, f.tables.Original))
			other <- err
		}()
		// Once the recovery's own rename waits behind the other session's, let that one run.
		out := make(chan error, 1)
		bg = out
		go func() {
			defer release()
			out <- f.waitFor(ctx, "the recovery's rename waiting", func() (bool, error) {
				select {
				case <-done:
					return true, nil
				default:
				}
				return f.renameWaitingExcept(ctx, id)
			})
		}()
		return errors.New("injected failure after the rename away")
	}
	cfg := f.config(1, hook)
	cfg.PollInterval = time.Millisecond
	err := TwoStep(ctx, cfg, f.noop())
	close(done)
	if bg == nil {
		t.Fatal("the hook never ran")
	}
	if berr := <-bg; berr != nil {
		t.Fatal(berr)
	}
	if oerr := <-other; oerr != nil {
		t.Fatalf("the other session's rename: %v", oerr)
	}
	f.assertConsistent(err)
	if err != nil {
		t.Fatalf("TwoStep: %v (the swap was completed by the other session: the recovery must see it)", err)
	}
	if !f.logs.Contains("reading the tables' state again") {
		t.Fatal("the recovery's rename did not fail: the test did not provoke the race")
	}
}
