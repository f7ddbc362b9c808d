package control

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/migrator"
	"github.com/go-ghostlite/go-ghostlite/observe"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// fakeControls records what the commands ask; it has the two settings the migrator has today.
type fakeControls struct {
	mu        sync.Mutex
	status    status.Status
	knobs     map[string]string
	throttled bool
	postponed bool
	panicked  string
}

func newFake() *fakeControls {
	return &fakeControls{knobs: map[string]string{"chunk-size": "1000", "dml-batch-size": "10"},
		status: status.Status{Phase: status.PhaseCopy, Database: "db", Table: "t", GhostTable: "_t_gho",
			PrimaryHost: "127.0.0.1:3306", InspectedHost: "127.0.0.1:3306", ServerVersion: "10.11.6-MariaDB",
			RowsCopied: 500, RowsEstimate: 1000, AppliedPos: "log.000001:1234", HeartbeatLag: -1}}
}

func (f *fakeControls) Status() status.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.status
	st.Throttled, st.Postponed = f.throttled, f.postponed
	if f.throttled {
		st.ThrottleReason = "commanded by user"
	}
	return st
}

func (f *fakeControls) Knobs() []string { return []string{"chunk-size", "dml-batch-size"} }

func (f *fakeControls) Get(name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.knobs[name]
	if !ok {
		return "", fmt.Errorf("%w %q", migrator.ErrUnknownKnob, name)
	}
	return v, nil
}

func (f *fakeControls) Set(name, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.knobs[name]; !ok {
		return fmt.Errorf("%w %q", migrator.ErrUnknownKnob, name)
	}
	if value == "bad" {
		return fmt.Errorf("%s: %q is not a whole number from 10 to 100000", name, value)
	}
	f.knobs[name] = value
	return nil
}

func (f *fakeControls) Throttle(on bool) { f.mu.Lock(); f.throttled = on; f.mu.Unlock() }
func (f *fakeControls) Postpone(on bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.postponed = on
	return nil
}
func (f *fakeControls) Panic(reason string) { f.mu.Lock(); f.panicked = reason; f.mu.Unlock() }

// send sends line (as is) on a new connection to network/addr and returns the whole reply.
func send(t *testing.T, network, addr, line string) string {
	t.Helper()
	conn, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	if _, err := io.WriteString(conn, line); err != nil {
		t.Fatalf("send %q: %v", clip(line), err)
	}
	reply, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("read the reply to %q: %v", clip(line), err)
	}
	return string(reply)
}

func startServer(t *testing.T, cfg Config, c observe.Controls, setup ...func(*Server)) (*Server, string) {
	t.Helper()
	if cfg.SocketFile == "" {
		cfg.SocketFile = filepath.Join(testenv.ShortTempDir(t), "s.sock")
	}
	cfg.Database, cfg.Table = "db", "t"
	srv := New(cfg, c)
	for _, f := range setup {
		f(srv)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, cfg.SocketFile
}

var statusLineRe = regexp.MustCompile(`^Copy: \d+/\d+ \d+\.\d%; Applied: \d+; Backlog: \d+/\d+(; Displaced: \d+)?; Time: \S+\(total\), \S+\(copy\); streamer: [^;]+; Lag: \S+, HeartbeatLag: \S+, State: [^;]+; ETA: \S+$`)

// Every command's reply, on a fake migration: gh-ost's texts and errors.
func TestCommandReplies(t *testing.T) {
	f := newFake()
	_, sock := startServer(t, Config{Version: "1.2.3"}, f)
	ask := func(line string) string { t.Helper(); return send(t, "unix", sock, line+"\n") }

	for _, c := range []struct{ line, want string }{
		{"version", "1.2.3\n"},
		{"chunk-size=?", "1000\n"},
		{"chunk-size?", "1000\n"},
		{"  dml-batch-size = ? ", "10\n"},
		{"coordinates", "log.000001:1234\n"},
		{"coordinates=x", "coordinates are read-only\n"},
		{"applier", "Host: 127.0.0.1:3306, Version: 10.11.6-MariaDB\n"},
		{"inspector", "Host: 127.0.0.1:3306, Version: 10.11.6-MariaDB\n"},
		{"frobnicate", "Unknown command: frobnicate\n"},
		{"frobnicate=1", "Unknown command: frobnicate\n"},
		{"", "Empty command; try help\n"},
		{"sup\x00", "Malformed command: only printable text is accepted\n"},
		{"chunk-size=bad", "chunk-size: \"bad\" is not a whole number from 10 to 100000\n"},
		{"max-load=?", "unknown setting \"max-load\"\n"},
		{"throttle-http=http://x", "unknown setting \"throttle-http\"\n"},
		{"throttle=other", "User commanded 'throttle' on other, but migrated table is t; ignoring request.\n"},
		{"unpostpone", notPostponing},
		{"cut-over=other", "User commanded 'unpostpone' on other, but migrated table is t; ignoring request.\n"},
		{"panic=other", "User commanded 'panic' on other, but migrated table is t; ignoring request.\n"},
		{"view=0", "view=0: give the terminal's width, 1 to 1000\n"},
		{"view=wide", "view=wide: give the terminal's width, 1 to 1000\n"},
		{"view=12", strings.Join(f.Status().View(12), "\n") + "\n"},
	} {
		if got := ask(c.line); got != c.want {
			t.Errorf("%q: reply %q, want %q", c.line, got, c.want)
		}
	}
	if f.throttled || f.panicked != "" {
		t.Errorf("a refused command acted: throttled %v, panicked %q", f.throttled, f.panicked)
	}

	if got := ask("help"); !strings.HasPrefix(got, "available commands:\n") || !strings.Contains(got, "\nunpostpone ") {
		t.Errorf("help: %q", got)
	}
	if got := ask("sup"); !statusLineRe.MatchString(strings.TrimSuffix(got, "\n")) || strings.Count(got, "\n") != 1 {
		t.Errorf("sup is not one status line: %q", got)
	}
	status := ask("status")
	lines := strings.Split(strings.TrimSuffix(status, "\n"), "\n")
	if lines[0] != "# Migrating `db`.`t`; Ghost table is `db`.`_t_gho`" ||
		!strings.Contains(status, "\n# chunk-size: 1000; dml-batch-size: 10\n") ||
		!strings.Contains(status, "\n# Serving on unix socket: "+sock+"\n") ||
		!statusLineRe.MatchString(lines[len(lines)-1]) {
		t.Errorf("status:\n%s", status)
	}

	if got := ask("chunk-size=500"); !strings.HasPrefix(got, "# Migrating") || f.knobs["chunk-size"] != "500" {
		t.Errorf("chunk-size=500: %q, chunk-size now %s", got, f.knobs["chunk-size"])
	}
	if got := ask(`dml-batch-size="20"`); !strings.HasPrefix(got, "# Migrating") || f.knobs["dml-batch-size"] != "20" {
		t.Errorf("a quoted value: %q, dml-batch-size now %s", got, f.knobs["dml-batch-size"])
	}
	if got := ask("throttle=t"); !strings.HasPrefix(got, throttleHint) || !f.throttled || !strings.Contains(got, "State: throttled, commanded by user") {
		t.Errorf("throttle: %q (throttled %v)", got, f.throttled)
	}
	if ask("no-throttle"); f.throttled {
		t.Error("no-throttle left the throttle on")
	}
	if got := ask("postpone"); !strings.HasPrefix(got, "Postponed\n") || !f.postponed {
		t.Errorf("postpone: %q (postponed %v)", got, f.postponed)
	}
	if got := ask("unpostpone"); !strings.HasPrefix(got, "Unpostponed\n") || f.postponed {
		t.Errorf("unpostpone: %q (postponed %v)", got, f.postponed)
	}
	if got := ask("panic"); !strings.HasPrefix(got, "User commanded 'panic'.") || f.panicked == "" {
		t.Errorf("panic: %q (panicked %q)", got, f.panicked)
	}
}

// --force-named-cut-over and --force-named-panic: the commands need the table's name.
func TestForceNamedCommands(t *testing.T) {
	f := newFake()
	f.postponed = true
	_, sock := startServer(t, Config{ForceNamedCutOver: true, ForceNamedPanic: true}, f)
	for _, c := range []struct{ line, want string }{
		{"cut-over", "User commanded 'unpostpone' without specifying table name, but --force-named-cut-over is set\n"},
		{"unpostpone", "User commanded 'unpostpone' without specifying table name, but --force-named-cut-over is set\n"},
		{"panic", "User commanded 'panic' without specifying table name, but --force-named-panic is set\n"},
	} {
		if got := send(t, "unix", sock, c.line+"\n"); got != c.want {
			t.Errorf("%q: %q, want %q", c.line, got, c.want)
		}
	}
	if !f.postponed || f.panicked != "" {
		t.Fatalf("a refused command acted: postponed %v, panicked %q", f.postponed, f.panicked)
	}
	if got := send(t, "unix", sock, "cut-over=t\n"); !strings.HasPrefix(got, "Unpostponed\n") || f.postponed {
		t.Errorf("cut-over=t: %q (postponed %v)", got, f.postponed)
	}
	if got := send(t, "unix", sock, "panic=t\n"); !strings.HasPrefix(got, "User commanded 'panic'.") || f.panicked == "" {
		t.Errorf("panic=t: %q", got)
	}
}

// Oversized, unterminated, slow and hook-refused input is answered with an error line, and the
// server goes on answering.
func TestBadInput(t *testing.T) {
	f := newFake()
	_, sock := startServer(t, Config{}, f, func(srv *Server) {
		srv.timeout = 300 * time.Millisecond
		srv.OnCommand = func(cmd string) error {
			if cmd == "throttle" {
				return fmt.Errorf("hook refused %s", cmd)
			}
			return nil
		}
	})
	if got, want := send(t, "unix", sock, strings.Repeat("x", MaxLineBytes+1)+"\n"), fmt.Sprintf("Command too long: more than %d bytes; ignored\n", MaxLineBytes); got != want {
		t.Errorf("oversized: %q", got)
	}
	if got := send(t, "unix", sock, "chunk-size="+strings.Repeat("9", 1<<20)); !strings.HasPrefix(got, "Command too long") {
		t.Errorf("1 MiB without a newline: %q", clip(got))
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(conn, "chunk-size=?")
	_ = conn.(*net.UnixConn).CloseWrite() // no newline: the end of the input ends the line
	reply, _ := io.ReadAll(conn)
	_ = conn.Close()
	if string(reply) != "1000\n" {
		t.Errorf("a line ended by the end of input: %q", reply)
	}
	conn, err = net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(conn, "sup") // and nothing more, connection left open
	reply, _ = io.ReadAll(conn)
	_ = conn.Close()
	if !strings.HasPrefix(string(reply), "No command received within") {
		t.Errorf("a client that never ends its line: %q", reply)
	}
	if got := send(t, "unix", sock, "throttle\n"); got != "hook refused throttle\n" || f.throttled {
		t.Errorf("OnCommand refusal: %q, throttled %v", got, f.throttled)
	}
	if got := send(t, "unix", sock, "chunk-size=?\n"); got != "1000\n" {
		t.Errorf("after bad input: %q", got)
	}
}

// The socket is the owner's only, removed at Close; a stale one is replaced, a live one or a
// file that is not a socket is refused.
func TestSocketFile(t *testing.T) {
	dir := testenv.ShortTempDir(t)
	path := filepath.Join(dir, "gh-ost.db.t.sock")
	first := New(Config{SocketFile: path}, newFake())
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want the socket only", len(entries))
	}

	second := New(Config{SocketFile: path}, newFake())
	if err := second.Start(); err == nil || !strings.Contains(err.Error(), "a process serves on it") {
		t.Errorf("second server on a live socket: %v", err)
	}
	dropping := New(Config{SocketFile: path, InitiallyDropSocketFile: true}, newFake())
	if err := dropping.Start(); err != nil {
		t.Fatalf("--initially-drop-socket-file: %v", err)
	}
	if got := send(t, "unix", path, "chunk-size=?\n"); got != "1000\n" {
		t.Errorf("the new server's reply: %q", got)
	}
	_ = first.Close() // its socket file is the new server's now: it must not remove it
	if _, err := os.Stat(path); err != nil {
		t.Errorf("closing the replaced server removed the new socket: %v", err)
	}
	if err := dropping.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("socket file after Close: %v", err)
	}

	// A socket nobody serves on (a killed run's) is replaced.
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = l.Close()
	stale := New(Config{SocketFile: path}, newFake())
	if err := stale.Start(); err != nil {
		t.Fatalf("over a stale socket: %v", err)
	}
	_ = stale.Close()

	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	notSocket := New(Config{SocketFile: path, InitiallyDropSocketFile: true}, newFake())
	if err := notSocket.Start(); err == nil || !strings.Contains(err.Error(), "is not a socket") {
		t.Errorf("a regular file at the path: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Error("the regular file was touched")
	}
}

// A socket path too long for a unix socket, or one whose directory leaves no room for the private
// directory it is created in, is refused in one line naming the flag, before anything is created.
func TestSocketPathTooLong(t *testing.T) {
	dir := testenv.ShortTempDir(t)
	for _, path := range []string{
		filepath.Join(dir, strings.Repeat("s", 120)),
		filepath.Join(dir, strings.Repeat("d", 100-len(dir)), "s"), // fits, but its private directory would not
	} {
		err := New(Config{SocketFile: path}, newFake()).Start()
		if err == nil || !strings.Contains(err.Error(), "--serve-socket-file") || !strings.Contains(err.Error(), "too long for a unix socket") {
			t.Errorf("%d-byte path: %v", len(path), err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %d entries", len(entries))
	}
	long := filepath.Join(dir, strings.Repeat("d", 107-len(dir)-1-len("/.gls1234567890/s")))
	if err := os.Mkdir(long, 0o700); err != nil {
		t.Fatal(err)
	}
	srv := New(Config{SocketFile: filepath.Join(long, "s")}, newFake())
	if err := srv.Start(); err != nil {
		t.Fatalf("the longest directory that leaves room: %v", err)
	}
	_ = srv.Close()
}

// A '/' in a database or table name stays inside the temporary directory's file name.
func TestDefaultSocketFileEscapesSlash(t *testing.T) {
	got := DefaultSocketFile("a/b", "t/../x")
	if filepath.Dir(got) != os.TempDir() || got != filepath.Join(os.TempDir(), "gh-ost.a@002fb.t@002f..@002fx.sock") {
		t.Errorf("DefaultSocketFile = %s", got)
	}
	if got := DefaultSocketFile("shop", "orders"); got != filepath.Join(os.TempDir(), "gh-ost.shop.orders.sock") {
		t.Errorf("gh-ost's path changed: %s", got)
	}
}

// fakeSet is a fake migration of a set of tables: each table's status besides the total.
type fakeSet struct {
	*fakeControls
	tables []status.Status
}

func (f fakeSet) TableStatuses() []status.Status { return f.tables }

// A set's status reply shows each table's line, named, before the line of the set in total.
func TestStatusOfASet(t *testing.T) {
	total := newFake()
	a, b := total.Status(), total.Status()
	a.Table, a.RowsCopied, b.Table, b.RowsCopied = "a", 100, "b", 400
	_, sock := startServer(t, Config{}, fakeSet{total, []status.Status{a, b}})
	lines := strings.Split(strings.TrimSpace(send(t, "unix", sock, "status\n")), "\n")
	n := len(lines)
	if n < 3 || !strings.HasPrefix(lines[n-3], "# a: Copy: 100/1000") || !strings.HasPrefix(lines[n-2], "# b: Copy: 400/1000") ||
		!strings.HasPrefix(lines[n-1], "Copy: 500/1000") {
		t.Fatalf("status reply ends with %q", lines[max(0, n-3):])
	}
}
