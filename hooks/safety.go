package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Hooks run with the migration's privileges, so whoever can change them can drive the run. A hook
// runs only from --hooks-path itself (a link whose target lies elsewhere is refused), and neither
// the directory nor a hook may be writable by group or others, or belong to another user than
// this one or root: CheckPath refuses such a
// --hooks-path at start-up; the directory is checked again (owner and mode) before every hook, and
// one that became so since runs no hook (each counts as failed); a hook that became so since is
// skipped (with a warning) when its moment comes. Hooks are executed directly (no shell), each within Config.Timeout.

// HookPrefix starts the name of every hook file.
const HookPrefix = "gh-ost-on-"

// CheckPath refuses a hooks directory, or a hook in it, that others could change, in one line
// naming the fix.
func CheckPath(dir string) error {
	real, err := checkDir(dir)
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(real)
	if err != nil {
		return fmt.Errorf("--hooks-path: %w", err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), HookPrefix) {
			continue
		}
		if _, err := hookFile(real, e.Name()); err != nil {
			return err
		}
	}
	return nil
}

// checkDir resolves the hooks directory dir and refuses it, in one line naming the fix, when it
// is not a directory, is writable by group or others, or belongs to another user than this one
// or root. It runs at start-up (CheckPath) and again before each hook runs: a directory that
// changed owner or mode since runs no hook.
func checkDir(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("--hooks-path: %w", err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("--hooks-path: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("--hooks-path %s is not a directory", dir)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("--hooks-path %s is writable by group or others (mode %04o): anyone who can write there can run commands as this migration; chmod go-w %s", dir, st.Mode().Perm(), dir)
	}
	if uid, ok := foreignOwner(st); ok {
		return "", fmt.Errorf("--hooks-path %s belongs to uid %d, neither this user nor root: its owner could change the hooks; use a directory of your own", dir, uid)
	}
	return real, nil
}

// hookFile is the path to run for the entry name of the (resolved) hooks directory dir: an error
// when it is not a regular file, lies outside dir, or is writable by group or others.
func hookFile(dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("hook %s: %w", path, err)
	}
	if filepath.Dir(target) != dir {
		return "", fmt.Errorf("hook %s links to %s, outside --hooks-path: copy the hook into %s instead", path, target, dir)
	}
	st, err := os.Stat(target)
	if err != nil {
		return "", fmt.Errorf("hook %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("hook %s is not a regular file", path)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("hook %s is writable by group or others (mode %04o): chmod go-w %s", path, st.Mode().Perm(), target)
	}
	if uid, ok := foreignOwner(st); ok {
		return "", fmt.Errorf("hook %s belongs to uid %d, neither this user nor root: its owner could change it; chown it", path, uid)
	}
	return target, nil
}

// foreignOwner returns the owner of st when it is neither this process's user nor root (who
// could change the file anyway).
func foreignOwner(st os.FileInfo) (uint32, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return sys.Uid, sys.Uid != 0 && int(sys.Uid) != os.Getuid()
}
