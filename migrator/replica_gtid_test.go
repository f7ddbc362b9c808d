package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The replica set up as MariaDB recommends for replicas that take local writes: gtid_strict_mode=ON
// and a gtid_domain_id of its own. The tests change these globals on the sandbox replica and
// restore them at cleanup.

// replicaOwnDomain is the gtid_domain_id the tests give the sandbox replica (the primary uses 0).
const replicaOwnDomain = 9

// TestTestOnReplicaStrictModeOwnDomain: --test-on-replica (with the real run's --assume-master-host
// kept on the command line) used to be refused on any replica in gtid_strict_mode. On a replica
// with its own domain it runs end to end under a write load on the primary: its writes take GTIDs
// in the replica's domain only, and replication resumes afterwards without an out-of-order error.
func TestTestOnReplicaStrictModeOwnDomain(t *testing.T) {
	testenv.Serial(t) // it sets the replica's GTID globals and stops replication
	testenv.OnlyMariaDB(t, "gtid_strict_mode and GTID domains are MariaDB's")
	const schema = "glr_replica_tor_domain"
	primary := replicaFixture(t, schema)
	replica := testenv.Open(t, testenv.ReplicaConfig(), schema)
	strictReplica(t, primary, replica, replicaOwnDomain)
	t.Cleanup(func() { startReplicationAndWait(t, replica) }) // runs before strictReplica's restore
	before := localGTIDs(t, replica, 0)

	logs := &testenv.LogBuffer{}
	cfg := replicaTestConfig(t, schema, logs)
	cfg.TestOnReplica = true
	cfg.AssumeMasterHost = testenv.PrimaryConfig().Addr()
	if err := runUnderReplicaLoad(t, primary, cfg, 0); err != nil {
		t.Fatalf("--test-on-replica on a strict replica with its own GTID domain: %v", err)
	}
	assertEventsApplied(t, logs)
	assertReplicationRunning(t, replica, false)
	assertTables(t, replica, schema, "_t_gho", "t")
	assertHasColumnC(t, replica, schema, "_t_gho", true)
	orig, migrated := sharedSum(t, replica, schema, "t"), sharedSum(t, replica, schema, "_t_gho")
	if orig != migrated {
		t.Fatalf("migrated copy _t_gho %s != original t %s", migrated, orig)
	}
	if got := localGTIDs(t, replica, replicaOwnDomain); got == "" {
		t.Error("no GTID of the replica's own domain in its binlog: where did the migration's writes go?")
	}
	if got := localGTIDs(t, replica, 0); got != before {
		t.Errorf("the migration's writes took GTIDs in the replicated domain 0: %q, before %q", got, before)
	}
	if !strings.Contains(logs.String(), "--assume-master-host has nothing to do with --test-on-replica") {
		t.Error("the log does not say --assume-master-host is ignored")
	}

	startReplicationAndWait(t, replica)
	assertReplicationRunning(t, replica, true)
	if got, want := sharedSum(t, replica, schema, "t"), sharedSum(t, primary, schema, "t"); got != want {
		t.Fatalf("after resuming, the replica's t %s != primary's t %s", got, want)
	}
}

// TestReplicaModesRefuseStrictReplicatedDomain: with gtid_strict_mode=ON and the primary's domain
// the migration's writes would stop replication: refused in one line, nothing created.
func TestReplicaModesRefuseStrictReplicatedDomain(t *testing.T) {
	testenv.Serial(t) // it sets the replica's GTID globals
	testenv.OnlyMariaDB(t, "gtid_strict_mode and GTID domains are MariaDB's")
	const schema = "glr_replica_strict_refuse"
	primary := replicaFixture(t, schema)
	replica := testenv.Open(t, testenv.ReplicaConfig(), schema)
	strictReplica(t, primary, replica, 0)
	for _, testMode := range []bool{false, true} {
		t.Run(fmt.Sprintf("test-on-replica=%v", testMode), func(t *testing.T) {
			cfg := replicaTestConfig(t, schema, nil)
			cfg.MigrateOnReplica, cfg.TestOnReplica = !testMode, testMode
			err := runToEnd(t, cfg)
			want := fmt.Sprintf("gtid_strict_mode is ON on replica %s and its gtid_domain_id 0 is a domain it replicates from its primary", testenv.ReplicaConfig().Addr())
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%s: got %v, want one line saying %q", cfg.ReplicaModeFlag(), err, want)
			}
			assertTables(t, replica, schema, "t")
			assertReplicationRunning(t, replica, true)
		})
	}
}

// strictReplica sets gtid_strict_mode=ON and gtid_domain_id=domain on the sandbox replica, and
// restores both at cleanup. Local writes of earlier tests (in domain 0 with the replica's server
// id) may be ahead of the primary's sequence: strict mode would then refuse the primary's next
// transaction, so the primary's sequence is first moved past them.
func strictReplica(t *testing.T, primary, replica *sql.DB, domain int) {
	t.Helper()
	ctx := context.Background()
	var strict, oldDomain int
	if err := replica.QueryRow("SELECT @@global.gtid_strict_mode, @@global.gtid_domain_id").Scan(&strict, &oldDomain); err != nil {
		t.Fatal(err)
	}
	if ahead := maxSeq(t, replica, 0); ahead > maxSeq(t, primary, 0) {
		conn, err := primary.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for _, q := range []string{fmt.Sprintf("SET SESSION gtid_seq_no = %d", ahead+1), "DROP TABLE IF EXISTS _gtid_align"} {
			if _, err := conn.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		testenv.WaitReplica(t)
	}
	t.Cleanup(func() {
		if _, err := replica.Exec(fmt.Sprintf("SET GLOBAL gtid_strict_mode = %d, gtid_domain_id = %d", strict, oldDomain)); err != nil {
			t.Errorf("restore the replica's GTID settings: %v", err)
		}
	})
	testenv.Exec(t, replica, fmt.Sprintf("SET GLOBAL gtid_strict_mode = ON, gtid_domain_id = %d", domain))
}

// maxSeq is the highest sequence number of domain in db's binlog state, whatever the server id.
func maxSeq(t *testing.T, db *sql.DB, domain int) uint64 {
	t.Helper()
	var state string
	if err := db.QueryRow("SELECT @@global.gtid_binlog_state").Scan(&state); err != nil {
		t.Fatal(err)
	}
	var max uint64
	for _, g := range strings.Split(state, ",") {
		parts := strings.Split(strings.TrimSpace(g), "-")
		if len(parts) != 3 || parts[0] != strconv.Itoa(domain) {
			continue
		}
		if seq, err := strconv.ParseUint(parts[2], 10, 64); err == nil && seq > max {
			max = seq
		}
	}
	return max
}

// localGTIDs is the replica's own entry (its server id) for domain in its binlog state, or "".
func localGTIDs(t *testing.T, replica *sql.DB, domain int) string {
	t.Helper()
	var state string
	var serverID int
	if err := replica.QueryRow("SELECT @@global.gtid_binlog_state, @@global.server_id").Scan(&state, &serverID); err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("%d-%d-", domain, serverID)
	for _, g := range strings.Split(state, ",") {
		if g = strings.TrimSpace(g); strings.HasPrefix(g, prefix) {
			return g
		}
	}
	return ""
}
