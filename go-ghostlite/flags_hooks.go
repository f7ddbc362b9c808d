package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-ghostlite/go-ghostlite/hooks"
)

// hooksFlags are gh-ost's --hooks-* flags: they configure package hooks, an observer of the run.
type hooksFlags struct {
	path, hint, hintOwner, hintToken string
	statusInterval                   time.Duration // --hooks-status-interval, in seconds
}

// checkHooksPath refuses a --hooks-path that is not a directory nobody else may change.
func checkHooksPath(path string) error {
	if path == "" {
		return nil
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("--hooks-path %s does not exist", path)
	case err != nil:
		return fmt.Errorf("--hooks-path: %w", err)
	case !st.IsDir():
		return fmt.Errorf("--hooks-path %s is not a directory", path)
	}
	return hooks.CheckPath(path) // nobody else may change the hooks (hooks/safety.go)
}
