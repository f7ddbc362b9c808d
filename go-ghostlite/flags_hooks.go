package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/hooks"
)

// hooksFlags are gh-ost's --hooks-* flags: they configure package hooks, an observer of the run.
type hooksFlags struct {
	path, hint, hintOwner, hintToken string
	statusIntervalSeconds            int64
}

// addHooksFlags registers the hooks' flags.
func addHooksFlags(fs *pflag.FlagSet, f *hooksFlags) {
	fs.StringVar(&f.path, "hooks-path", "", "directory of hook scripts: each executable named gh-ost-on-<event>* runs at that event; as in gh-ost, a failing on-startup, on-validated, on-before-row-copy, on-row-copy-complete, on-before-cut-over or on-stop-replication hook aborts the migration (see doc/hooks.md); empty: no hooks")
	fs.StringVar(&f.hint, "hooks-hint", "", "free text passed to the hooks as GH_OST_HOOKS_HINT")
	fs.StringVar(&f.hintOwner, "hooks-hint-owner", "", "free text passed to the hooks as GH_OST_HOOKS_HINT_OWNER")
	fs.StringVar(&f.hintToken, "hooks-hint-token", "", "free text passed to the hooks as GH_OST_HOOKS_HINT_TOKEN")
	fs.Int64Var(&f.statusIntervalSeconds, "hooks-status-interval", int64(hooks.DefaultStatusInterval/time.Second), "seconds between two runs of the gh-ost-on-status hook")
}

// check refuses a hooks path that is not a directory and a non-positive status interval.
func (f *hooksFlags) check() error {
	if f.statusIntervalSeconds <= 0 {
		return fmt.Errorf("--hooks-status-interval must be positive (got %d)", f.statusIntervalSeconds)
	}
	if f.path == "" {
		return nil
	}
	st, err := os.Stat(f.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("--hooks-path %s does not exist", f.path)
	case err != nil:
		return fmt.Errorf("--hooks-path: %w", err)
	case !st.IsDir():
		return fmt.Errorf("--hooks-path %s is not a directory", f.path)
	}
	return hooks.CheckPath(f.path) // nobody else may change the hooks (hooks/safety.go)
}
