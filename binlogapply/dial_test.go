package binlogapply

import (
	"log/slog"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// --mysql-timeout (Source.Timeout) bounds the binlog connection's handshake: a server that
// accepts and never answers fails the stream's start within it, not within the stream's much
// longer ReadTimeout (go-mysql's only bound of the handshake before).
func TestMySQLTimeoutBoundsTheBinlogHandshake(t *testing.T) {
	host, port := testenv.SilentServer(t)
	cfg := Config{ServerID: testenv.NextServerID(), HeartbeatPeriod: 5 * time.Second, ReadTimeout: 30 * time.Second,
		Source: dbconn.Config{Host: host, Port: port, User: "u", Password: "p", Timeout: 300 * time.Millisecond}}
	sc := syncerConfig(cfg, mysql.MySQLFlavor, slog.New(slog.DiscardHandler), nil)
	if sc.ReadTimeout != cfg.ReadTimeout || sc.Dialer == nil || sc.Option == nil {
		t.Fatalf("syncer config: ReadTimeout %s, Dialer set %v, Option set %v", sc.ReadTimeout, sc.Dialer != nil, sc.Option != nil)
	}
	syncer := replication.NewBinlogSyncer(sc)
	defer syncer.Close()
	began := time.Now()
	_, err := syncer.StartSync(mysql.Position{Name: "binlog.000001", Pos: 4})
	took := time.Since(began)
	if err == nil {
		t.Fatal("the binlog stream started on a server that never answers")
	}
	if took > 3*time.Second {
		t.Errorf("the handshake with a silent server took %s with --mysql-timeout=0.3 (err: %v)", took, err)
	}
	t.Logf("gave up after %s: %v", took, err)
}

// The bound of the handshake ends with it: a stream whose --mysql-timeout is far below its read
// timeout stays on one connection while idle, and applies a change made after the bound passed.
func TestMySQLTimeoutEndsWithTheHandshake(t *testing.T) {
	src := testenv.PrimaryConfig()
	// 1 s: a handshake takes milliseconds, but a busy machine (the suite runs packages in
	// parallel) has been seen to need more than 300 ms for the first connection
	src.Timeout = time.Second
	f := newFixture(t, "t_dial", "CREATE TABLE %s (id INT PRIMARY KEY, v INT)", fixtureOpts{source: &src, noStart: true})
	f.start()
	time.Sleep(2500 * time.Millisecond) // well beyond the timeout without an event of the table
	f.exec("INSERT INTO t_dial VALUES (1, 10)")
	f.sentinel(10 * time.Second)
	if st := f.app.Stats(); st.Reconnects != 0 || st.EventsApplied != 1 {
		t.Errorf("stats: %d reconnects, %d events applied; want 0 and 1", st.Reconnects, st.EventsApplied)
	}
}
