package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The replica-mode tests run real migrations on the sandbox: the table is created on the primary
// and replicated; a writer keeps changing it on the primary during the migration. Each test has its
// own glr_replica_* database, dropped (on the primary, so on the replica too) at cleanup.

const replicaRows = 3000

// TestReplicaDefaultTopologyEndToEnd: --host is the replica, tables are written and cut over on
// the primary, the replica follows by replication. The cut-over is postponed until the writer has
// stopped, so the old table holds the original as of the cut-over.
func TestReplicaDefaultTopologyEndToEnd(t *testing.T) {
	const schema = "glr_replica_default"
	primary := replicaFixture(t, schema)
	flag := filepath.Join(t.TempDir(), "postpone")
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := replicaTestConfig(t, schema, nil)
	cfg.PostponeCutOverFlagFile = flag
	stopLoad := startReplicaLoad(t, primary)
	done := runMigration(t, cfg)
	time.Sleep(1500 * time.Millisecond)
	if n := stopLoad(); n == 0 {
		t.Fatal("the writer wrote nothing")
	}
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 60*time.Second); err != nil {
		t.Fatalf("migration: %v", err)
	}
	assertTables(t, primary, schema, "t", "_t_del")
	assertHasColumnC(t, primary, schema, "t", true)
	want := sharedSum(t, primary, schema, "_t_del")
	if got := sharedSum(t, primary, schema, "t"); got != want {
		t.Fatalf("primary: migrated t %s != original as of cut-over %s", got, want)
	}
	testenv.WaitReplica(t)
	replica := testenv.Open(t, testenv.ReplicaConfig(), schema)
	assertTables(t, replica, schema, "t", "_t_del")
	assertHasColumnC(t, replica, schema, "t", true)
	if got := sharedSum(t, replica, schema, "t"); got != want {
		t.Fatalf("replica: migrated t %s != original as of cut-over %s", got, want)
	}
}

// TestMigrateOnReplicaEndToEnd: the whole migration on the replica while the primary keeps
// writing, through the cut-over and after it (those writes replicate into the new table, whose
// extra column is at the end). The primary is not touched.
func TestMigrateOnReplicaEndToEnd(t *testing.T) { migrateOnReplicaEndToEnd(t, "glr_replica_mor") }

func migrateOnReplicaEndToEnd(t *testing.T, schema string) {
	primary := replicaFixture(t, schema)
	logs := &testenv.LogBuffer{}
	cfg := replicaTestConfig(t, schema, logs)
	cfg.MigrateOnReplica = true
	// Writes after the cut-over go into the replica's new table.
	if err := runUnderReplicaLoad(t, primary, cfg, 300*time.Millisecond); err != nil {
		t.Fatalf("migration: %v", err)
	}
	assertEventsApplied(t, logs)
	testenv.WaitReplica(t)
	replica := testenv.Open(t, testenv.ReplicaConfig(), schema)
	assertReplicationRunning(t, replica, true)
	assertTables(t, primary, schema, "t")
	assertHasColumnC(t, primary, schema, "t", false)
	assertTables(t, replica, schema, "t", "_t_del")
	assertHasColumnC(t, replica, schema, "t", true)
	want := sharedSum(t, primary, schema, "t")
	if got := sharedSum(t, replica, schema, "t"); got != want {
		t.Fatalf("replica's migrated t %s != primary's t %s", got, want)
	}
	var bad int
	if err := replica.QueryRow("SELECT COUNT(*) FROM t WHERE c <> 7").Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("rows with a wrong value in the added column: %d (%v)", bad, err)
	}
}

func TestMigrateOnReplicaRefusesPrimary(t *testing.T) {
	const schema = "glr_replica_refuse"
	primary := replicaFixture(t, schema)
	for _, testMode := range []bool{false, true} {
		t.Run(fmt.Sprintf("test-on-replica=%v", testMode), func(t *testing.T) {
			cfg := replicaTestConfig(t, schema, nil)
			cfg.Conn = testenv.PrimaryConfig()
			cfg.MigrateOnReplica, cfg.TestOnReplica = !testMode, testMode
			flag := cfg.ReplicaModeFlag()
			err := runToEnd(t, cfg)
			if err == nil || !strings.Contains(err.Error(), flag+" needs --host to be a replica") {
				t.Fatalf("%s on the primary: got %v", flag, err)
			}
			assertTables(t, primary, schema, "t")
		})
	}
}

// TestTestOnReplicaEndToEnd: replication is stopped at cut-over, the tables are swapped back, the
// migrated copy _t_gho equals the original t on the shared columns, and replication stays stopped
// until the test restarts it.
func TestTestOnReplicaEndToEnd(t *testing.T) {
	testenv.Serial(t) // --test-on-replica stops replication
	testOnReplicaEndToEnd(t, "glr_replica_tor")
}

func testOnReplicaEndToEnd(t *testing.T, schema string) {
	primary := replicaFixture(t, schema)
	replica := testenv.Open(t, testenv.ReplicaConfig(), schema)
	t.Cleanup(func() { startReplicationAndWait(t, replica) })
	logs := &testenv.LogBuffer{}
	cfg := replicaTestConfig(t, schema, logs)
	cfg.TestOnReplica = true
	if err := runUnderReplicaLoad(t, primary, cfg, 0); err != nil {
		t.Fatalf("migration: %v", err)
	}
	assertEventsApplied(t, logs)
	assertSwappedBackSummary(t, logs)
	// While replication is stopped: compare, then restart at once.
	assertReplicationRunning(t, replica, false)
	assertTables(t, replica, schema, "_t_gho", "t")
	assertHasColumnC(t, replica, schema, "t", false)
	assertHasColumnC(t, replica, schema, "_t_gho", true)
	orig, migrated := sharedSum(t, replica, schema, "t"), sharedSum(t, replica, schema, "_t_gho")
	startReplicationAndWait(t, replica)
	if orig != migrated {
		t.Fatalf("migrated copy _t_gho %s != original t %s", migrated, orig)
	}
	if !strings.Contains(logs.String(), "resume it with "+testenv.Flavor(t).StartReplicaSQL()) {
		t.Error("the log does not say how to resume replication")
	}
	if got, want := sharedSum(t, replica, schema, "t"), sharedSum(t, primary, schema, "t"); got != want {
		t.Fatalf("after resuming, the replica's t %s != primary's t %s", got, want)
	}
}

// assertSwappedBackSummary checks the last line of a --test-on-replica run names the migrated copy
// and no old table (swapped back, _t_del does not exist; issue 34.4).
func assertSwappedBackSummary(t *testing.T, logs *testenv.LogBuffer) {
	t.Helper()
	var last string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"message":"Done migrating`) {
			last = line
		}
	}
	if !strings.Contains(last, `"migrated_copy":"_t_gho"`) || strings.Contains(last, "old_table") {
		t.Errorf("the last line should name the migrated copy _t_gho and no old table: %s", last)
	}
}

// TestTestOnReplicaSkipReplicaStopEndToEnd: with --test-on-replica-skip-replica-stop replication
// keeps running (nothing writes to the table, as the flag requires); the swap back happens all the same.
func TestTestOnReplicaSkipReplicaStopEndToEnd(t *testing.T) {
	testenv.Serial(t) // it stops replication
	const schema = "glr_replica_tor_skip"
	replicaFixture(t, schema)
	replica := testenv.Open(t, testenv.ReplicaConfig(), schema)
	t.Cleanup(func() { startReplicationAndWait(t, replica) }) // only if the test failed half-way
	logs := &testenv.LogBuffer{}
	cfg := replicaTestConfig(t, schema, logs)
	cfg.TestOnReplica, cfg.TestOnReplicaSkipReplicaStop = true, true
	if err := runToEnd(t, cfg); err != nil {
		t.Fatalf("migration: %v", err)
	}
	assertReplicationRunning(t, replica, true)
	assertTables(t, replica, schema, "_t_gho", "t")
	assertHasColumnC(t, replica, schema, "t", false)
	assertHasColumnC(t, replica, schema, "_t_gho", true)
	if orig, migrated := sharedSum(t, replica, schema, "t"), sharedSum(t, replica, schema, "_t_gho"); orig != migrated {
		t.Fatalf("migrated copy _t_gho %s != original t %s", migrated, orig)
	}
	if strings.Contains(logs.String(), "replication stopped") || !strings.Contains(logs.String(), "replication is still running") {
		t.Error("the log does not say replication kept running")
	}
}

// replicaFixture creates schema.t on the primary with replicaRows rows, waits for the replica to
// have it, and drops the database at cleanup.
func replicaFixture(t *testing.T, schema string) *sql.DB {
	t.Helper()
	primary := testenv.Database(t, schema)
	t.Cleanup(func() {
		if _, err := primary.Exec("DROP DATABASE IF EXISTS " + schema); err != nil {
			t.Errorf("drop %s: %v", schema, err)
		}
	})
	testenv.Exec(t, primary,
		"CREATE TABLE t (id INT NOT NULL, a INT, b VARCHAR(40), PRIMARY KEY (id)) ENGINE=InnoDB",
		fmt.Sprintf(`INSERT INTO t WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 99),
			r(n) AS (SELECT x.n * 100 + y.n + 1 FROM s x, s y)
			SELECT n, n * 2, CONCAT('row ', n) FROM r WHERE n <= %d`, replicaRows))
	testenv.WaitReplica(t)
	return primary
}

func replicaTestConfig(t *testing.T, schema string, logs *testenv.LogBuffer) config.Config {
	t.Helper()
	cfg := testConfig(t, schema, "t", "ADD COLUMN c INT NOT NULL DEFAULT 7", logs)
	cfg.Conn, cfg.AllowOnMaster = testenv.ReplicaConfig(), false
	live(&cfg)
	cfg.ChunkSize = 500
	cfg.DefaultRetries = 5
	cfg.Logger = cfg.Logger.Level(zerolog.InfoLevel)
	return cfg
}

// runToEnd runs a migration and returns its result (it must end within 60 s).
func runToEnd(t *testing.T, cfg config.Config) error {
	t.Helper()
	return testenv.WaitResult(t, runMigration(t, cfg), 60*time.Second)
}

// runUnderReplicaLoad runs the migration cfg describes, its cut-over postponed for a second, while
// the writer changes t on the primary; the writer goes on for after once the run has ended. It
// returns the run's result; a writer that wrote nothing fails the test.
func runUnderReplicaLoad(t *testing.T, primary *sql.DB, cfg config.Config, after time.Duration) error {
	t.Helper()
	cfg.PostponeCutOverFlagFile = postponeFor(t, time.Second)
	stopLoad := startReplicaLoad(t, primary)
	err := runToEnd(t, cfg)
	time.Sleep(after)
	if n := stopLoad(); n == 0 {
		t.Fatal("the writer wrote nothing")
	}
	return err
}

// startReplicaLoad inserts, updates and deletes rows of t on the primary until the returned
// function is called; that function returns the number of writes and fails the test on an error.
func startReplicaLoad(t *testing.T, primary *sql.DB) func() int {
	t.Helper()
	var next atomic.Int64
	next.Store(100000)
	insert := func(r *rand.Rand) (string, []any) {
		id := next.Add(1)
		return "INSERT INTO t (id, a, b) VALUES (?, ?, 'new')", []any{id, id}
	}
	l := loadgen.Start(context.Background(), loadgen.Config{
		DB: primary, Workers: 1, Rate: 500, SkipMissed: true, StopOnFailure: true,
		Ops: []loadgen.Op{insert, insert,
			func(r *rand.Rand) (string, []any) {
				return "UPDATE t SET a = a + 1, b = CONCAT('upd ', ?) WHERE id = ?", []any{r.Intn(1 << 20), 1 + r.Intn(replicaRows)}
			},
			func(r *rand.Rand) (string, []any) {
				return "DELETE FROM t WHERE id = ?", []any{1 + r.Intn(replicaRows)}
			},
		},
	})
	t.Cleanup(func() { l.Stop() })
	return func() int {
		st := l.Stop()
		if st.FirstError != nil {
			t.Fatalf("writer: %v", st.FirstError)
		}
		return int(st.Acked)
	}
}

// sharedSum is the checksum of t's shared columns (id, a, b).
func sharedSum(t *testing.T, db *sql.DB, schema, tbl string) string {
	t.Helper()
	rows, sum := testenv.Checksum(t, db, schema, tbl, []string{"id", "a", "b"}, "`id`")
	if rows < replicaRows/2 {
		t.Fatalf("%s.%s has only %d rows", schema, tbl, rows)
	}
	return fmt.Sprintf("%d/%s", rows, sum)
}

// assertTables checks the tables of schema are exactly want.
func assertTables(t *testing.T, db *sql.DB, schema string, want ...string) {
	t.Helper()
	exp := append([]string(nil), want...)
	sort.Strings(exp)
	got := testenv.TableNames(t, db, schema, "")
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(exp, ",") {
		t.Fatalf("tables of %s: got %v, want %v", schema, got, exp)
	}
}

func assertHasColumnC(t *testing.T, db *sql.DB, schema, tbl string, want bool) {
	t.Helper()
	if has := testenv.HasColumn(t, db, schema, tbl, "c"); has != want {
		t.Fatalf("%s.%s has column c: %v, want %v", schema, tbl, has, want)
	}
}

func assertReplicationRunning(t *testing.T, replica *sql.DB, want bool) {
	t.Helper()
	rs, err := dbconn.ReadReplicaStatus(context.Background(), replica, testenv.Flavor(t), "replica")
	if err != nil || rs == nil {
		t.Fatalf("replica status: %+v %v", rs, err)
	}
	running := rs.IORunning == "Yes" && rs.SQLRunning == "Yes"
	stopped := rs.IORunning == "No" && rs.SQLRunning == "No"
	if (want && !running) || (!want && !stopped) {
		t.Fatalf("replication: IO %s, SQL %s; want running=%v", rs.IORunning, rs.SQLRunning, want)
	}
}

// startReplicationAndWait restarts replication on the replica and waits until it has caught up.
func startReplicationAndWait(t *testing.T, replica *sql.DB) {
	t.Helper()
	start := testenv.Flavor(t).StartReplicaSQL()
	if _, err := replica.Exec(start); err != nil {
		t.Errorf("%s: %v", start, err)
		return
	}
	testenv.WaitReplica(t)
}

// postponeFor returns a postpone-cut-over flag file that exists for d from now, so the applier
// has the writer's replicated changes to apply before the cut-over.
func postponeFor(t *testing.T, d time.Duration) string {
	t.Helper()
	flag := filepath.Join(t.TempDir(), "postpone")
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(d, func() { _ = os.Remove(flag) })
	t.Cleanup(func() { timer.Stop() })
	return flag
}

var eventsAppliedRe = regexp.MustCompile(`"events_applied":(\d+)`)

// assertEventsApplied checks the migration applied binlog events (the writer's changes reached
// the binlog that was read), from its final log line.
func assertEventsApplied(t *testing.T, logs *testenv.LogBuffer) {
	t.Helper()
	m := eventsAppliedRe.FindStringSubmatch(logs.String())
	if m == nil {
		t.Fatal("no events_applied in the log")
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 {
		t.Fatal("no binlog event was applied: the writer's changes never reached the applier")
	}
}
