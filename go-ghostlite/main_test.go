package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// TestRunExitCodes covers the paths that end before any server is contacted.
func TestRunExitCodes(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string // the whole of stderr; "" when nothing may be printed
		stdout string // a part of stdout
	}{
		{"help", []string{"--help"}, 0, "", "--chunk-size int"},
		{"version", []string{"--version"}, 0, "", "go-ghostlite dev"},
		{"bad max-load", append(slices.Clone(required), "--max-load=Threads_running"), 2,
			"FATAL usage: --max-load: load condition \"Threads_running\" is not Var=N (see go-ghostlite --help)\n", ""},
		{"unknown", []string{"--nope"}, 2, "FATAL unknown flag: --nope (see go-ghostlite --help)\n", ""},
		{"missing table", []string{"--database=d", "--alter=ADD COLUMN c INT"}, 2,
			"FATAL usage: --table is required (see go-ghostlite --help)\n", ""},
		{"contradiction", append(slices.Clone(required), "--approve-renamed-columns", "--skip-renamed-columns"), 2,
			"FATAL usage: --approve-renamed-columns and --skip-renamed-columns contradict each other: give one (see go-ghostlite --help)\n", ""},
		{"out of range", append(slices.Clone(required), "--chunk-size=5"), 2,
			"FATAL usage: --chunk-size must be between 10 and 100000 (got 5) (see go-ghostlite --help)\n", ""},
		{"receipt directory", append(slices.Clone(required), "--receipt=/nonexistent/r.json"), 2,
			"FATAL --receipt=/nonexistent/r.json: directory /nonexistent does not exist; create it or name a file in an existing directory\n", ""},
		{"cut-over", append(slices.Clone(required), "--cut-over=four-step"), 2,
			"FATAL usage: --cut-over=\"four-step\" is not supported; use three-step, atomic, two-step or lock-rename (see go-ghostlite --help)\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(c.args, &stdout, &stderr)
			if code != c.code || stderr.String() != c.stderr || !strings.Contains(stdout.String(), c.stdout) {
				t.Fatalf("run(%q) = %d\nstderr %q (want %q)\nstdout %q (want it to contain %q)",
					c.args, code, stderr.String(), c.stderr, stdout.String(), c.stdout)
			}
		})
	}
}

func TestReport(t *testing.T) {
	inner := errors.New("connection refused\nby peer")
	err := fmt.Errorf("inspect table: %w", errors.Join(inner, errors.New("second")))

	var w bytes.Buffer
	if code := fatalReporter(&w, "console")(err, false, 1); code != 1 {
		t.Fatalf("code %d", code)
	}
	if got := w.String(); got != "FATAL inspect table: connection refused by peer second\n" {
		t.Fatalf("one FATAL line expected, got %q", got)
	}

	w.Reset()
	fatalReporter(&w, "console")(err, true, 1)
	got := w.String()
	for _, want := range []string{"*fmt.wrapError: inspect table", "  *errors.joinError", "    *errors.errorString: connection refused", "    *errors.errorString: second"} {
		if !strings.Contains(got, want) {
			t.Errorf("--stack output lacks %q:\n%s", want, got)
		}
	}

	w.Reset()
	fatalReporter(&w, "json")(err, true, 1)
	var line struct {
		Level, Message string
		Chain          []string
	}
	if e := json.Unmarshal(w.Bytes(), &line); e != nil || strings.Count(w.String(), "\n") != 1 {
		t.Fatalf("one JSON line expected, got %q (%v)", w.String(), e)
	}
	if line.Level != "fatal" || line.Message != "inspect table: connection refused by peer second" || len(line.Chain) != 4 {
		t.Errorf("JSON fatal line %+v", line)
	}
}

// A failure a server error caused prints the server's own text first, as gh-ost's FATAL line
// does ("FATAL Error 1067 (42000): ..."), the tool's context after it; in both formats.
func TestReportServerErrorFirst(t *testing.T) {
	server := &mysql.MySQLError{Number: 1067, SQLState: [5]byte{'4', '2', '0', '0', '0'}, Message: "Invalid default value for 'dt'"}
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("create the ghost table `test`.`_t_gho`: %w", server),
			"Error 1067 (42000): Invalid default value for 'dt' (create the ghost table `test`.`_t_gho`)"},
		{fmt.Errorf("refused: %w; fix the default", server),
			"Error 1067 (42000): Invalid default value for 'dt' (refused: Error 1067 (42000): Invalid default value for 'dt'; fix the default)"},
		{server, "Error 1067 (42000): Invalid default value for 'dt'"},
	} {
		var w bytes.Buffer
		fatalReporter(&w, "console")(c.err, false, 1)
		if got := w.String(); got != "FATAL "+c.want+"\n" {
			t.Errorf("console: got %q, want %q", got, "FATAL "+c.want+"\n")
		}
		w.Reset()
		fatalReporter(&w, "json")(c.err, false, 1)
		var line struct{ Level, Message string }
		if err := json.Unmarshal(w.Bytes(), &line); err != nil || line.Level != "fatal" || line.Message != c.want {
			t.Errorf("json: got %s (%v), want message %q", w.String(), err, c.want)
		}
	}
}

// Every line on stderr is JSON under --log-format=json, errors in the command line included,
// wherever the flag stands; the console format ends with one FATAL line.
func TestFatalLineFormat(t *testing.T) {
	for _, args := range [][]string{
		{"--log-format=json", "--nope"},
		{"--nope", "--log-format=json"},
		{"-log-format", "json", "--database=d", "--alter=ADD COLUMN c INT"},
		append(slices.Clone(required), "--log-format=json", "--chunk-size=5"),
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != exitUsage {
			t.Errorf("run(%q) = %d, want %d", args, code, exitUsage)
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		for _, l := range lines {
			var v map[string]any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Errorf("run(%q): stderr line is not JSON: %q", args, l)
			}
		}
		if last := lines[len(lines)-1]; !strings.Contains(last, `"level":"fatal"`) {
			t.Errorf("run(%q): last line %q is not the fatal one", args, last)
		}
	}
	var stdout, stderr bytes.Buffer
	run([]string{"--log-format=console", "--nope"}, &stdout, &stderr)
	if got := stderr.String(); got != "FATAL unknown flag: --nope (see go-ghostlite --help)\n" {
		t.Errorf("console: %q", got)
	}
}

func TestWatchSignals(t *testing.T) {
	ch := make(chan os.Signal, 2)
	done := make(chan struct{})
	exited := make(chan int, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	finished := make(chan struct{})
	go func() {
		watchSignals(ch, done, cancel, zerolog.Nop(), func(code int) { exited <- code })
		close(finished)
	}()

	ch <- os.Interrupt
	<-ctx.Done() // the first signal cancels
	select {
	case code := <-exited:
		t.Fatalf("exit(%d) after the first signal", code)
	default:
	}
	ch <- syscall.SIGTERM
	if code := <-exited; code != exitFailure {
		t.Fatalf("second signal: exit(%d), want %d", code, exitFailure)
	}
	<-finished

	// Released before any signal: the watcher returns and never cancels.
	done2 := make(chan struct{})
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	finished2 := make(chan struct{})
	go func() {
		watchSignals(make(chan os.Signal), done2, cancel2, zerolog.Nop(), func(int) { t.Error("exit called") })
		close(finished2)
	}()
	close(done2)
	<-finished2
	if ctx2.Err() != nil {
		t.Fatal("context cancelled without a signal")
	}
}

func TestSignalContextRealSignal(t *testing.T) {
	exited := make(chan int, 1)
	ctx, stop := signalContext(context.Background(), zerolog.Nop(), func(code int) { exited <- code })
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := <-exited; code != exitFailure {
		t.Fatalf("second signal: exit(%d)", code)
	}
}

// TestBinary builds the command and runs it as a user would.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "go-ghostlite")
	build := exec.Command("go", "build", "-ldflags=-X main.version=1.2.3-test", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	runBin := func(args ...string) (code int, stdout, stderr string) {
		var o, e bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &exit):
			code = exit.ExitCode()
		default:
			t.Fatalf("run %q: %v", args, err)
		}
		return code, o.String(), e.String()
	}

	code, out, errOut := runBin("--help")
	if code != 0 || errOut != "" || !strings.Contains(strings.Join(strings.Fields(out), " "),
		"--chunk-size int rows copied per chunk (10 to 100000); given, every chunk has that many rows (gh-ost), else chunks start there and follow --chunk-time (default 1000)") {
		t.Errorf("--help: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}

	code, out, errOut = runBin("--version")
	if code != 0 || out != "go-ghostlite 1.2.3-test\n" || errOut != "" {
		t.Errorf("--version: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	code, _, errOut = runBin("--database=d", "--alter=ADD COLUMN c INT")
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "--table is required") {
		t.Errorf("missing --table: exit %d, stderr %q", code, errOut)
	}

	code, _, errOut = runBin("--chunk-size=abc")
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "--chunk-size") {
		t.Errorf("--chunk-size=abc: exit %d, stderr %q", code, errOut)
	}
}

// --mysql-timeout bounds the connect and the handshake: a port that accepts and says nothing
// ends the run within it, in one FATAL line naming the address and the cause, and under
// --log-format=json every line (the driver's own included) is JSON.
func TestMySQLTimeoutBoundsTheHandshake(t *testing.T) {
	host, p := testenv.SilentServer(t)
	port := strconv.Itoa(p)
	addr := net.JoinHostPort(host, port)
	for _, format := range []string{"console", "json"} {
		var stdout, stderr bytes.Buffer
		began := time.Now()
		code := run([]string{"--host=127.0.0.1", "--port=" + port, "--user=u", "--password=p", "--database=d", "--table=t",
			"--alter=ADD COLUMN c INT", "--allow-on-master", "--mysql-timeout=0.5", "--log-format=" + format,
			"--serve-socket-file=" + filepath.Join(testenv.ShortTempDir(t), "s.sock")}, &stdout, &stderr)
		if took := time.Since(began); took > 3*time.Second {
			t.Errorf("%s: the run took %s with --mysql-timeout=0.5", format, took)
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		last := lines[len(lines)-1]
		want := "connect to " + addr + " as u: no MySQL handshake in time (500ms, --mysql-timeout)"
		if code != exitFailure || !strings.Contains(last, want) || strings.Contains(stderr.String(), "[mysql]") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit 1 and a last line with %q", format, code, stderr.String(), want)
		}
		if format == "console" && !strings.HasPrefix(last, "FATAL ") {
			t.Errorf("last line %q does not start with FATAL", last)
		}
		// gh-ost's start line, logged before the server is asked anything.
		if format == "console" && !strings.Contains(stderr.String(), " INF Migrating `d`.`t` ") {
			t.Errorf("no line of gh-ost's \"Migrating `d`.`t`\":\n%s", stderr.String())
		}
		for _, l := range lines {
			if format == "json" && !json.Valid([]byte(l)) {
				t.Errorf("json: line %q is not JSON", l)
			}
		}
	}
}

// The libraries' own log lines (go-mysql logs some through log/slog's default logger, the MySQL
// driver through its own) come out in the tool's format: JSON under --log-format=json.
func TestLibraryLogsInTheToolsFormat(t *testing.T) {
	defer slog.SetDefault(slog.Default())
	var buf bytes.Buffer
	logger, err := newLogger(&buf, "json", zerolog.DebugLevel)
	if err != nil {
		t.Fatal(err)
	}
	routeLibraryLogs(logger)
	slog.Warn("out of order binlog", slog.String("new", "0-1-5"))
	driverLog{log: logger}.Print("packets.go:58 unexpected EOF")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), buf.String())
	}
	for i, want := range []string{`"level":"warn"`, `"level":"debug"`} {
		if !json.Valid([]byte(lines[i])) || !strings.Contains(lines[i], want) {
			t.Errorf("line %d %q: not JSON with %s", i, lines[i], want)
		}
	}
}

// --statement runs as --table and --alter do: a CREATE INDEX migrates the table on the sandbox
// (the index is on the new table, every row kept, no helper table left), then a DROP INDEX of a
// qualified name removes it again.
func TestStatementMigratesATable(t *testing.T) {
	db, schema := testenv.OwnTable(t, "gl_main_stmt", "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO t SELECT seq, seq % 7 FROM seq_1_to_3000")
	rows, sum := testenv.Checksum(t, db, schema, "t", []string{"id", "v"}, "id")
	showCreate := func() string {
		var name, def string
		if err := db.QueryRow("SHOW CREATE TABLE t").Scan(&name, &def); err != nil {
			t.Fatal(err)
		}
		return def
	}
	for _, c := range []struct {
		statement string
		hasIndex  bool
	}{
		{"CREATE INDEX i ON t (v) COMMENT 'by --statement';", true},
		{"DROP INDEX i ON `" + schema + "`.`t`", false},
	} {
		args := slices.DeleteFunc(testenv.MigrationArgs(testenv.PrimaryConfig(), schema, "t"),
			func(a string) bool { return strings.HasPrefix(a, "--table=") })
		args = append(args, "--statement="+c.statement, "--execute", "--ok-to-drop-table", "--quiet",
			"--serve-socket-file="+filepath.Join(testenv.ShortTempDir(t), "s.sock"))
		var stderr bytes.Buffer
		if code := run(args, io.Discard, &stderr); code != exitOK {
			t.Fatalf("--statement=%q: exit %d:\n%s", c.statement, code, stderr.String())
		}
		def := showCreate()
		if got := strings.Contains(def, "KEY `i` (`v`) COMMENT 'by --statement'"); got != c.hasIndex {
			t.Errorf("after --statement=%q the table has index i: %v, want %v:\n%s", c.statement, got, c.hasIndex, def)
		}
		if r, s := testenv.Checksum(t, db, schema, "t", []string{"id", "v"}, "id"); r != rows || s != sum {
			t.Errorf("after --statement=%q: %d rows (checksum %s), want %d (%s)", c.statement, r, s, rows, sum)
		}
		for name, exists := range testenv.Existing(t, db, schema, "_t_gho", "_t_ghc", "_t_del") {
			if exists {
				t.Errorf("after --statement=%q: %s is left", c.statement, name)
			}
		}
	}
}
