// Package localtests runs go-ghostlite end to end against the sandbox, one case folder at a time.
//
// Each case under cases/ gives a table (create.sql), a write load that runs during the migration
// (load.sql), the ALTER and flags, and either the refusal to expect or checks of the result. A
// successful case is judged by the server's own ALTER (oracle_test.go): an exact copy of the
// original as of the cut-over (_gl_test_del) is ALTERed by the server with the server's global
// settings, and the migrated table (gl_test) must have its definition and its rows. A case may set
// server globals (time_zone, sql_mode) for its run. pending/ holds cases waiting for a fix of the
// tool (not run). See README.md. Each case has its own database: the cases that set globals run
// first, one at a time, then the others in parallel (go test's -parallel of them at once).
//
// GHOSTLITE_LOCALTESTS_MODE changes what a successful case does:
//   - full (default): the real migration, with --execute, under load, as described above;
//   - dry: the binary without --execute must exit 0 (checks the case against the validation);
//   - native: no binary; the server's own ALTER TABLE plays the tool (checks the case itself:
//     its ALTER, its globals and verify.sql).
//
// Refusal cases always run the binary with --execute.
package localtests

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const (
	postponeTimeout = 120 * time.Second // from start until the state row says "postponed"
	exitTimeout     = 60 * time.Second  // from the flag file's removal until the binary exits
	refusalTimeout  = 60 * time.Second  // a refusal case's whole run
	moreLoad        = 300               // load statements run after "postponed", before the cut-over
)

var (
	binary   string // the go-ghostlite binary built by TestMain
	buildErr error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "glt-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "go-ghostlite")
	if out, err := exec.Command("go", "build", "-o", binary, "../go-ghostlite").CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("go build ../go-ghostlite: %v\n%s", err, out)
	}
	code := m.Run()
	_ = os.RemoveAll(dir) // best effort: a temporary directory
	os.Exit(code)
}

func mode() string {
	switch m := os.Getenv("GHOSTLITE_LOCALTESTS_MODE"); m {
	case "", "full":
		return "full"
	case "dry", "native":
		return m
	default:
		panic("GHOSTLITE_LOCALTESTS_MODE must be full, dry or native, not " + m)
	}
}

// casesDir is the folder of cases TestLocal runs: cases/, or GHOSTLITE_LOCALTESTS_CASES (e.g.
// "pending" to see which pending cases a fix of the tool makes pass).
func casesDir() string {
	if d := os.Getenv("GHOSTLITE_LOCALTESTS_CASES"); d != "" {
		return d
	}
	return "cases"
}

func TestLocal(t *testing.T) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	if buildErr != nil && mode() != "native" {
		t.Fatal(buildErr)
	}
	dir := casesDir()
	names, err := listCases(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range baseGlobals(t) {
		testenv.SetGlobal(t, admin, g.Name, g.Value) // for every case (so TestLocal runs alone: testenv.Serial)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			c, err := loadCase(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			testenv.FlavorLimit(t, c.appliesTo, "the case's only_on: "+c.OnlyOn)
			if len(c.Globals) == 0 {
				// Its own database, the sandbox's globals: beside the others. The cases that set
				// globals run first, one at a time (go test runs parallel subtests after them).
				t.Parallel()
			}
			r := &runner{t: t, c: c, admin: admin, schema: "glt_" + name}
			r.run()
		})
	}
}

// runner runs one case.
type runner struct {
	t      testing.TB
	c      *testCase
	admin  *sql.DB // testenv pool without a default schema (binary charset, UTC, strict)
	db     *sql.DB // the case's database, utf8mb4 client, server time zone: runs create/load
	schema string
	// refusedWith is the error line of a refusal case that refused as expected.
	refusedWith string
	// noSeqViews: the case names no seq_A_to_B table, so none is made on MySQL (testenv.SeqTables
	// makes about fifteen views per case there; the matrix runs hundreds of cases).
	noSeqViews bool
	// fullRunLog is the standard error of the last runFull.
	fullRunLog string
	// killedIn is the state of each table (states) when killAfterCheckpoint last killed the binary.
	killedIn string
}

func (r *runner) run() {
	t := r.t
	r.setGlobals()
	r.setup()
	switch {
	case r.c.ExpectFailure != "" && mode() == "native":
		t.Skip("refusal cases need the binary")
	case r.c.ExpectFailure != "":
		r.runRefusal()
	case mode() == "dry":
		r.runDry()
	case mode() == "native":
		r.runNative()
		r.compare()
	default:
		r.runFull()
		r.compare()
	}
	if !t.Failed() {
		testenv.Exec(t, r.admin, "DROP DATABASE IF EXISTS "+quote(r.schema))
	} else {
		t.Logf("database %s left for inspection", r.schema)
	}
}

// setup recreates the case's database and runs create.sql.
func (r *runner) setup() {
	t := r.t
	testenv.Exec(t, r.admin, "DROP DATABASE IF EXISTS "+quote(r.schema), "CREATE DATABASE "+quote(r.schema))
	if !r.noSeqViews {
		testenv.SeqTables(t, r.admin, r.schema, append(slices.Clone(r.c.Create), r.c.Load...)...) // MySQL has no seq_1_to_N
	}
	r.db = r.appSession()
	// create.sql may change its session (SET SESSION sql_mode=''): run it on one connection.
	ctx := context.Background()
	conn, err := r.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range r.c.Create {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("create.sql: %s: %v", q, err)
		}
	}
	want := []string{"gl_test"}
	if r.c.Statement != nil {
		want = r.tables() // none for a statement the tool refuses
	}
	for _, tbl := range want {
		if !r.exists(tbl) {
			t.Fatalf("create.sql did not create %s", tbl)
		}
	}
}

// tables are the tables the case migrates (testCase.Changes): gl_test, or those of its statement
// file (none when go-ghostlite refuses the statement).
func (r *runner) tables() []string {
	changes, err := r.c.Changes(r.schema)
	if err != nil {
		return nil
	}
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Table
	}
	return out
}

// process is one run of the binary.
type process struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
	err    error // from Wait, valid once done is closed
}

// start runs the binary with the common flags, then extra, then the case's flags.
func (r *runner) start(execute bool, extra ...string) *process {
	// Each run reads the binlog under a replica server id of its own (testenv.MigrationArgs).
	args := testenv.MigrationArgs(testenv.PrimaryConfig(), r.schema, "gl_test")
	if r.c.Statement == nil {
		args = append(args, "--alter="+r.c.Alter)
	} else {
		args = r.statementArgs(args)
	}
	args = append(args,
		"--log-format=json",
		"--default-retries=3",
		"--cut-over-lock-timeout-seconds=3",
		// Its own socket: the default /tmp/gh-ost.<db>.<table>.sock is the same for every sandbox
		// on the machine, so two runs of the same case would refuse each other.
		"--serve-socket-file="+filepath.Join(testenv.ShortTempDir(r.t), "s.sock"),
	)
	if execute {
		args = append(args, "--execute")
	}
	args = append(args, extra...)
	args = append(args, r.c.Flags...)
	p := &process{cmd: exec.Command(binary, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		r.t.Fatalf("start %s: %v", binary, err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	r.t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = p.cmd.Process.Kill() // our own child, by its pid; it may have just exited (p.done tells)
			<-p.done
		}
	})
	return p
}

// wait waits for the process to exit within timeout (killing it otherwise) and returns its exit code.
func (r *runner) wait(p *process, timeout time.Duration) int {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.done:
	default:
		select {
		case <-p.done:
		case <-timer.C:
			_ = p.cmd.Process.Kill() // it may have just exited: p.done tells either way
			<-p.done
			r.t.Fatalf("go-ghostlite did not exit within %s: killed\n%s", timeout, p.output())
		}
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &ee):
		return ee.ExitCode()
	default:
		r.t.Fatalf("go-ghostlite: %v\n%s", p.err, p.output())
		return -1
	}
}

// output is the process's stdout and stderr, for failure messages (only once it has exited).
func (p *process) output() string {
	return fmt.Sprintf("--- args: %q\n--- stdout:\n%s--- stderr:\n%s", p.cmd.Args[1:], tail(p.stdout.String()), tail(p.stderr.String()))
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// tail keeps the last 80 lines of s.
func tail(s string) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 80 {
		lines = append([]string{fmt.Sprintf("[... %d lines]\n", len(lines)-80)}, lines[len(lines)-80:]...)
	}
	return strings.Join(lines, "")
}

// errorLines are the messages of the "fatal" lines of stderr (the binary runs with
// --log-format=json: the error that ends a run is {"level":"fatal",...,"message":"..."}).
func (p *process) errorLines() []string {
	var out []string
	for _, l := range strings.Split(p.stderr.String(), "\n") {
		var line struct{ Level, Message string }
		if json.Unmarshal([]byte(l), &line) == nil && line.Level == "fatal" {
			out = append(out, line.Message)
		}
	}
	return out
}

// notJSON are the lines of stdout and stderr that are not JSON objects (--log-format=json
// promises JSON on every line, from start to exit).
func (p *process) notJSON() []string {
	var out []string
	for _, l := range strings.Split(p.stdout.String()+p.stderr.String(), "\n") {
		var v map[string]any
		if l != "" && json.Unmarshal([]byte(l), &v) != nil {
			out = append(out, l)
		}
	}
	return out
}

// runFull is the protocol of a successful case: migrate under load, postpone the cut-over until
// the copy is done, stop the load, release the cut-over.
func (r *runner) runFull() {
	t := r.t
	flagFile := filepath.Join(t.TempDir(), "postpone-cut-over")
	if err := os.WriteFile(flagFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var l *load
	if r.c.Load != nil {
		l = startLoad(r.db, r.c.Load)
		defer l.Stop()
	}
	p := r.start(true, "--postpone-cut-over-flag-file="+flagFile)

	// Wait for the state row of each table's changelog to say "postponed".
	deadline := time.Now().Add(postponeTimeout)
	poll := time.NewTicker(50 * time.Millisecond)
	defer poll.Stop()
	for state, postponed := "", false; !postponed; {
		select {
		case <-p.done:
			r.wait(p, 0)
			t.Fatalf("go-ghostlite exited before the cut-over was postponed (last state %q)\n%s", state, p.output())
		case <-poll.C:
		}
		if time.Now().After(deadline) {
			_ = p.cmd.Process.Kill() // it may have just exited: p.done tells either way
			<-p.done
			t.Fatalf("state not \"postponed\" after %s (last %q): killed\n%s", postponeTimeout, state, p.output())
		}
		if l != nil && l.Err() != nil {
			break // reported below, after the binary is released
		}
		state, postponed = r.states()
	}

	// Let the load write a little more while the copy is done and only the applier works.
	if l != nil {
		if l.Err() == nil && !l.waitMore(moreLoad, 30*time.Second) && l.Err() == nil {
			t.Errorf("load ran fewer than %d statements in 30s after the postponed state (%s)", moreLoad, l)
		}
		l.Stop()
		if err := l.Err(); err != nil {
			t.Errorf("load: %v (%s)", err, l)
		} else {
			t.Logf("load: %s", l)
		}
		for _, q := range l.Idle() {
			t.Errorf("load.sql: statement never changed a row: %s", q)
		}
	}
	var before binlogPosition
	if len(r.tables()) > 1 {
		before = r.binlogPosition()
	}
	if err := os.Remove(flagFile); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(p, exitTimeout); code != 0 {
		t.Fatalf("go-ghostlite exited %d, want 0\n%s", code, p.output())
	}
	if before.File != "" {
		r.checkOneCutOver(before)
	}
	if bad := p.notJSON(); len(bad) > 0 {
		t.Errorf("--log-format=json: %d lines are not JSON, e.g. %q", len(bad), bad[0])
	}
	r.fullRunLog = p.stderr.String()
	if log := p.stderr.String(); strings.Contains(log, "checksum: chunk differs") || strings.Contains(log, "checksum: the tables differ") {
		t.Errorf("the checksum before the cut-over found a chunk that differs (a false mismatch, or a copy gone wrong)\n%s", p.output())
	}
	if t.Failed() {
		t.FailNow()
	}
}

// states reads the state row of the changelog of each table of the case: all is true when every
// one says "postponed"; desc lists them ("a=copy b=postponed", a table without one yet as "-").
func (r *runner) states() (desc string, all bool) {
	all = true
	var out []string
	for _, tbl := range r.tables() {
		var state string
		q := fmt.Sprintf("SELECT value FROM %s.%s WHERE hint = 'state'", quote(r.schema), quote("_"+tbl+"_ghc"))
		err := r.admin.QueryRow(q).Scan(&state)
		var me *mysql.MySQLError
		switch {
		case err == nil, errors.Is(err, sql.ErrNoRows):
		case errors.As(err, &me) && me.Number == 1146: // the changelog does not exist yet
		default:
			r.t.Fatalf("read state: %v", err)
		}
		all = all && state == "postponed"
		if state == "" {
			state = "-"
		}
		out = append(out, tbl+"="+state)
	}
	return strings.Join(out, " "), all
}

// runDry runs the binary without --execute: it must exit 0 and leave no helper table.
func (r *runner) runDry() {
	t := r.t
	p := r.start(false)
	if code := r.wait(p, refusalTimeout); code != 0 {
		t.Fatalf("dry run exited %d, want 0\n%s", code, p.output())
	}
	for _, tbl := range r.tables() {
		if left := r.helperTables(tbl); len(left) > 0 {
			t.Errorf("dry run left %v behind\n%s", left, p.output())
		}
	}
}

// runNative plays the tool with the server's own ALTER TABLE: after a little load, each original is
// copied exactly to _<table>_del, then the tables are altered in place in an application's session.
func (r *runner) runNative() {
	if r.c.Load != nil {
		l := startLoad(r.db, r.c.Load)
		ran := l.waitMore(moreLoad, 30*time.Second)
		l.Stop()
		if err := l.Err(); err != nil {
			r.t.Fatalf("load: %v (%s)", err, l)
		}
		if !ran {
			r.t.Fatalf("load ran fewer than %d statements in 30s (%s)", moreLoad, l)
		}
	}
	for _, tbl := range r.tables() {
		r.copyExact(tbl, "_"+tbl+"_del")
	}
	if err := r.serverAlter(r.schema, "gl_test"); err != nil {
		r.t.Fatalf("the case's ALTER: %v", err)
	}
}

// runRefusal runs the binary (no postponed cut-over) and checks the refusal: exit code, one error
// line naming the problem, every table of the case's database intact and no table added (no
// helper table left).
func (r *runner) runRefusal() {
	t := r.t
	before := r.schemaSnapshot()
	var l *load
	if r.c.Load != nil {
		l = startLoad(r.db, r.c.Load)
		defer l.Stop()
	}
	p := r.start(true)
	code := r.wait(p, refusalTimeout)
	if l != nil {
		l.Stop()
	}
	if code != r.c.ExpectExit {
		t.Errorf("exit code %d, want %d", code, r.c.ExpectExit)
	}
	lines := p.errorLines()
	switch {
	case len(lines) != 1:
		t.Errorf("want one \"fatal\" error line on stderr, got %d", len(lines))
	case !strings.Contains(lastLine(p.stderr.String()), `"level":"fatal"`):
		t.Errorf("the fatal line is not the last line on stderr")
	case r.c.ExpectFailure != anyRefusal && !strings.Contains(strings.ToLower(lines[0]), strings.ToLower(r.c.ExpectFailure)):
		t.Errorf("error line %q does not contain %q", lines[0], r.c.ExpectFailure)
	default:
		t.Logf("refused as expected: %s", lines[0])
		r.refusedWith = lines[0]
	}
	if bad := p.notJSON(); len(bad) > 0 {
		t.Errorf("--log-format=json: %d lines are not JSON, e.g. %q", len(bad), bad[0])
	}
	if after := r.schemaSnapshot(); after != before {
		t.Errorf("the database changed:\nbefore: %s\n after: %s", before, after)
	}
	if t.Failed() {
		t.Logf("go-ghostlite output:\n%s", p.output())
	}
}

// snapshot describes gl_test: its definition, row count and checksum.
func (r *runner) snapshot() string { return r.tableSnapshot("gl_test") }

// tableSnapshot describes tbl: its definition, row count and checksum.
func (r *runner) tableSnapshot(tbl string) string {
	var name, ddl string
	if err := r.admin.QueryRow("SHOW CREATE TABLE "+quote(r.schema)+"."+quote(tbl)).Scan(&name, &ddl); err != nil {
		r.t.Fatalf("SHOW CREATE TABLE %s: %v", tbl, err)
	}
	var names []string
	for _, c := range r.columns(tbl) {
		if !c.generated {
			names = append(names, c.name)
		}
	}
	n, sum := testenv.Checksum(r.t, r.admin, r.schema, tbl, names, r.orderBy(tbl, names))
	return fmt.Sprintf("%d rows, checksum %s, %s", n, sum, ddl)
}

// schemaSnapshot describes every table of the case's database (tableSnapshot), by name.
func (r *runner) schemaSnapshot() string {
	var out []string
	for _, tbl := range testenv.TableNames(r.t, r.admin, r.schema, "") {
		out = append(out, tbl+": "+r.tableSnapshot(tbl))
	}
	return strings.Join(out, "\n")
}

// helperTables lists the ghost, changelog and old tables of tbl that exist.
func (r *runner) helperTables(tbl string) []string {
	var out []string
	for _, suffix := range []string{"_gho", "_ghc", "_del"} {
		if n := "_" + tbl + suffix; r.exists(n) {
			out = append(out, n)
		}
	}
	return out
}

func (r *runner) exists(tbl string) bool {
	return testenv.Existing(r.t, r.admin, r.schema, tbl)[tbl]
}

// exec runs statements in the case's schema on the testenv pool (strict, UTC).
func (r *runner) exec(stmts ...string) {
	r.t.Helper()
	ctx := context.Background()
	conn, err := r.admin.Conn(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "USE "+quote(r.schema)); err != nil {
		r.t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			r.t.Fatalf("%s: %v", q, err)
		}
	}
}

func quote(n string) string { return "`" + strings.ReplaceAll(n, "`", "``") + "`" }
