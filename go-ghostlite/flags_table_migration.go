package main

import (
	"strings"

	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// The flag table (flagtable.go): what is migrated and how, and the checks a user may relax.

var migrationTopic = flagTopic{"Migration", []flagSpec{
	{name: "database", ghost: ghostSame, to: "Database",
		help: "database (schema) of the table to migrate (required)"},
	{name: "table", ghost: ghostSame, to: "Table",
		help: "table to migrate (required)"},
	{name: "alter", ghost: ghostSame, note: "a full `ALTER TABLE [db.]tbl ...` is accepted; the table it names must be `--table`", to: "Alter",
		help: "the change to make, as ALTER TABLE clauses, e.g. \"ADD COLUMN c INT NULL\" (required)"},
	{name: "execute", ghost: ghostDiffers, note: "the dry run also checks the server and proves the ALTER on a ghost, then prints the plan", to: "Execute",
		help: "really migrate; without it the run only checks that the migration can be done (dry run)"},
	{name: "approve-renamed-columns", ghost: ghostSame, to: "ApproveRenamedColumns",
		help: "a CHANGE COLUMN that renames a column is a rename: copy the old column's data into the new one"},
	{name: "skip-renamed-columns", ghost: ghostSame, to: "SkipRenamedColumns",
		help: "a CHANGE COLUMN that renames a column drops it and adds a new one: its data is not copied"},
	{name: "storage-engine", ghost: ghostDiffers, note: "`innodb` only; `rocksdb` is refused", to: "StorageEngine", check: func(t flagTargets) error {
		t.cfg.StorageEngine = strings.ToLower(t.cfg.StorageEngine)
		return migrator.CheckStorageEngine(t.cfg.StorageEngine)
	},
		help: "storage engine of the table (innodb is the only one supported)"},
	{name: "chunk-size", ghost: ghostDiffers, note: "given, as in gh-ost (fixed chunks); not given, chunks of 1000 rows to start with, then sized by `--chunk-time` (100ms)", to: "ChunkSize",
		help: "rows copied per chunk (10 to 100000); given, every chunk has that many rows (gh-ost), else chunks start there and follow --chunk-time"},
	{name: "chunk-time", to: "ChunkTime", def: migrator.DefaultChunkTime.String(),
		help: "go-ghostlite only: size copy chunks so that each takes about this long: the first have --chunk-size rows, then the size follows the measured chunk times between 10 and 100000 rows, halving at once after a lock wait; 0: every chunk has --chunk-size rows. Given --chunk-size and not --chunk-time, chunks keep --chunk-size rows, as in gh-ost"},
	{name: "copy-threads", to: "CopyThreads",
		help: "go-ghostlite only: copy sessions copying chunks at once, each on its own connection, fixed for the run (1 to 32); 0: half the server's cores as MariaDB's @@thread_pool_size gives them (on Linux it defaults to the CPU count), from 1 to 8, and 1 on a server without it (MySQL)"},
	{name: "dml-batch-size", ghost: ghostDiffers, note: "1 to 100 (gh-ost: 1 to 1000)", to: "DMLBatchSize",
		help: "binary log row events applied per transaction (1 to 100)"},
	{name: "default-retries", ghost: ghostSame, to: "DefaultRetries", rng: span(1, 10_000),
		help: "attempts of an operation that failed (a chunk copy, the cut-over) before giving up"},
	{name: "exact-rowcount", ghost: ghostSame, to: "ExactRowcount",
		help: "count the table's rows (SELECT COUNT(*)) for progress, instead of the optimizer's estimate"},
	{name: "concurrent-rowcount", ghost: ghostSame, to: "ConcurrentRowcount",
		help: "with --exact-rowcount, count the rows while the copy runs (progress uses the optimizer's estimate until the count is done) instead of before it"},
	{name: "heartbeat-interval-millis", ghost: ghostSame, to: "HeartbeatInterval", unit: millis, rng: span(1, 3_600_000).below("must be positive"),
		help: "how often to write a heartbeat into the changelog table, in milliseconds"},
	{name: "panic-on-warnings", ghost: ghostDiffers, note: "always on: any warning that could mean a lost or changed row fails the copy or apply, with or without the flag", own: func(v *flagValues) any { return &v.panicOnWarnings },
		help: "always on in go-ghostlite: a copy or apply statement whose warnings could mean a lost or changed row fails the migration"},
	{name: "checksum", to: "Checksum",
		help: "before the cut-over, compare the original and the ghost table chunk by chunk in one consistent snapshot and copy again any chunk that differs (--checksum=false skips it; see doc/checksum.md)"},
	{name: "attempt-instant-ddl", ghost: ghostSame, note: "see [Speed](#speed); not tried with the replica modes or `--discard-foreign-keys`", to: "AttemptInstantDDL",
		help: "first try the ALTER on the table with ALGORITHM=INSTANT (metadata only, no copy); when the server refuses, run the full migration"},
	{name: "analyze-ghost-table-before-cutover", ghost: ghostSame, note: "see [Speed](#speed)", to: "AnalyzeGhostTable",
		help: "run ANALYZE TABLE on the ghost table before the cut-over, so the new table starts with fresh index statistics"},
	{name: "include-triggers", ghost: ghostSame, note: "triggers are created on the ghost under the cut-over lock, after every change was applied; see [Triggers](#triggers)", to: "IncludeTriggers",
		help: "migrate a table with triggers: at the cut-over, each trigger is created on the new table, named with --trigger-suffix"},
	{name: "trigger-suffix", ghost: ghostSame, to: "TriggerSuffix",
		help: "with --include-triggers: appended to each trigger's name on the new table (letters, digits, _)"},
	{name: "remove-trigger-suffix-if-exists", ghost: ghostSame, to: "RemoveTriggerSuffix",
		help: "with --include-triggers: a trigger whose name ends with --trigger-suffix gets the name without it"},
	{name: "initially-drop-ghost-table", ghost: ghostSame, to: "InitiallyDropGhostTable",
		help: "drop a ghost table left by an earlier run before starting"},
	{name: "initially-drop-old-table", ghost: ghostSame, to: "InitiallyDropOldTable",
		help: "drop an old table left by an earlier run before starting"},
	{name: "ok-to-drop-table", ghost: ghostSame, to: "OkToDropTable",
		help: "drop the old table after a successful cut-over"},
	{name: "timestamp-old-table", ghost: ghostSame, to: "TimestampOldTable",
		help: "name the old table _<table>_<timestamp>_del instead of _<table>_del"},
	{name: "force-table-names", ghost: ghostIgnored, note: "the ghost, changelog and old tables are always named _<table>_gho, _ghc and _del: the crash recovery and the concurrent-run checks find them by these names", own: discardString},
	{name: "checkpoint", ghost: ghostDiffers, note: "also written while the cut-over is postponed; see `doc/resume.md`", to: "Checkpoint",
		help: "write a checkpoint to _<table>_ghk every --checkpoint-seconds, so that a migration that stopped can go on with --resume (the helper tables are kept after a failure); a successful cut-over keeps the checkpoint and old tables for --revert"},
	{name: "checkpoint-seconds", ghost: ghostSame, to: "CheckpointInterval", unit: seconds, rng: span(10, 86_400).below("must be at least 10"),
		help: "seconds between two checkpoints (10 at least)"},
	{name: "resume", ghost: ghostDiffers, note: "refuses, one line each, when the ghost does not match the ALTER, the checkpoint is missing or its binary log is gone (`doc/resume.md`)", to: "Resume",
		help: "continue the migration of the same table and ALTER from the last checkpoint of a --checkpoint run: reuse its ghost table, stream the binlog from the checkpoint, copy the rows above it (another ALTER, even one giving the same table, is refused)"},
	{name: "checkpoint-interval-millis", own: func(v *flagValues) any { return &v.checkpointTestInterval }, unit: millis, check: func(t flagTargets) error {
		if t.v.checkpointTestInterval > 0 {
			t.cfg.CheckpointInterval = t.v.checkpointTestInterval
		}
		return nil
	}, rng: span(0, 86_400_000), hidden: true,
		help: "tests only: milliseconds between two checkpoints, instead of --checkpoint-seconds"},
	{name: "revert", ghost: ghostDiffers, note: "needs `--execute`; refuses before changing anything when the old table, the cut-over checkpoint or its binary log is missing, or the renamed columns cannot be mapped back; no checksum before its swap (`doc/revert.md`)", to: "Revert",
		help: "swap a completed --checkpoint migration back: apply the changes the table had since its cut-over to --old-table, then make that table live again under the name (the migrated one becomes _<table>_rev_del); needs --old-table and --execute, no --alter"},
	{name: "old-table", ghost: ghostSame, to: "OldTableName",
		help: "with --revert: the old table the migration left (_<table>_del, or its --timestamp-old-table name)"},
}}

var trustTopic = flagTopic{"Trust (checks you may relax)", []flagSpec{
	{name: "allow-nullable-unique-key", ghost: ghostDiffers, note: "the run proves the original holds no NULL in the key's columns and refuses if it does (gh-ost trusts you and corrupts data)", to: "AllowNullableUniqueKey",
		help: "copy by a unique key with nullable columns when no shared key is NOT NULL; the run checks that those columns hold no NULL and refuses if they do"},
	{name: "discard-foreign-keys", ghost: ghostSame, to: "DiscardForeignKeys",
		help: "create the ghost table without the original's foreign keys (they are lost)"},
	{name: "skip-foreign-key-checks", ghost: ghostDiffers, note: "also lets a table referenced by foreign keys (parent side) be migrated", to: "SkipForeignKeyChecks",
		help: "do not refuse a table that has or is referenced by foreign keys"},
	{name: "allow-cascading-foreign-keys-data-loss", to: "AllowCascadingForeignKeysDataLoss",
		help: "migrate a table whose foreign keys have ON DELETE/UPDATE CASCADE or SET NULL, accepting that the rows those actions delete or change during the migration come back unchanged (see doc/flags.md)"},
	{name: "allow-zero-in-date", ghost: ghostDiffers, note: "relaxes only the ghost's CREATE/ALTER", to: "AllowZeroInDate",
		help: "run the ghost's CREATE/ALTER without NO_ZERO_IN_DATE,NO_ZERO_DATE in the server's global sql_mode (zero dates allowed)"},
	{name: "skip-strict-mode", ghost: ghostDiffers, note: "relaxes only the ghost's CREATE/ALTER; the copy and apply stay strict", to: "SkipStrictMode",
		help: "run the ghost's CREATE/ALTER without STRICT_TRANS_TABLES/STRICT_ALL_TABLES in the server's global sql_mode (copy and apply stay strict)"},
	{name: "skip-metadata-lock-check", ghost: ghostDiffers, note: "three-step and two-step go on with processlist checks; `atomic` is still refused", to: "SkipMetadataLockCheck",
		help: "run even when performance_schema does not show metadata locks (the cut-over then checks the processlist only; not with --cut-over=atomic)"},
	{name: "allow-setup-metadata-lock-instruments", ghost: ghostSame, to: "AllowSetupMetadataLockInstruments",
		help: "let the run turn on performance_schema's metadata lock instrument when it is off (until the server restarts)"},
	{name: "allow-lock-bypassing-plugins", to: "AllowPlugins",
		help: "run even when a plugin that bypasses LOCK TABLES (such as HandlerSocket) is installed"},
}}
