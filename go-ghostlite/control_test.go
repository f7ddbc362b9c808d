package main

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The command line serves the interactive commands for the life of the migration: the socket
// answers while the cut-over is postponed, each command first runs the on-interactive-command
// hook (whose failure rejects it), unpostpone lets the run finish, and the socket is gone after it.
func TestRunServesCommands(t *testing.T) {
	db := testenv.Database(t, "gl_main")
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_2000")
	dir := testenv.ShortTempDir(t) // a unix socket goes here
	sock, flag := filepath.Join(dir, "s.sock"), filepath.Join(dir, "postpone")
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	hooksDir, heard := filepath.Join(dir, "hooks"), filepath.Join(dir, "heard")
	if err := os.Mkdir(hooksDir, 0o700); err != nil {
		t.Fatal(err)
	}
	// GH_OST_COMMAND carries gh-ost's single quotes.
	hook := "#!/bin/sh\necho \"$GH_OST_COMMAND\" >> " + heard + "\n[ \"$GH_OST_COMMAND\" != \"'throttle'\" ]\n"
	if err := os.WriteFile(filepath.Join(hooksDir, "gh-ost-on-interactive-command"), []byte(hook), 0o700); err != nil {
		t.Fatal(err)
	}
	args := append(testenv.MigrationArgs(testenv.PrimaryConfig(), "gl_main", "t"), "--alter=ADD COLUMN c INT NULL", "--execute",
		"--log-format=json", "--serve-socket-file="+sock, "--postpone-cut-over-flag-file="+flag, "--hooks-path="+hooksDir)
	var stderr testenv.LogBuffer // written from several goroutines
	code := make(chan int, 1)
	go func() { code <- run(args, io.Discard, &stderr) }()

	var reply string
	testenv.WaitFor(t, 60*time.Second, 20*time.Millisecond, "the cut-over postponed, seen on the socket", func() (bool, error) {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			return false, nil
		}
		defer func() { _ = conn.Close() }()
		_, _ = io.WriteString(conn, "status\n")
		b, _ := io.ReadAll(conn)
		reply = string(b)
		return strings.Contains(reply, "State: postponing cut-over"), nil
	})
	for _, want := range []string{"# postpone-cut-over-flag-file: " + flag + " [set]\n", "# Serving on unix socket: " + sock + "\n"} {
		if !strings.Contains(reply, want) {
			t.Errorf("status lacks %q:\n%s", want, reply)
		}
	}
	// The status is logged while the cut-over waits too: one JSON object with named fields.
	testenv.WaitFor(t, 10*time.Second, 20*time.Millisecond, "a status object in the JSON log", func() (bool, error) {
		return stderr.Contains(`"status":{"phase":"postponed","state":"postponing cut-over","rows_copied":2000,`), nil
	})
	send := func(command string) string {
		t.Helper()
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		_, _ = io.WriteString(conn, command+"\n")
		b, _ := io.ReadAll(conn)
		return string(b)
	}
	// The hook refuses "throttle": the command is rejected with the hook's failure.
	if got := send("throttle"); !strings.Contains(got, "gh-ost-on-interactive-command") {
		t.Errorf("throttle refused by its hook: reply %q, want the hook's failure", got)
	}
	if stderr.Contains("throttle set by the operator") {
		t.Error("a command its hook refused took effect")
	}
	if got := send("unpostpone"); !strings.HasPrefix(got, "Unpostponed\n") {
		t.Errorf("unpostpone: %q", got)
	}
	select {
	case got := <-code:
		if got != exitOK {
			t.Fatalf("exit %d\n%s", got, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the migration did not end after unpostpone")
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket after the run: %v", err)
	}
	if _, err := os.Stat(flag); !os.IsNotExist(err) {
		t.Errorf("unpostpone left the postpone flag file: %v", err)
	}
	got, err := os.ReadFile(heard)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(got)), "\n"); len(lines) < 3 || lines[len(lines)-2] != "'throttle'" || lines[len(lines)-1] != "'unpostpone'" {
		t.Errorf("the on-interactive-command hook heard %q, want every command (status..., throttle, unpostpone)", lines)
	}
}
