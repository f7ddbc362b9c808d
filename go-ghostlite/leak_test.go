package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// leakCanary is the password of the account the leak test migrates with: any output holding it is
// a leak.
const leakCanary = "Canary-7f3a-S3cr3t"

// TestPasswordNeverLeaks runs the built program as a user would, the password on its command
// line, at --debug with a dump hook for every event, the socket (every read-only command plus
// malformed ones) and the metrics endpoint, and greps everything it produced, and its
// /proc/<pid>/cmdline while it runs, for the password.
func TestPasswordNeverLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a whole migration")
	}
	db := testenv.Database(t, "gl_leak")
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	testenv.Exec(t, admin, "DROP USER IF EXISTS 'gl_leak'@'%'", "CREATE USER 'gl_leak'@'%' IDENTIFIED BY '"+leakCanary+"'",
		"GRANT ALL PRIVILEGES ON *.* TO 'gl_leak'@'%'")
	t.Cleanup(func() { _, _ = admin.Exec("DROP USER IF EXISTS 'gl_leak'@'%'") })
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_3000")

	dir := testenv.ShortTempDir(t) // a unix socket goes here
	bin, hooksDir, dumps := filepath.Join(dir, "go-ghostlite"), filepath.Join(dir, "hooks"), filepath.Join(dir, "dumps")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	writeDumpHooks(t, hooksDir, dumps)
	sock, postpone := filepath.Join(dir, "s.sock"), filepath.Join(dir, "postpone")
	if err := os.WriteFile(postpone, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	metricsAddr := "127.0.0.1:" + strconv.Itoa(freeTCPPort(t))
	c := testenv.PrimaryConfig()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "--host="+c.Host, fmt.Sprintf("--port=%d", c.Port), "--user=gl_leak", "--password", leakCanary,
		"--database=gl_leak", "--table=t", "--alter=ADD COLUMN c INT NULL", "--allow-on-master", "--execute", "--debug",
		fmt.Sprintf("--replica-server-id=%d", testenv.NextServerID()), "--serve-socket-file="+sock, "--postpone-cut-over-flag-file="+postpone,
		"--hooks-path="+hooksDir, "--hooks-status-interval=1", "--metrics-addr="+metricsAddr, "--receipt="+filepath.Join(dir, "receipt.json"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var outputs []string
	testenv.WaitFor(t, 60*time.Second, 50*time.Millisecond, "the cut-over postponed", func() (bool, error) {
		return strings.Contains(sendCommand(sock, "status"), "postponing cut-over"), nil
	})
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", cmd.Process.Pid))
	if err != nil || !bytes.Contains(cmdline, []byte("--execute")) {
		t.Fatalf("cmdline of the running process: %q, %v", cmdline, err)
	}
	outputs = append(outputs, "cmdline: "+string(cmdline))
	// Malformed and oversized commands get an error reply, and the migration goes on.
	for command, want := range map[string]string{"\x00\x01garbage": "Malformed command", strings.Repeat("x", 1<<20): "Command too long",
		"password=?": "Unknown command: password"} {
		reply := sendCommand(sock, command)
		outputs = append(outputs, "reply to "+clipped(command)+": "+reply)
		if !strings.HasPrefix(reply, want) {
			t.Errorf("reply to %q: %q, want %q", clipped(command), reply, want)
		}
	}
	for _, command := range []string{"status", "sup", "coordinates", "applier", "inspector", "version", "help",
		"chunk-size=?", "max-load=?", "throttle-query=?", "throttle-control-replicas=?", "password", "user=?", "unpostpone"} {
		outputs = append(outputs, "reply to "+clipped(command)+": "+sendCommand(sock, command))
	}
	if resp, err := http.Get("http://" + metricsAddr + "/metrics"); err == nil {
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		outputs = append(outputs, "metrics: "+string(b))
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("migration: %v\n%s", err, stderr.String())
	}
	outputs = append(outputs, "stdout: "+stdout.String(), "stderr: "+stderr.String())
	if b, err := os.ReadFile(dumps); err == nil && bytes.Contains(b, []byte("GH_OST_DATABASE_NAME=gl_leak")) {
		outputs = append(outputs, "hooks: "+string(b))
	} else {
		t.Fatalf("the hooks did not run: %v", err)
	}
	// A failing run's error message and receipt, at --debug too: a table that does not exist.
	fail := exec.Command(bin, "--host="+c.Host, fmt.Sprintf("--port=%d", c.Port), "--user=gl_leak", "--password="+leakCanary,
		"--database=gl_leak", "--table=missing", "--alter=ADD COLUMN c INT NULL", "--allow-on-master", "--debug", "--stack",
		"--receipt="+filepath.Join(dir, "failed-receipt.json"))
	out, _ := fail.CombinedOutput()
	outputs = append(outputs, "failed run: "+string(out))
	for _, name := range []string{"receipt.json", "failed-receipt.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Contains(b, []byte(`"command_line"`)) {
			t.Fatalf("no receipt %s: %v", name, err)
		}
		outputs = append(outputs, name+": "+string(b))
	}

	for _, o := range outputs {
		if strings.Contains(o, leakCanary) {
			t.Errorf("the password leaked: %s", clipped(o[max(0, strings.Index(o, leakCanary)-300):]))
		}
	}
	if !strings.Contains(stderr.String(), "hook gh-ost-on-success-dump ran") || !strings.Contains(string(out), "missing") {
		t.Errorf("outputs incomplete:\n%s\n%s", stderr.String(), out)
	}
}

// writeDumpHooks puts a hook for every event in dir that appends its arguments and environment to
// dumps, and prints them (so they reach the log too).
func writeDumpHooks(t *testing.T, dir, dumps string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n{ echo \"== $0 $*\"; env; } | tee -a " + dumps + "\n"
	for _, event := range []string{"startup", "validated", "rowcount-complete", "before-row-copy", "status",
		"interactive-command", "row-copy-complete", "begin-postponed", "before-cut-over", "success", "failure"} {
		if err := os.WriteFile(filepath.Join(dir, "gh-ost-on-"+event+"-dump"), []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

// sendCommand sends one line on the socket and returns the reply ("" when it cannot connect).
func sendCommand(sock, command string) string {
	conn, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return ""
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = io.WriteString(conn, command+"\n")
	b, _ := io.ReadAll(conn)
	return string(b)
}

func freeTCPPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

func clipped(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}
