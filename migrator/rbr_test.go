package migrator

import (
	"context"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// --switch-to-rbr on the sandbox replica: without it a MIXED replica is refused with gh-ost's
// phrase; a dry run with it changes nothing; a run with it switches the replica to ROW, restarts
// its replication and migrates. --tungsten waives log_slave_updates (checked by checkBinlog).
func TestSwitchToRBR(t *testing.T) {
	testenv.Serial(t) // it sets the replica's global binlog_format
	const schema = "glr_mig_rbr"
	primary := replicaFixture(t, schema)
	replica := testenv.Open(t, testenv.ReplicaConfig(), "")
	format := func() string {
		var f string
		if err := replica.QueryRow("SELECT @@GLOBAL.binlog_format").Scan(&f); err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := testenv.Flavor(t)
	testenv.Exec(t, replica, f.StopReplicaSQL(), "SET GLOBAL binlog_format = 'MIXED'", f.StartReplicaSQL())
	t.Cleanup(func() {
		testenv.Exec(t, replica, f.StopReplicaSQL(), "SET GLOBAL binlog_format = 'ROW'", f.StartReplicaSQL())
		testenv.WaitReplicaRunning(t, replica)
	})
	testenv.WaitReplicaRunning(t, replica)

	cfg := replicaTestConfig(t, schema, nil)
	err := mustNew(t, cfg).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "you must be using ROW binlog format. I can switch it for you, provided --switch-to-rbr") {
		t.Fatalf("MIXED without --switch-to-rbr: %v", err)
	}
	cfg.SwitchToRBR, cfg.Execute = true, false
	if err := mustNew(t, cfg).Run(context.Background()); err != nil {
		t.Fatalf("dry run with --switch-to-rbr: %v", err)
	}
	if f := format(); f != "MIXED" {
		t.Fatalf("the dry run switched the replica to %s", f)
	}
	cfg.Execute = true
	if err := runToEnd(t, cfg); err != nil {
		t.Fatalf("--switch-to-rbr --execute: %v", err)
	}
	if f := format(); f != "ROW" {
		t.Fatalf("binlog_format is %s after --switch-to-rbr", f)
	}
	assertTables(t, primary, schema, "t", "_t_del")

	// Not on a primary, and not with --assume-rbr.
	cfg = testConfig(t, schema, "t", "ADD COLUMN d INT", nil)
	cfg.SwitchToRBR, cfg.AssumeRBR = true, true
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "--switch-to-rbr and --assume-rbr contradict") {
		t.Errorf("--switch-to-rbr --assume-rbr: %v", err)
	}
}
