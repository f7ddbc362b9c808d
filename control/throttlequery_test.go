package control

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// TestThrottleQueryOnlyReads: throttle-query= used to run any SQL with the tool's privileges
// (throttle-query=DROP TABLE victim dropped the table, and over the unauthenticated TCP port any
// local user could do it). Now, on a real migration: anything but one read-only SELECT is refused
// over the socket, a SELECT calling a stored function that writes cannot write (read-only
// transaction: the copy is throttled with the server's refusal), and over TCP throttle-query= is
// refused whatever its value, while it can still be read. The victim table keeps its rows.
func TestThrottleQueryOnlyReads(t *testing.T) {
	port := freePort(t)
	m, sock, start := migration(t, "t", 20000, Config{TCPPort: port})
	db := testenv.Open(t, testenv.PrimaryConfig(), controlDB)
	testenv.Exec(t, db, "CREATE TABLE victim (id INT PRIMARY KEY)", "INSERT INTO victim SELECT seq FROM seq_1_to_10",
		"CREATE FUNCTION wipe() RETURNS INT DETERMINISTIC MODIFIES SQL DATA BEGIN DELETE FROM victim; RETURN 1; END")
	tcp := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ask(t, sock, "postpone")

	for _, q := range []string{"DROP TABLE victim", "SELECT 1; DROP TABLE victim", "DELETE FROM victim",
		"SELECT id INTO OUTFILE '/tmp/gl_victim' FROM victim", "SELECT * FROM victim FOR UPDATE",
		"SELECT GET_LOCK('x', 1)", "/*!DROP TABLE victim*/ SELECT 1"} {
		if got := ask(t, sock, "throttle-query="+q); !strings.HasPrefix(got, "throttle-query: must be one read-only SELECT") {
			t.Errorf("throttle-query=%s over the socket: %q, want a refusal", q, got)
		}
	}
	if got := send(t, "tcp", tcp, "throttle-query=SELECT 0\n"); !strings.HasPrefix(got, "throttle-query cannot be changed over TCP") {
		t.Errorf("throttle-query= over TCP: %q, want a refusal", got)
	}
	if got := send(t, "tcp", tcp, "throttle-query=?\n"); got != "\n" {
		t.Errorf("throttle-query=? over TCP: %q, want the (empty) query", got)
	}

	// A SELECT whose function writes: accepted as a SELECT, but it runs read-only and fails,
	// which throttles the copy with the server's refusal.
	if got := ask(t, sock, "throttle-query=SELECT wipe()"); !strings.HasPrefix(got, throttleHint) {
		t.Fatalf("throttle-query=SELECT wipe(): %q", got)
	}
	done := start()
	st := waitStatus(t, m, done, "the copy throttled by the failing query", func(st status.Status) bool {
		return st.Throttled && strings.HasPrefix(st.ThrottleReason, "throttle-query failed")
	})
	if !strings.Contains(st.ThrottleReason, "READ ONLY") {
		t.Errorf("throttle reason %q does not name the read-only transaction", st.ThrottleReason)
	}
	if rows := testenv.CountRows(t, db, controlDB, "victim"); rows != 10 {
		t.Errorf("victim has %d rows, want 10", rows)
	}
	ask(t, sock, "throttle-query=SELECT 0")
	ask(t, sock, "panic")
	select {
	case err := <-done:
		if err == nil {
			t.Error("the migration succeeded after panic")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the migration did not end after panic")
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}
