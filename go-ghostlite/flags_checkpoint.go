package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// checkpointFlags are gh-ost's --checkpoint-seconds (at least 10, as gh-ost), and a hidden
// --checkpoint-interval-millis that overrides it for tests (any positive value).
type checkpointFlags struct {
	seconds, testMillis int64
}

// addCheckpointFlags registers --checkpoint, --checkpoint-seconds and --resume (doc/resume.md),
// --revert and --old-table (doc/revert.md).
func addCheckpointFlags(fs *pflag.FlagSet, cfg *migrator.Config, d migrator.Config, f *checkpointFlags) {
	fs.BoolVar(&cfg.Checkpoint, "checkpoint", false, "write a checkpoint to _<table>_ghk every --checkpoint-seconds, so that a migration that stopped can go on with --resume (the helper tables are kept after a failure); a successful cut-over keeps the checkpoint and old tables for --revert")
	fs.Int64Var(&f.seconds, "checkpoint-seconds", int64(d.CheckpointInterval/time.Second), "seconds between two checkpoints (10 at least)")
	fs.BoolVar(&cfg.Resume, "resume", false, "continue the migration of the same table and ALTER from the last checkpoint of a --checkpoint run: reuse its ghost table, stream the binlog from the checkpoint, copy the rows above it (another ALTER, even one giving the same table, is refused)")
	fs.Int64Var(&f.testMillis, "checkpoint-interval-millis", 0, "tests only: milliseconds between two checkpoints, instead of --checkpoint-seconds")
	_ = fs.MarkHidden("checkpoint-interval-millis")
	fs.BoolVar(&cfg.Revert, "revert", false, "swap a completed --checkpoint migration back: apply the changes the table had since its cut-over to --old-table, then make that table live again under the name (the migrated one becomes _<table>_rev_del); needs --old-table and --execute, no --alter")
	fs.StringVar(&cfg.OldTableName, "old-table", "", "with --revert: the old table the migration left (_<table>_del, or its --timestamp-old-table name)")
}

// apply checks the interval and sets it in cfg.
func (f *checkpointFlags) apply(cfg *migrator.Config) error {
	if f.testMillis > 0 {
		cfg.CheckpointInterval = time.Duration(f.testMillis) * time.Millisecond
		return nil
	}
	if f.seconds < 10 {
		return fmt.Errorf("--checkpoint-seconds must be at least 10 (got %d)", f.seconds)
	}
	cfg.CheckpointInterval = time.Duration(f.seconds) * time.Second
	return nil
}
