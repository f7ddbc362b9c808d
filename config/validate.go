package config

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// ErrUsage marks a configuration that is wrong before any server is asked (a missing or
// contradictory flag value): the command line exits 2 for it, as for a flag it cannot parse.
// Refusals that come from inspecting the server (missing table, unsafe ALTER, server settings)
// are ordinary failures: exit 1.
var ErrUsage = errors.New("usage")

// MaxCopyThreads is the largest --copy-threads: each copy session is a connection copying at
// full speed.
const MaxCopyThreads = 32

// Validate checks the configuration without touching a server.
// With --statement, each per-table Config (PerTable) must be valid: one statement is validated
// as if --table and --alter had been given.
func (c *Config) Validate() error {
	if c.Statement != "" {
		tables, err := c.PerTable()
		if err != nil {
			return err
		}
		for i := range tables {
			if err := tables[i].Validate(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := c.validateValues(); err != nil {
		return err
	}
	if table.TooLong(table.GhostName(c.Table)) {
		return fmt.Errorf("%w: table name %q is too long for its ghost table name (64 characters at most)", ErrUsage, c.Table)
	}
	if c.TimestampOldTable && table.TooLong(table.OldName(c.Table, "20060102150405")) {
		return fmt.Errorf("%w: table name %q is too long for a timestamped old table name (64 characters at most): drop --timestamp-old-table", ErrUsage, c.Table)
	}
	if c.StorageEngine != "" {
		if err := CheckStorageEngine(c.StorageEngine); err != nil {
			return fmt.Errorf("%w: %v", ErrUsage, err)
		}
	}
	if err := c.validateTriggerFlags(); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	for _, validate := range []func() error{c.validateReplicaModes, c.validateChecksum, c.validateRevert, c.validateMaster} {
		if err := validate(); err != nil {
			return err
		}
	}
	return nil
}

// validateValues checks the required flags, the ranges of the sizes and the flags that exclude
// one another.
func (c *Config) validateValues() error {
	switch {
	case c.Database == "":
		return fmt.Errorf("%w: --database is required", ErrUsage)
	case c.Table == "":
		return fmt.Errorf("%w: --table is required", ErrUsage)
	case c.Alter == "" && !c.RecoverCutOver && !c.Revert:
		return fmt.Errorf("%w: --alter is required", ErrUsage)
	case c.ChunkSize < 10 || c.ChunkSize > 100000:
		return fmt.Errorf("%w: --chunk-size must be between 10 and 100000 (got %d)", ErrUsage, c.ChunkSize)
	case c.ChunkTime != 0 && (c.ChunkTime < 10*time.Millisecond || c.ChunkTime > time.Minute):
		return fmt.Errorf("%w: --chunk-time must be 0 (off) or between 10ms and 1m (got %v)", ErrUsage, c.ChunkTime)
	case c.CopyThreads < 0 || c.CopyThreads > MaxCopyThreads:
		return fmt.Errorf("%w: --copy-threads must be 0 (auto) or between 1 and %d (got %d)", ErrUsage, MaxCopyThreads, c.CopyThreads)
	case c.DMLBatchSize < 1 || c.DMLBatchSize > 100:
		return fmt.Errorf("%w: --dml-batch-size must be between 1 and 100 (got %d)", ErrUsage, c.DMLBatchSize)
	case c.DefaultRetries < 1:
		return fmt.Errorf("%w: --default-retries must be at least 1 (got %d)", ErrUsage, c.DefaultRetries)
	case c.SwitchToRBR && c.AssumeRBR:
		return fmt.Errorf("%w: --switch-to-rbr and --assume-rbr contradict each other: give one", ErrUsage)
	case c.ApproveRenamedColumns && c.SkipRenamedColumns:
		return fmt.Errorf("%w: --approve-renamed-columns and --skip-renamed-columns contradict each other: give one", ErrUsage)
	case ValidateCutOver(c.CutOver) != nil:
		return fmt.Errorf("%w: --cut-over=%q is not supported; use %s", ErrUsage, c.CutOver, CutOverChoices())
	case c.CutOver == CutOverLockRename && (c.IncludeTriggers || c.AllowNullableUniqueKey):
		// Both work on the ghost from another session under the lock, which lock-rename's own
		// session holds on the ghost too.
		return fmt.Errorf("%w: --cut-over=lock-rename cannot be combined with %s yet; use --cut-over=three-step", ErrUsage, c.lockRenameConflict())
	case c.Resume && !c.Execute:
		return fmt.Errorf("%w: --resume continues a migration: it needs --execute (a dry run would drop the ghost it continues)", ErrUsage)
	case c.Checkpointing() && c.CheckpointInterval <= 0:
		return fmt.Errorf("%w: --checkpoint-seconds must be positive", ErrUsage)
	case c.CutOverLockTimeout <= 0:
		return fmt.Errorf("%w: --cut-over-lock-timeout-seconds must be positive", ErrUsage)
	}
	return nil
}

// CheckStorageEngine refuses a --storage-engine other than innodb (in any case): the one rule,
// for the command line and for Validate.
func CheckStorageEngine(engine string) error {
	if !strings.EqualFold(engine, "innodb") {
		return fmt.Errorf("--storage-engine=%s is not supported; only innodb is", engine)
	}
	return nil
}

// validateReplicaModes refuses contradictory replica-mode flags.
func (c *Config) validateReplicaModes() error {
	switch {
	case c.MigrateOnReplica && c.TestOnReplica:
		return fmt.Errorf("%w: --migrate-on-replica and --test-on-replica contradict each other: give one", ErrUsage)
	case c.TestOnReplicaSkipReplicaStop && !c.TestOnReplica:
		return fmt.Errorf("%w: --test-on-replica-skip-replica-stop needs --test-on-replica", ErrUsage)
	case !c.OnReplica():
		return nil
	case c.AllowOnMaster:
		return fmt.Errorf("%w: --allow-on-master and %s contradict each other: %s runs on the replica given by --host", ErrUsage, c.ReplicaModeFlag(), c.ReplicaModeFlag())
	case c.AssumeMasterHost != "" && c.MigrateOnReplica:
		// With --test-on-replica it is accepted and has nothing to do, as in gh-ost: a test run
		// keeps the real run's command line with one flag added.
		return fmt.Errorf("%w: --assume-master-host and --migrate-on-replica contradict each other: --migrate-on-replica never writes to the primary", ErrUsage)
	case c.RecoverCutOver:
		return fmt.Errorf("%w: --recover-cut-over does not support %s", ErrUsage, c.ReplicaModeFlag())
	}
	return nil
}

// validateChecksum refuses --checksum=false with --allow-cascading-foreign-keys-data-loss: what
// the cascades changed in the original during the copy is found and copied again only by the
// checksum.
func (c *Config) validateChecksum() error {
	if c.AllowCascadingForeignKeysDataLoss && !c.Checksum {
		return fmt.Errorf("%w: --allow-cascading-foreign-keys-data-loss needs the checksum before the cut-over: drop --checksum=false", ErrUsage)
	}
	return nil
}

// validateRevert checks the revert flags (doc/revert.md).
func (c *Config) validateRevert() error {
	switch {
	case c.OldTableName != "" && !c.Revert:
		return fmt.Errorf("%w: --old-table names the table --revert swaps back: give --revert too", ErrUsage)
	case !c.Revert:
		return nil
	case c.OldTableName == "":
		return fmt.Errorf("%w: --revert must be called with --old-table (the old table the migration left, for example %s)", ErrUsage, table.OldName(c.Table, ""))
	case c.RecoverCutOver: // the migrator checks --old-table against the revert that died
		return nil
	case c.Resume:
		return fmt.Errorf("%w: --revert cannot be used with --resume", ErrUsage)
	case !c.Execute:
		return fmt.Errorf("%w: --revert swaps tables: it needs --execute", ErrUsage)
	case slices.ContainsFunc([]string{c.Table, table.ChangelogName(c.Table), table.CheckpointName(c.Table), table.GhostName(c.Table)},
		func(n string) bool { return strings.EqualFold(n, c.OldTableName) }):
		return fmt.Errorf("%w: --old-table=%s names the table itself or one of its helper tables: give the old table the migration left (%s)", ErrUsage, c.OldTableName, table.OldName(c.Table, ""))
	case table.TooLong(table.RevertedName(c.Table)):
		return fmt.Errorf("%w: table name %q is too long for %s (64 characters at most)", ErrUsage, c.Table, table.RevertedName(c.Table))
	}
	return nil
}

// validateMaster checks the primary's own login and address.
func (c *Config) validateMaster() error {
	if (c.MasterUser != "" || c.MasterPassword != "") && c.AssumeMasterHost == "" {
		return fmt.Errorf("%w: --master-user and --master-password need --assume-master-host (the primary they log in to)", ErrUsage)
	}
	if c.AssumeMasterHost != "" {
		if _, _, err := dbconn.ParseHostPort(c.AssumeMasterHost, c.Conn.Port); err != nil {
			return fmt.Errorf("%w: --assume-master-host: %v", ErrUsage, err)
		}
	}
	return nil
}

// lockRenameConflict names the flag that --cut-over=lock-rename cannot be combined with.
func (c *Config) lockRenameConflict() string {
	if c.IncludeTriggers {
		return "--include-triggers"
	}
	return "--allow-nullable-unique-key"
}

var triggerSuffixPattern = regexp.MustCompile(`^[0-9a-zA-Z_]+$`)

// validateTriggerFlags checks the trigger flags alone (usage errors, gh-ost's wording first).
func (c *Config) validateTriggerFlags() error {
	switch {
	case c.TriggerSuffix != "" && !triggerSuffixPattern.MatchString(c.TriggerSuffix):
		return fmt.Errorf("--trigger-suffix must contain only alpha numeric characters and underscore (0-9,a-z,A-Z,_) (got %q)", c.TriggerSuffix)
	case c.IncludeTriggers && c.TriggerSuffix == "":
		return errors.New("--include-triggers needs --trigger-suffix (the triggers on the new table need names of their own, e.g. --trigger-suffix=_new)")
	case !c.IncludeTriggers && (c.TriggerSuffix != "" || c.RemoveTriggerSuffix):
		return errors.New("--trigger-suffix and --remove-trigger-suffix-if-exists only apply with --include-triggers: add it or drop them")
	}
	return nil
}
