package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// A hooks directory or hook that group or others can write, or a link to a hook elsewhere, is
// refused in one line; a private directory of private hooks passes.
func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(dir, "gh-ost-on-success")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath(dir); err != nil {
		t.Fatalf("private hooks refused: %v", err)
	}
	check := func(what, want string) {
		t.Helper()
		err := CheckPath(dir)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line with %q", what, err, want)
		}
	}
	if err := os.Chmod(hook, 0o722); err != nil {
		t.Fatal(err)
	}
	check("group-writable hook", "gh-ost-on-success is writable by group or others (mode 0722): chmod go-w")
	if err := os.Chmod(hook, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	check("world-writable directory", "is writable by group or others (mode 0777)")
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(elsewhere, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(dir, "gh-ost-on-failure")); err != nil {
		t.Fatal(err)
	}
	check("link outside", "outside --hooks-path")

	if err := os.Remove(filepath.Join(dir, "gh-ost-on-failure")); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		return // only root can give a file away
	}
	if err := os.Chown(hook, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	check("another user's hook", "belongs to uid 4242")
}

// The hooks directory is checked before every hook, not only at start: one that becomes writable
// by others, or changes owner, during the run runs no hook, and an aborting hook's moment fails
// in one line naming the directory (the class: mode and owner alike).
func TestDirCheckedBeforeEachHook(t *testing.T) {
	for _, c := range []struct {
		name, want string
		change     func(dir string) error
	}{
		{"mode 0777", "is writable by group or others (mode 0777)", func(dir string) error { return os.Chmod(dir, 0o777) }},
		{"another owner", "belongs to uid 4242", func(dir string) error {
			if os.Getuid() != 0 {
				t.Skip("only root can give a directory away")
			}
			return os.Chown(dir, 4242, 4242)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRecorder(t)
			if err := os.Chmod(r.dir, 0o700); err != nil {
				t.Fatal(err)
			}
			r.install(OnBeforeCutOver, "")
			if err := CheckPath(r.dir); err != nil {
				t.Fatalf("private hooks refused at start: %v", err)
			}
			h, _ := newTestHooks(t, r, nil, status.Status{})
			ctx := context.Background()
			if err := h.Step(ctx, observe.StepBeforeCutOver); err != nil || len(r.order()) != 1 {
				t.Fatalf("before the change: %v, ran %q", err, r.order())
			}
			if err := c.change(r.dir); err != nil {
				t.Fatal(err)
			}
			err := h.Step(ctx, observe.StepBeforeCutOver)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("after the change: %v, want one line with %q", err, c.want)
			}
			if got := r.order(); len(got) != 1 {
				t.Errorf("hooks ran after the directory changed: %q", got)
			}
		})
	}
}
