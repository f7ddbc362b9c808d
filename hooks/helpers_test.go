package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/status"
)

// allHooks is every hook gh-ost runs, by file-name prefix.
var allHooks = []string{OnStartup, OnValidated, OnRowCountComplete, OnBeforeRowCopy, OnStatus,
	OnInteractiveCommand, OnRowCopyComplete, OnStopReplication, OnStartReplication, OnBeginPostponed,
	OnBeforeCutOver, OnSuccess, OnFailure}

// recorder installs hooks that record each run: the hook's name appended to out/order (one
// write, so runs from two goroutines do not mix) and its GH_OST_* environment in out/<name>.<pid>.
type recorder struct {
	t        *testing.T
	dir, out string
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{t: t, dir: t.TempDir(), out: t.TempDir()}
	return r
}

// install writes the hook name (a file name: a suffix after the prefix is allowed, as gh-ost's
// glob) that records its run, then runs tail (shell) for its exit status.
func (r *recorder) install(name, tail string) {
	r.t.Helper()
	script := fmt.Sprintf("#!/bin/sh\nenv | grep '^GH_OST_' | sort > %q/%s.$$\necho %s >> %q/order\n%s\n",
		r.out, name, name, r.out, tail)
	if err := os.WriteFile(filepath.Join(r.dir, name), []byte(script), 0o755); err != nil {
		r.t.Fatal(err)
	}
}

// order is the hooks that ran, in order.
func (r *recorder) order() []string {
	b, err := os.ReadFile(filepath.Join(r.out, "order"))
	if err != nil && !os.IsNotExist(err) {
		r.t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// ran says whether hook name has run.
func (r *recorder) ran(name string) bool {
	for _, n := range r.order() {
		if n == name {
			return true
		}
	}
	return false
}

// envs is the environment of each run of hook name (in no particular order).
func (r *recorder) envs(name string) []map[string]string {
	r.t.Helper()
	files, err := filepath.Glob(filepath.Join(r.out, name+".*"))
	if err != nil {
		r.t.Fatal(err)
	}
	var out []map[string]string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			r.t.Fatal(err)
		}
		env := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			k, v, _ := strings.Cut(line, "=")
			env[k] = v
		}
		out = append(out, env)
	}
	return out
}

// env is the environment of hook name's only run.
func (r *recorder) env(name string) map[string]string {
	r.t.Helper()
	envs := r.envs(name)
	if len(envs) != 1 {
		r.t.Fatalf("%s ran %d times, want once", name, len(envs))
	}
	return envs[0]
}

// waitRan waits until hook name has run.
func (r *recorder) waitRan(name string, done <-chan error) {
	r.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !r.ran(name) {
		select {
		case err := <-done:
			r.t.Fatalf("the run ended (%v) before %s ran; hooks run: %q", err, name, r.order())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s did not run; hooks run: %q", name, r.order())
		}
	}
}

// fakeControls is a observe.Controls with a fixed Status, for tests without a server.
type fakeControls struct {
	mu sync.Mutex
	st status.Status
}

func (f *fakeControls) Status() status.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st
}
func (f *fakeControls) Knobs() []string            { return nil }
func (f *fakeControls) Get(string) (string, error) { return "", nil }
func (f *fakeControls) Set(string, string) error   { return nil }
func (f *fakeControls) Throttle(bool)              {}
func (f *fakeControls) Postpone(bool) error        { return nil }
func (f *fakeControls) Panic(string)               {}
