package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// The hooks' and the metrics' flags are in supportedFlags (flags_test.go); gh-ost's default
// holds, and gh-ost's StatsD flags are supported (metrics.StatsD).
func TestObserverFlagsDefaults(t *testing.T) {
	cfg := config.Default()
	fs := newFlagSet(&cfg, &flagValues{})
	if f := fs.Lookup("hooks-status-interval"); f == nil || f.DefValue != "60" {
		t.Errorf("--hooks-status-interval defaults to %v, want gh-ost's 60", f)
	}
	for _, name := range []string{"statsd-addr", "statsd-tags"} {
		if f := fs.Lookup(name); f == nil || f.Hidden {
			t.Errorf("--%s should be a supported flag", name)
		}
	}
}

func TestObserverFlagsParse(t *testing.T) {
	dir := t.TempDir()
	inv, err := parse(t, append(slices.Clone(required), "--hooks-path="+dir, "--hooks-hint=h", "--hooks-hint-owner=o",
		"--hooks-hint-token=k", "--hooks-status-interval=5", "--metrics-addr=127.0.0.1:9100")...)
	if err != nil {
		t.Fatal(err)
	}
	want := hooksFlags{path: dir, hint: "h", hintOwner: "o", hintToken: "k", statusInterval: 5 * time.Second}
	if inv.Hooks != want || inv.Metrics.addr != "127.0.0.1:9100" {
		t.Fatalf("parsed %+v %+v", inv.Hooks, inv.Metrics)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for arg, msg := range map[string]string{
		"--hooks-path=" + filepath.Join(dir, "none"): "does not exist",
		"--hooks-path=" + file:                       "is not a directory",
		"--hooks-status-interval=0":                  "--hooks-status-interval must be positive",
	} {
		if _, err := parse(t, append(slices.Clone(required), arg)...); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: got %v, want %q", arg, err, msg)
		}
	}
}

// A busy --metrics-addr fails the run before anything is done (exit 1).
func TestMetricsAddrBusy(t *testing.T) {
	first, err := parse(t, append(slices.Clone(required), "--metrics-addr=127.0.0.1:0")...)
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrator.New(first.Config)
	if err != nil {
		t.Fatal(err)
	}
	o, err := attachObservers(first, m)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	addr := o.metrics.Addr()
	var stderr bytes.Buffer
	code := run(append(slices.Clone(required), "--metrics-addr="+addr), &bytes.Buffer{}, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "--metrics-addr "+addr) {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

// dryRunWithHooks runs the command line's dry run of "ADD COLUMN c INT" on database.t of the
// sandbox with the hooks in dir (and more flags), and returns its exit code and stderr.
func dryRunWithHooks(database, dir string, more ...string) (int, string) {
	c := testenv.PrimaryConfig()
	args := append([]string{"--host=" + c.Host, "--port=" + strconv.Itoa(c.Port), "--user=" + c.User, "--password=" + c.Password,
		"--allow-on-master", "--database=" + database, "--table=t", "--alter=ADD COLUMN c INT", "--quiet",
		"--hooks-path=" + dir}, more...)
	var stderr bytes.Buffer
	code := run(args, &bytes.Buffer{}, &stderr)
	return code, stderr.String()
}

// The command line wires the hooks: a dry run on the sandbox runs on-startup, on-validated and
// on-success, told it is a dry run.
func TestHooksWiredOnADryRun(t *testing.T) {
	const dbName = "gl_main_hooks"
	db := testenv.Database(t, dbName)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY)")
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "ran")
	for _, name := range []string{"gh-ost-on-startup", "gh-ost-on-validated", "gh-ost-on-success", "gh-ost-on-failure"} {
		script := "#!/bin/sh\necho \"$(basename \"$0\") $GH_OST_DRY_RUN $GH_OST_HOOKS_HINT\" >> " + out + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if code, stderr := dryRunWithHooks(dbName, dir, "--hooks-hint=dry"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "gh-ost-on-startup true dry\ngh-ost-on-validated true dry\ngh-ost-on-success true dry\n"; string(got) != want {
		t.Fatalf("hooks ran:\n%s\nwant:\n%s", got, want)
	}
}

// A failing gh-ost-on-validated aborts the run: exit 1, one line on stderr naming the hook and
// its exit status; on-failure runs, on-success does not; nothing is left on the server.
func TestFailingHookExitsNonZero(t *testing.T) {
	const dbName = "gl_main_hooks"
	db := testenv.Database(t, dbName)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY)")
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "ran")
	for name, exit := range map[string]int{"gh-ost-on-validated": 5, "gh-ost-on-success": 0, "gh-ost-on-failure": 0} {
		script := fmt.Sprintf("#!/bin/sh\nbasename \"$0\" >> %s\nexit %d\n", out, exit)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	code, stderr := dryRunWithHooks(dbName, dir)
	want := "FATAL migration aborted: hook " + filepath.Join(dir, "gh-ost-on-validated") + " exited with status 5; the original table is untouched\n"
	if code != exitFailure || stderr != want {
		t.Fatalf("exit %d, stderr %q\nwant exit 1, %q", code, stderr, want)
	}
	if got, err := os.ReadFile(out); err != nil || string(got) != "gh-ost-on-validated\ngh-ost-on-failure\n" {
		t.Errorf("hooks ran %q (%v), want on-validated then on-failure", got, err)
	}
	if left := testenv.TableNames(t, db, dbName, "_t_"); len(left) != 0 {
		t.Errorf("helper tables left behind: %q", left)
	}
}
