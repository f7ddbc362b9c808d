package testenv

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Acting on the sandbox's server processes and running its client programs: a restart (with
// extra server flags for that start only) through `script/sandbox restart`, and the dump client
// of the flavor (mysqldump, mariadb-dump).

// RestartServer stops and starts the sandbox's primary or replica (role), its data kept, adding
// extraFlags to the server's command line for this start only (a later flag wins:
// --log-slave-updates=OFF). It needs the variables of `script/sandbox env`
// (GHOSTLITE_TEST_SANDBOX); without them the test is Unavailable.
func RestartServer(t testing.TB, role string, extraFlags ...string) {
	t.Helper()
	if !CanRestartServers() {
		Unavailable(t, "GHOSTLITE_TEST_SANDBOX is not set (eval \"$(script/sandbox env)\"): the test restarts a sandbox server")
	}
	if err := restartServer(context.Background(), role, extraFlags...); err != nil {
		t.Fatal(err)
	}
}

// RestartServerErr is RestartServer for a goroutine or a seam: it returns the failure.
func RestartServerErr(ctx context.Context, role string, extraFlags ...string) error {
	return restartServer(ctx, role, extraFlags...)
}

// CanRestartServers says whether the sandbox script is known (RestartServer would run); a test
// that restarts a server calls Unavailable when it is not.
func CanRestartServers() bool { return os.Getenv("GHOSTLITE_TEST_SANDBOX") != "" }

func restartServer(ctx context.Context, role string, extraFlags ...string) error {
	script := os.Getenv("GHOSTLITE_TEST_SANDBOX")
	if script == "" {
		return errNoSandboxScript
	}
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "--flavor="+env("GHOSTLITE_TEST_FLAVOR", "mariadb-10.11"), "restart", role)
	cmd.Env = append(os.Environ(),
		"GHOSTLITE_SANDBOX_PRIMARY_PORT="+strconv.Itoa(PrimaryConfig().Port),
		"GHOSTLITE_SANDBOX_REPLICA_PORT="+strconv.Itoa(ReplicaConfig().Port),
		"GHOSTLITE_SANDBOX_DIR="+os.Getenv("GHOSTLITE_TEST_SANDBOX_DIR"),
		"GHOSTLITE_SANDBOX_EXTRA_FLAGS="+strings.Join(extraFlags, " "))
	if out, err := cmd.CombinedOutput(); err != nil {
		return &restartError{role: role, out: strings.TrimSpace(string(out)), err: err}
	}
	return nil
}

type restartError struct {
	role, out string
	err       error
}

func (e *restartError) Error() string {
	return "script/sandbox restart " + e.role + ": " + e.err.Error() + ": " + e.out
}

var errNoSandboxScript = &restartError{role: "(any)", out: "GHOSTLITE_TEST_SANDBOX is not set (eval \"$(script/sandbox env)\")",
	err: os.ErrNotExist}

// DumpCommand is the command line of the flavor's dump client (mysqldump, mariadb-dump) reaching
// the sandbox primary as root over its socket, args appended: the one from the flavor's server
// root when it has one (run chrooted, the socket seen from inside), else the host's. A flavor
// without a dump client makes the test Unavailable.
func DumpCommand(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	root := os.Getenv("GHOSTLITE_TEST_SERVER_ROOT")
	sock := os.Getenv("GHOSTLITE_TEST_PRIMARY_SOCKET")
	if sock == "" {
		Unavailable(t, "GHOSTLITE_TEST_PRIMARY_SOCKET is not set (eval \"$(script/sandbox env)\")")
	}
	base := []string{"--no-defaults", "-uroot", "--socket=" + strings.TrimPrefix(sock, root)}
	for _, name := range []string{"mysqldump", "mariadb-dump"} {
		if root != "" {
			if _, err := os.Stat(filepath.Join(root, "usr/bin", name)); err == nil {
				return exec.Command("chroot", append([]string{root, "/usr/bin/" + name}, append(base, args...)...)...)
			}
			continue
		}
		if path, err := exec.LookPath(name); err == nil {
			return exec.Command(path, append(base, args...)...)
		}
	}
	if root != "" {
		// The root has no dump client (MySQL's is in mysql-client, not -core): the host's
		// MariaDB client over the same socket, seen from outside the root.
		if path, err := exec.LookPath("mariadb-dump"); err == nil {
			base[2] = "--socket=" + sock
			return exec.Command(path, append(base, args...)...)
		}
	}
	Unavailable(t, "no mysqldump or mariadb-dump client for this flavor")
	return nil
}
