package testenv

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The serial lock between processes: while a test of another process holds it shared, an
// exclusive hold waits until that test has ended.
func TestSerialWaitsForTestsOfOtherProcesses(t *testing.T) {
	if path := os.Getenv("GHOSTLITE_SERIAL_TEST_CHILD"); path != "" {
		(&serialState{path: path}).holdShared(t)
		touch(t, path+".held")
		time.Sleep(700 * time.Millisecond)
		touch(t, path+".released") // before the test ends, so before the hold is let go
		return
	}
	path := filepath.Join(t.TempDir(), "sandbox.lock")
	child := exec.Command(os.Args[0], "-test.run=^TestSerialWaitsForTestsOfOtherProcesses$")
	child.Env = append(os.Environ(), "GHOSTLITE_SERIAL_TEST_CHILD="+path)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := Poll(ctx, 10*time.Second, 10*time.Millisecond, "the other process holds the lock", func() (bool, error) {
		_, err := os.Stat(path + ".held")
		return err == nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	(&serialState{path: path}).holdExclusive(t)
	if _, err := os.Stat(path + ".released"); errors.Is(err, os.ErrNotExist) {
		t.Error("the exclusive hold was taken while a test of another process held the lock shared")
	}
	if err := child.Wait(); err != nil {
		t.Errorf("the other process: %v", err)
	}
}

// Under GHOSTLITE_TEST_SERIAL=skip a serial test lists itself (its package's folder and its
// top-level name) for script/test's serial phase and skips.
func TestSerialSkipsAndListsUnderSkip(t *testing.T) {
	list := filepath.Join(t.TempDir(), "serial")
	t.Setenv("GHOSTLITE_TEST_SERIAL", "skip")
	t.Setenv("GHOSTLITE_TEST_SERIAL_LIST", list)
	var skipped bool
	t.Run("changes a global", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Serial(t)
		t.Error("Serial returned under GHOSTLITE_TEST_SERIAL=skip")
	})
	dir, _ := os.Getwd()
	got, err := os.ReadFile(list)
	if err != nil || string(got) != dir+" TestSerialSkipsAndListsUnderSkip\n" || !skipped {
		t.Errorf("list %q (%v), skipped %v; want %q and a skip", got, err, skipped, dir+" TestSerialSkipsAndListsUnderSkip\n")
	}
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
