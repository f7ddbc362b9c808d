package control

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/migrator"
	"github.com/go-ghostlite/go-ghostlite/status"
)

const controlDB = "gl_control"

// migration sets up a real migration of controlDB.tbl (rows rows), serving commands on a socket
// with cfg; it is started by the returned start.
func migration(t *testing.T, tbl string, rows int, cfg Config) (m *migrator.Migrator, sock string, start func() <-chan error) {
	t.Helper()
	db := testenv.Database(t, controlDB)
	testenv.Exec(t, db, fmt.Sprintf("CREATE TABLE %s (id INT PRIMARY KEY, v INT NOT NULL)", tbl),
		fmt.Sprintf("INSERT INTO %s SELECT seq, seq FROM seq_1_to_%d", tbl, rows))
	mc := configtest.Config(t, controlDB, tbl, "ADD COLUMN c INT NULL", nil)
	m, err := migrator.New(mc)
	if err != nil {
		t.Fatal(err)
	}
	cfg.SocketFile = filepath.Join(testenv.ShortTempDir(t), "gh-ost.sock")
	cfg.Database, cfg.Table, cfg.Logger = controlDB, tbl, mc.Logger
	srv := New(cfg, m)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return m, cfg.SocketFile, func() <-chan error {
		done := make(chan error, 1)
		go func() { done <- m.Run(context.Background()) }()
		return done
	}
}

// ask sends one command line on the socket and returns the reply.
func ask(t *testing.T, sock, line string) string {
	t.Helper()
	return send(t, "unix", sock, line+"\n")
}

func waitStatus(t *testing.T, m *migrator.Migrator, done <-chan error, what string, cond func(status.Status) bool) status.Status {
	t.Helper()
	var st status.Status
	testenv.WaitFor(t, 90*time.Second, 2*time.Millisecond, what, func() (bool, error) {
		select {
		case err := <-done:
			return false, fmt.Errorf("the migration ended first: %v", err)
		default:
		}
		st = m.Status()
		return cond(st), nil
	})
	return st
}

// stalled waits until the copy is throttled and its count holds still for 300 ms (the chunks in
// flight when the command came are done), and returns the count.
func stalled(t *testing.T, m *migrator.Migrator, done <-chan error) int64 {
	t.Helper()
	st := waitStatus(t, m, done, "the copy throttled by the operator", func(st status.Status) bool {
		return st.Phase == status.PhaseCopy && st.Throttled && st.ThrottleReason == "commanded by user"
	})
	// The status says throttled as soon as the command is taken; the chunks in flight then end.
	before := st.RowsCopied
	for range 10 {
		time.Sleep(300 * time.Millisecond)
		now := m.Status().RowsCopied
		if now == before {
			return now
		}
		before = now
	}
	t.Fatalf("the copy went on while throttled: %d rows, then %d", st.RowsCopied, before)
	return 0
}

// TestCommandsSteerAMigration drives a real migration through its socket: throttle stops the
// copy, chunk-size= changes the next chunks, the settings read back, status has gh-ost's shape,
// the named cut-over is refused without the name, and unpostpone releases the cut-over.
func TestCommandsSteerAMigration(t *testing.T) {
	const rows, size = 60000, 37
	m, sock, start := migration(t, "t", rows, Config{Version: "1.2.3"})
	if got := ask(t, sock, "throttle"); !strings.HasPrefix(got, throttleHint) {
		t.Fatalf("throttle: %q", got)
	}
	if got := ask(t, sock, "postpone"); !strings.HasPrefix(got, "Postponed\n") {
		t.Fatalf("postpone: %q", got)
	}
	done := start()
	if n := stalled(t, m, done); n != 0 {
		t.Errorf("%d rows copied while throttled from the start", n)
	}
	if got := ask(t, sock, "sup"); !strings.Contains(got, "State: throttled, commanded by user; ETA: N/A") {
		t.Errorf("sup while throttled: %q", got)
	}

	// The chunks already planned (a few, at 1000 rows) go first; every later one has the new size.
	if got := ask(t, sock, fmt.Sprintf("chunk-size=%d", size)); !strings.Contains(got, fmt.Sprintf("# chunk-size: %d;", size)) {
		t.Errorf("chunk-size=%d: %q", size, got)
	}
	for _, c := range [][2]string{{"chunk-size=?", "37\n"}, {"chunk-size?", "37\n"}, {"dml-batch-size=5", ""}, {"dml-batch-size=?", "5\n"}} {
		if got := ask(t, sock, c[0]); c[1] != "" && got != c[1] {
			t.Errorf("%s: %q, want %q", c[0], got, c[1])
		}
	}
	// The reply to a command reflects it at once (gh-ost's status after the command).
	if got := ask(t, sock, "no-throttle"); strings.Contains(got, "throttled, commanded by user") || !strings.Contains(got, "State: migrating") {
		t.Errorf("no-throttle replied a status still throttled by the user: %q", got)
	}
	waitStatus(t, m, done, "5000 rows copied", func(st status.Status) bool { return st.RowsCopied > 5000 })
	if got := ask(t, sock, "throttle"); !strings.Contains(got, "State: throttled, commanded by user") {
		t.Errorf("throttle replied a status not throttled: %q", got)
	}
	copied := stalled(t, m, done)
	if copied >= rows || copied%size < 1 || copied%size > 4 {
		t.Errorf("%d rows copied: not 1 to 4 chunks of 1000 then chunks of %d", copied, size)
	}
	st := m.Status()
	if st.ChunkSize != size || st.DMLBatchSize != 5 || st.Phase != status.PhaseCopy {
		t.Errorf("status after the settings: %+v", st)
	}
	checkStatusReply(t, ask(t, sock, "status"), copied)

	ask(t, sock, "no-throttle")
	waitStatus(t, m, done, "the cut-over postponed", func(st status.Status) bool { return st.Phase == status.PhasePostponed })
	if got := ask(t, sock, "sup"); !strings.Contains(got, fmt.Sprintf("Copy: %d/%d 100.0%%;", rows, rows)) || !strings.Contains(got, "State: postponing cut-over; ETA: due") {
		t.Errorf("sup while postponed: %q", got)
	}
	checkReadOnlyCommands(t, sock)

	// A second server with --force-named-cut-over refuses the cut-over without the table's name.
	named := New(Config{SocketFile: filepath.Join(testenv.ShortTempDir(t), "named.sock"), Database: controlDB, Table: "t", ForceNamedCutOver: true}, m)
	if err := named.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = named.Close() }()
	for _, line := range []string{"cut-over", "unpostpone", "cut-over=other"} {
		if got := ask(t, named.cfg.SocketFile, line); !strings.HasPrefix(got, "User commanded 'unpostpone'") {
			t.Errorf("%s with --force-named-cut-over: %q", line, got)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if st := m.Status(); st.Phase != status.PhasePostponed {
		t.Fatalf("a refused cut-over let the run go on: phase %s", st.Phase)
	}

	if got := ask(t, sock, "unpostpone"); !strings.HasPrefix(got, "Unpostponed\n") {
		t.Errorf("unpostpone: %q", got)
	}
	if err := testenv.WaitResult(t, done, 2*time.Minute); err != nil {
		t.Fatalf("migration: %v", err)
	}
	db := testenv.Open(t, testenv.PrimaryConfig(), controlDB)
	if cols := testenv.Columns(t, db, controlDB, "t"); !slices.Equal(cols, []string{"id", "v", "c"}) {
		t.Errorf("columns after the migration: %q", cols)
	}
	if n := testenv.CountRows(t, db, controlDB, "t"); n != rows {
		t.Errorf("%d rows after the migration, want %d", n, rows)
	}
	if got := ask(t, sock, "unpostpone"); got != notPostponing {
		t.Errorf("unpostpone after the run: %q", got)
	}
}

var (
	hintRe = regexp.MustCompile("^# Migrating `gl_control`.`t`; Ghost table is `gl_control`.`_t_gho`\n" +
		`# Migrating 127\.0\.0\.1:\d+; inspecting 127\.0\.0\.1:\d+; executing on \S+` + "\n" +
		`# Migration started at \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \S+ \d{4}` + "\n" +
		`# chunk-size: 37; dml-batch-size: 5; max-lag-millis: 1500ms; max-load: ; critical-load: ; nice-ratio: 0; throttle-query: ; throttle-http: ; throttle-control-replicas: ` + "\n" +
		`# Serving on unix socket: \S+` + "\n")
)

// checkStatusReply: the status reply is gh-ost's hint block and status line.
func checkStatusReply(t *testing.T, reply string, copied int64) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(reply, "\n"), "\n")
	last := lines[len(lines)-1]
	if !hintRe.MatchString(reply) || !statusLineRe.MatchString(last) ||
		!strings.HasPrefix(last, "Copy: "+strconv.FormatInt(copied, 10)+"/") || !strings.Contains(last, "State: throttled, commanded by user") {
		t.Errorf("status reply:\n%s", reply)
	}
}

// checkReadOnlyCommands: the commands that only read answer on a running migration.
func checkReadOnlyCommands(t *testing.T, sock string) {
	t.Helper()
	addr := testenv.PrimaryConfig().Addr()
	for _, c := range []struct{ line, want string }{
		{"version", "1.2.3\n"},
		{"applier", "Host: " + addr + ", Version: "},
		{"inspector", "Host: " + addr + ", Version: "},
		{"coordinates", ":"},
		{"help", "available commands:\n"},
		{"no-such-command", "Unknown command: no-such-command\n"},
		{strings.Repeat("x", MaxLineBytes+10), "Command too long"},
	} {
		if got := ask(t, sock, c.line); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want it to contain %q", clip(c.line), got, c.want)
		}
	}
	// gh-ost's other settings answer with their value once the migration has them, with the
	// unknown-setting error until then.
	for _, name := range settings {
		got := ask(t, sock, name+"=?")
		if strings.Count(got, "\n") != 1 || (strings.HasPrefix(got, "unknown setting") != strings.Contains(got, `"`+name+`"`)) {
			t.Errorf("%s=?: %q", name, got)
		}
	}
}

// TestPanicCommand: panic (named, as --force-named-panic requires) aborts a real migration; the
// original keeps its definition and rows and the helper tables are gone. Served on TCP as well.
func TestPanicCommand(t *testing.T) {
	port := testenv.PrimaryConfig().Port + 5 // within the sandbox's range of ports
	m, sock, start := migration(t, "p", 3000, Config{ForceNamedPanic: true, TCPPort: port})
	tcp := fmt.Sprintf("127.0.0.1:%d", port)
	ask(t, sock, "postpone")
	done := start()
	waitStatus(t, m, done, "the cut-over postponed", func(st status.Status) bool { return st.Phase == status.PhasePostponed })
	if got := send(t, "tcp", tcp, "sup\n"); !strings.Contains(got, "State: postponing cut-over") {
		t.Errorf("sup on TCP: %q", got)
	}
	if got := send(t, "tcp", tcp, "panic\n"); !strings.Contains(got, "--force-named-panic is set") {
		t.Errorf("panic without the name: %q", got)
	}
	time.Sleep(200 * time.Millisecond)
	if st := m.Status(); st.Phase != status.PhasePostponed {
		t.Fatalf("a refused panic stopped the run: phase %s", st.Phase)
	}
	if got := ask(t, sock, "panic=p"); !strings.HasPrefix(got, "User commanded 'panic'.") {
		t.Errorf("panic=p: %q", got)
	}
	err := testenv.WaitResult(t, done, 90*time.Second)
	if !errors.Is(err, migrator.ErrPanicked) {
		t.Fatalf("run ended with %v, want ErrPanicked", err)
	}
	db := testenv.Open(t, testenv.PrimaryConfig(), controlDB)
	if cols := testenv.Columns(t, db, controlDB, "p"); !slices.Equal(cols, []string{"id", "v"}) {
		t.Errorf("original's columns after panic: %q", cols)
	}
	if n := testenv.CountRows(t, db, controlDB, "p"); n != 3000 {
		t.Errorf("%d rows in the original after panic, want 3000", n)
	}
	if left := testenv.TableNames(t, db, controlDB, "_p_"); len(left) != 0 {
		t.Errorf("helper tables left after panic: %q", left)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Errorf("the socket is gone while its server runs: %v", err)
	}
}
