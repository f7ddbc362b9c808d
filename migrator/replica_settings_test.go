package migrator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The replica's settings in the matrix of doc/requirements.md ("Server settings"), for the runs
// that read the replica's binary log: parallel replication (the replica's binlog still carries
// its commits in order) migrates; a replica that does not log what it replicates is refused
// before anything is created, in one line naming the setting and the fix.

// With parallel replication on the replica (MySQL replica_parallel_workers=4, commit order kept;
// MariaDB slave_parallel_threads=4, optimistic), --migrate-on-replica and --test-on-replica run
// under the primary's writes and give the primary's rows.
func TestParallelReplicationOnTheReplica(t *testing.T) {
	testenv.Serial(t) // it stops replication and changes the replica's globals
	replica := testenv.Open(t, testenv.ReplicaConfig(), "")
	f := testenv.Flavor(t)
	settings := [][2]string{{"replica_parallel_workers", "4"}, {"replica_preserve_commit_order", "ON"}}
	if f.MariaDB {
		settings = [][2]string{{"slave_parallel_threads", "4"}, {"slave_parallel_mode", "optimistic"}}
	}
	testenv.Exec(t, replica, f.StopReplicaSQL())
	t.Cleanup(func() {
		testenv.Exec(t, replica, f.StartReplicaSQL())
		testenv.WaitReplicaRunning(t, replica)
	})
	for _, s := range settings {
		testenv.SetGlobal(t, replica, s[0], s[1]) // restored (LIFO) before replication starts again
	}
	t.Cleanup(func() { testenv.Exec(t, replica, f.StopReplicaSQL()) })
	testenv.Exec(t, replica, f.StartReplicaSQL())
	testenv.WaitReplicaRunning(t, replica)
	t.Run("migrate-on-replica", func(t *testing.T) { migrateOnReplicaEndToEnd(t, "glr_replica_par_mor") })
	t.Run("test-on-replica", func(t *testing.T) { testOnReplicaEndToEnd(t, "glr_replica_par_tor") })
}

// A replica started without log_replica_updates (MariaDB: log_slave_updates): each run that reads
// its binary log is refused at once, naming the setting and the fix, nothing created on either
// server. The replica restarts twice (off, then back as the sandbox has it).
func TestReplicaWithoutLoggedUpdatesIsRefused(t *testing.T) {
	testenv.Serial(t) // it restarts the replica
	if !testenv.CanRestartServers() {
		testenv.Unavailable(t, "GHOSTLITE_TEST_SANDBOX is not set: the test restarts the sandbox replica")
	}
	const schema = "glr_replica_nolog"
	primary := replicaFixture(t, schema)
	setting := "log_replica_updates"
	if testenv.Flavor(t).MariaDB {
		setting = "log_slave_updates"
	}
	testenv.RestartServer(t, "replica", "--"+strings.ReplaceAll(setting, "_", "-")+"=OFF")
	t.Cleanup(func() {
		testenv.RestartServer(t, "replica")
		testenv.WaitReplica(t)
	})
	replica := testenv.Open(t, testenv.ReplicaConfig(), schema)
	var on string
	if err := replica.QueryRow("SELECT @@GLOBAL." + setting).Scan(&on); err != nil || on != "0" {
		t.Fatalf("%s after the restart: %q %v", setting, on, err)
	}
	testenv.WaitReplicaRunning(t, replica)
	for _, mode := range []string{"read the replica", "--migrate-on-replica", "--test-on-replica"} {
		t.Run(mode, func(t *testing.T) {
			cfg := replicaTestConfig(t, schema, nil)
			cfg.MigrateOnReplica, cfg.TestOnReplica = mode == "--migrate-on-replica", mode == "--test-on-replica"
			err := runToEnd(t, cfg)
			want := fmt.Sprintf("must have log_slave_updates enabled for %s", map[bool]string{
				true: "testing/migrating on replica", false: "executing migration"}[mode != "read the replica"])
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "enable "+setting+" (needs a restart)") {
				t.Fatalf("with %s=OFF on the replica: %v", setting, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the refusal is not one line: %q", err)
			}
			assertTables(t, replica, schema, "t")
			assertTables(t, primary, schema, "t")
		})
	}
}
