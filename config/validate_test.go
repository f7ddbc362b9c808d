package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestValidateRefusesLongAndUnsupported(t *testing.T) {
	base := Default()
	base.Database, base.Table, base.Alter = "gl", "t", "ADD c INT"
	cases := []struct {
		mutate func(*Config)
		phrase string
	}{
		{func(c *Config) { c.Table = strings.Repeat("x", 60) }, "too long for its ghost table name"},
		{func(c *Config) { c.Table = strings.Repeat("x", 45); c.TimestampOldTable = true }, "too long for a timestamped old table name"},
		{func(c *Config) { c.StorageEngine = "rocksdb" }, "--storage-engine"},
		{func(c *Config) { c.AssumeMasterHost = "db1:notaport" }, "--assume-master-host"},
	}
	for _, c := range cases {
		t.Run(c.phrase, func(t *testing.T) {
			cfg := base
			c.mutate(&cfg)
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.phrase) {
				t.Errorf("Validate: got %v, want %q", err, c.phrase)
			}
		})
	}
	if err := base.Validate(); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
}

func TestReplicaModeValidate(t *testing.T) {
	base := Default()
	base.Database, base.Table, base.Alter = "gl_replica", "t", "ADD c INT"
	cases := []struct {
		mutate func(*Config)
		phrase string // "" means accepted
	}{
		{func(c *Config) { c.MigrateOnReplica = true }, ""},
		{func(c *Config) { c.TestOnReplica = true }, ""},
		{func(c *Config) { c.TestOnReplica, c.TestOnReplicaSkipReplicaStop = true, true }, ""},
		{func(c *Config) { c.MigrateOnReplica, c.TestOnReplica = true, true }, "--migrate-on-replica and --test-on-replica contradict each other"},
		{func(c *Config) { c.TestOnReplicaSkipReplicaStop = true }, "--test-on-replica-skip-replica-stop needs --test-on-replica"},
		{func(c *Config) { c.MigrateOnReplica, c.AllowOnMaster = true, true }, "--allow-on-master and --migrate-on-replica contradict each other"},
		{func(c *Config) { c.TestOnReplica, c.AllowOnMaster = true, true }, "--allow-on-master and --test-on-replica contradict each other"},
		{func(c *Config) { c.MigrateOnReplica, c.AssumeMasterHost = true, "db1" }, "--assume-master-host and --migrate-on-replica contradict each other"},
		// gh-ost accepts it: nothing to do in a test on the replica (a test run keeps the real run's flags).
		{func(c *Config) { c.TestOnReplica, c.AssumeMasterHost = true, "db1:3306" }, ""},
		{func(c *Config) { c.TestOnReplica, c.RecoverCutOver = true, true }, "--recover-cut-over does not support --test-on-replica"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("case %d", i), func(t *testing.T) {
			cfg := base
			c.mutate(&cfg)
			err := cfg.Validate()
			switch {
			case c.phrase == "" && err != nil:
				t.Errorf("case %d: refused: %v", i, err)
			case c.phrase != "" && (err == nil || !strings.Contains(err.Error(), c.phrase) || !errors.Is(err, ErrUsage)):
				t.Errorf("case %d: got %v, want usage error %q", i, err, c.phrase)
			}
		})
	}
}

// --master-user and --master-password need --assume-master-host (preflight's
// TestMasterCredentials checks the accounts each server is reached with).
func TestMasterCredentialsNeedAssumeMasterHost(t *testing.T) {
	cfg := Default()
	cfg.Conn.Host, cfg.Conn.User, cfg.Conn.Password = "replica1", "ro", "ropw"
	cfg.Database, cfg.Table, cfg.Alter = "d", "t", "ADD COLUMN c INT"
	cfg.MasterUser, cfg.MasterPassword = "rw", "rwpw"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "need --assume-master-host") {
		t.Fatalf("--master-user without --assume-master-host: %v", err)
	}
}

func TestChecksumRequiredWithCascadingLoss(t *testing.T) {
	cfg := Default()
	cfg.Database, cfg.Table, cfg.Alter = "db", "t", "ADD COLUMN c INT"
	cfg.AllowCascadingForeignKeysDataLoss, cfg.Checksum = true, false
	if err := cfg.Validate(); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--checksum=false") {
		t.Errorf("Validate: %v, want a usage error naming --checksum=false", err)
	}
}

// --cut-over=lock-rename is not combined with what works on the ghost from another session under
// the lock; alone it is valid.
func TestLockRenameCombinations(t *testing.T) {
	for flag, set := range map[string]func(*Config){
		"--include-triggers":          func(c *Config) { c.IncludeTriggers = true },
		"--allow-nullable-unique-key": func(c *Config) { c.AllowNullableUniqueKey = true },
	} {
		cfg := Default()
		cfg.Database, cfg.Table, cfg.Alter, cfg.CutOver = "db", "t", "ADD COLUMN c INT", "lock-rename"
		if err := cfg.Validate(); err != nil {
			t.Fatalf("lock-rename alone: %v", err)
		}
		set(&cfg)
		if err := cfg.Validate(); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), flag) || !strings.Contains(err.Error(), "three-step") {
			t.Errorf("lock-rename with %s: %v, want a usage error naming it and three-step", flag, err)
		}
	}
}

// The revert flags' usage errors, before any server is asked.
func TestRevertUsage(t *testing.T) {
	for _, c := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.OldTableName, c.Alter = "_t_del", "ADD COLUMN c INT" }, "give --revert too"},
		{func(c *Config) { c.Revert = true }, "--revert must be called with --old-table"},
		{func(c *Config) { c.Revert, c.OldTableName, c.Resume = true, "_t_del", true }, "--revert cannot be used with --resume"},
		{func(c *Config) { c.Revert, c.OldTableName, c.Execute = true, "_t_del", false }, "it needs --execute"},
		{func(c *Config) { c.Revert, c.OldTableName = true, "_t_ghk" }, "names the table itself or one of its helper tables"},
		{func(c *Config) { c.Revert, c.OldTableName = true, "T" }, "names the table itself"},
	} {
		cfg := Default()
		cfg.Database, cfg.Table, cfg.Execute = "db", "t", true
		c.set(&cfg)
		err := cfg.Validate()
		if err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate: %v, want a usage error with %q", err, c.want)
		}
	}
	cfg := Default()
	cfg.Database, cfg.Table, cfg.Execute, cfg.Revert, cfg.OldTableName = "db", "t", true, true, "_t_del"
	if err := cfg.Validate(); err != nil {
		t.Errorf("--revert --old-table=_t_del --execute without --alter: %v", err)
	}
}
