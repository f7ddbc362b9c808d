package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Sharing one sandbox between tests that run at once. Test packages run in parallel (go test's
// default -p) and tests of a package may call t.Parallel, all against the same sandbox servers.
// Each test works in a database of its own (OwnDatabase), so tables never collide; what does
// collide is server-wide state: a global variable a test sets (SetGlobal), a prepared XA
// transaction (every migration's start refuses while one exists), a server restart, replication
// stopped, an instrument turned off. A test that changes such state calls Serial first: it then
// runs alone on the sandbox, while no other test of any process touches it.
//
// The lock is a reader-writer lock between processes: flock(2) on a file named after the sandbox
// primary's port (so sandboxes on other ports do not wait for each other). Every test that
// connects to the sandbox (Open) holds it shared until it ends; Serial holds it exclusively. A
// second file is a turnstile that gives a waiting Serial precedence: a new test passes through it
// before it takes its shared hold, and Serial holds it while it waits, so tests that start later
// wait behind it instead of starving it.
//
// Inside one process, go test itself keeps a serial test alone: a test that does not call
// t.Parallel never runs beside another test of its package (parallel tests start only after every
// sequential one has ended). Serial checks that (a serial test must not call t.Parallel), and the
// process keeps a single shared hold on the lock file for all its running tests.

// serialState is the process's side of the lock.
type serialState struct {
	path      string // the lock file; path+".gate" is the turnstile
	mu        sync.Mutex
	main      *os.File       // the lock file, held shared while holders is not empty
	holders   map[string]int // running tests holding the lock shared, by name
	exclusive string         // the test that holds the lock exclusively, "" when none
}

var (
	serialOnce sync.Once
	serial     *serialState
)

// sandboxSerial is the process's side of the sandbox's lock.
func sandboxSerial() *serialState {
	serialOnce.Do(func() {
		serial = &serialState{path: filepath.Join(os.TempDir(), fmt.Sprintf("ghostlite-test-%d.lock", PrimaryConfig().Port))}
	})
	return serial
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

// passTurnstile waits until no Serial test waits for or holds the lock.
func (s *serialState) passTurnstile(t testing.TB) {
	t.Helper()
	gate, err := os.OpenFile(s.path+".gate", os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = gate.Close() }() // closing releases the flock; nothing was written
	if err := flock(gate, syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
}

// sameTest reports whether name is test or one of its subtests or ancestors.
func sameTest(name, test string) bool {
	return name == test || strings.HasPrefix(name, test+"/") || strings.HasPrefix(test, name+"/")
}

// holding reports whether the test (or an ancestor or subtest of it) holds the lock already.
func (s *serialState) holding(test string) bool {
	if s.exclusive != "" && sameTest(test, s.exclusive) {
		return true
	}
	for name := range s.holders {
		if sameTest(test, name) {
			return true
		}
	}
	return false
}

// holdShared takes the test's shared hold on the lock until the test ends.
func (s *serialState) holdShared(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	nested := s.holding(t.Name())
	s.mu.Unlock()
	if !nested {
		s.passTurnstile(t) // without s.mu: tests of this process may end meanwhile
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holders == nil {
		s.holders = map[string]int{}
	}
	if len(s.holders) == 0 && s.exclusive == "" {
		if err := s.openMain(); err != nil {
			t.Fatal(err)
		}
		if err := flock(s.main, syscall.LOCK_SH); err != nil {
			t.Fatal(err)
		}
	}
	s.holders[t.Name()]++
	t.Cleanup(func() { s.release(t) })
}

func (s *serialState) openMain() error {
	if s.main != nil {
		return nil
	}
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_RDWR, 0o666)
	s.main = f
	return err
}

func (s *serialState) release(t testing.TB) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holders[t.Name()]--; s.holders[t.Name()] <= 0 {
		delete(s.holders, t.Name())
	}
	if len(s.holders) == 0 && s.exclusive == "" {
		if err := flock(s.main, syscall.LOCK_UN); err != nil {
			t.Error(err)
		}
	}
}

// Serial makes the test run alone on the sandbox: it waits until every test of every process
// that uses the sandbox has ended, and keeps new ones waiting until this test ends. Call it at the
// start of a test that changes server-wide state (SetGlobal calls it); such a test must not call
// t.Parallel.
//
// Waiting for every running test costs as long as the longest of them, so script/test runs
// these tests in a phase of their own: with GHOSTLITE_TEST_SERIAL=skip, Serial skips the test
// and appends its package and top-level name to the file GHOSTLITE_TEST_SERIAL_LIST, and
// script/test then runs the tests listed there, one package at a time.
func Serial(t testing.TB) {
	t.Helper()
	if os.Getenv("GHOSTLITE_TEST_SERIAL") == "skip" {
		deferSerial(t)
	}
	sandboxSerial().holdExclusive(t)
}

// holdExclusive takes the test's exclusive hold on the lock until the test ends.
func (s *serialState) holdExclusive(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	if s.exclusive != "" && sameTest(t.Name(), s.exclusive) {
		s.mu.Unlock()
		return // already alone
	}
	for name := range s.holders {
		if !sameTest(t.Name(), name) {
			s.mu.Unlock()
			t.Fatalf("testenv.Serial: %s runs beside %s; a serial test must not call t.Parallel", t.Name(), name)
		}
	}
	defer s.mu.Unlock()
	if err := s.openMain(); err != nil {
		t.Fatal(err)
	}
	// Drop this process's shared hold first: two serial tests of two processes that each kept
	// theirs while waiting for the other's would wait forever.
	if err := flock(s.main, syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	gate, err := os.OpenFile(s.path+".gate", os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = gate.Close() }() // later tests pass the turnstile once this test holds the lock
	if err := flock(gate, syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if err := flock(s.main, syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	s.exclusive = t.Name()
	t.Cleanup(func() { s.endSerial(t) })
}

func (s *serialState) endSerial(t testing.TB) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exclusive = ""
	how := syscall.LOCK_UN
	if len(s.holders) > 0 {
		how = syscall.LOCK_SH
	}
	if err := flock(s.main, how); err != nil {
		t.Error(err)
	}
}

// deferSerial records the test in GHOSTLITE_TEST_SERIAL_LIST and skips it.
func deferSerial(t testing.TB) {
	t.Helper()
	list := os.Getenv("GHOSTLITE_TEST_SERIAL_LIST")
	if list == "" {
		t.Fatal("GHOSTLITE_TEST_SERIAL=skip needs GHOSTLITE_TEST_SERIAL_LIST: the file that lists the tests to run after")
	}
	pkg, err := os.Getwd() // go test runs a package's tests in its directory
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(list, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	top, _, _ := strings.Cut(t.Name(), "/")
	_, err = fmt.Fprintf(f, "%s %s\n", pkg, top) // one short write: appends from processes do not interleave
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Skip("changes server-wide state: runs in script/test's serial phase (GHOSTLITE_TEST_SERIAL=skip)")
}
