// Package config holds what a user can set for one migration (Config, filled by the command
// line from gh-ost's flags, and gh-ost's defaults in Default) and the rules a valid one obeys
// (Validate), checked before any server is asked. It knows no server and runs nothing.
//
// Invariants: a Config that passes Validate
//   - names a database, a table and an ALTER (but for --recover-cut-over and --revert), or a
//     database and a --statement whose every statement does (PerTable);
//   - has its sizes in range: --chunk-size 10 to 100000, --chunk-time 0 or 10ms to 1m,
//     --copy-threads 0 to MaxCopyThreads, --dml-batch-size 1 to 100, --default-retries at least 1,
//     positive --cut-over-lock-timeout-seconds and (when checkpointing) --checkpoint-seconds;
//   - names a cut-over algorithm (CutOverAlgorithms, which package cutover runs) and the innodb storage engine;
//   - has no two flags that contradict each other, and every flag another one needs (the replica
//     modes, --resume, --revert and --old-table, the trigger flags, --master-user);
//   - has table names that fit in 64 characters for every helper table the run may create;
//
// Every refusal of Validate wraps ErrUsage: the command line exits 2 for it.
package config

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// Config is everything one migration needs to know, and only what a user can set: the command
// line fills it from flags whose names and defaults follow gh-ost's; Default holds those
// defaults. Its fields are grouped by concern into the embedded *Settings structs below; Go
// promotes their fields, so cfg.ChunkSize is cfg.CopySettings.ChunkSize. The tests' seams are not
// here: they live on the migrator's Migrator.
type Config struct {
	ConnectionSettings
	ReplicaSettings
	BinlogSettings
	TableSettings
	AlterSettings
	CopySettings
	ThrottleSettings
	CutOverSettings
	ControlSettings
	CheckpointSettings

	Logger zerolog.Logger
}

// ConnectionSettings are where to connect and as whom.
type ConnectionSettings struct {
	// Where to connect: the server given by --host/--port. The binary log is read there; writes go
	// to its primary (detected, or --assume-master-host) unless it is the primary itself.
	Conn dbconn.Config

	AssumeMasterHost string // --assume-master-host: host[:port] of the primary, instead of detecting it
	// Security (issue 15): the primary's own credentials, when it is reached through
	// --assume-master-host and its account differs from --host's (gh-ost's --master-user,
	// --master-password; empty: --host's). TLS settings live in Conn.TLS and are shared by every
	// connection; the privilege pre-flight runs before anything is created (package preflight).
	MasterUser     string
	MasterPassword string
}

// ReplicaSettings are where the migration runs (the primary or a replica) and what the inspected
// server's replication must be.
type ReplicaSettings struct {
	AllowOnMaster bool // --allow-on-master: the given server may be a primary
	// Replica modes, as gh-ost's: the whole migration on the replica (--migrate-on-replica), or a
	// test on the replica that stops replication, cuts over, then swaps the tables back
	// (--test-on-replica, --test-on-replica-skip-replica-stop).
	MigrateOnReplica             bool
	TestOnReplica                bool
	TestOnReplicaSkipReplicaStop bool

	AssumeRBR bool // --assume-rbr: do not check binlog_format (it is still required)
	// SwitchToRBR (--switch-to-rbr): when the inspected replica's binlog_format is not ROW, set it
	// to ROW and restart its replication (refused when it has replicas of its own).
	SwitchToRBR bool
	// Tungsten (--tungsten): the inspected replica need not have log_slave_updates (a Tungsten
	// replicator writes the primary's changes into its binlog).
	Tungsten bool
}

// BinlogSettings are the binlog reader's, the applier's and the heartbeat's.
type BinlogSettings struct {
	ReplicaServerID uint32 // --replica-server-id: server id of our binlog reader
	UseGTID         bool   // --gtid: position the binlog reader by GTID
	// BinlogReconnectAttempts (--binlogsyncer-max-reconnect-attempts): consecutive failed binlog
	// reconnections before the run fails (0: the applier's default).
	BinlogReconnectAttempts int
	DMLBatchSize            int           // --dml-batch-size: binlog events applied per transaction
	HeartbeatInterval       time.Duration // --heartbeat-interval-millis
}

// TableSettings are what is migrated, whether for real, and the helper tables around it.
type TableSettings struct {
	Database string
	Table    string
	Alter    string // the ALTER clauses, without "ALTER TABLE t" (a leading "ALTER TABLE t" is accepted)
	// Statement (--statement) is the change as SQL statements in Database, separated by ';',
	// instead of Table and Alter: PerTable reads it into one Config per table (statement.go).
	Statement string
	// SetTables are the tables migrated and cut over together with Table, itself included (a
	// --statement naming several tables; set by migrator.NewSet); nil for a table migrated alone.
	// A checkpoint records them: a resume of part of a set, or of a set from a lone table's
	// checkpoint, is refused.
	SetTables []string

	Execute       bool   // false: dry run (validate, prove the ALTER on a ghost, print the plan)
	StorageEngine string // --storage-engine: innodb (the only one supported)

	InitiallyDropGhostTable bool // --initially-drop-ghost-table
	InitiallyDropOldTable   bool // --initially-drop-old-table
	OkToDropTable           bool // --ok-to-drop-table: drop the old table after cut-over
	TimestampOldTable       bool // --timestamp-old-table: _<tbl>_<timestamp>_del instead of _<tbl>_del
}

// AlterSettings are what the ALTER may do to the table and its data, and how it is first tried.
type AlterSettings struct {
	ApproveRenamedColumns bool // --approve-renamed-columns: copy a CHANGE COLUMN a b's data from a to b
	SkipRenamedColumns    bool // --skip-renamed-columns: treat a rename as drop + add (data not copied)
	DiscardForeignKeys    bool // --discard-foreign-keys: the ghost is created without foreign keys
	SkipForeignKeyChecks  bool // --skip-foreign-key-checks: do not refuse tables with foreign keys
	// AllowCascadingForeignKeysDataLoss (--allow-cascading-foreign-keys-data-loss) lets a child
	// table whose foreign keys have ON DELETE/UPDATE CASCADE, SET NULL or SET DEFAULT be migrated:
	// the changes those actions make are not in the row binlog and are lost in the new table.
	AllowCascadingForeignKeysDataLoss bool
	// AllowZeroInDate (--allow-zero-in-date) and SkipStrictMode (--skip-strict-mode) relax the
	// server's global sql_mode that the ghost's CREATE and ALTER run with: without NO_ZERO_IN_DATE
	// and NO_ZERO_DATE, and without STRICT_TRANS_TABLES / STRICT_ALL_TABLES. The copy and the
	// binlog apply stay strict.
	AllowZeroInDate bool
	SkipStrictMode  bool
	// AllowNullableUniqueKey (--allow-nullable-unique-key) lets the shared key have nullable
	// columns once the original is proven to hold no NULL in them (the run refuses otherwise).
	AllowNullableUniqueKey bool
	// gh-ost compatibility (issue 16; doc/flags.md, "gh-ost compatibility").
	// IncludeTriggers (--include-triggers) lets a table with triggers be migrated: at the cut-over,
	// with the original locked and every change applied, each trigger is created on the ghost
	// under its name with TriggerSuffix (--trigger-suffix) appended, or removed when
	// RemoveTriggerSuffix (--remove-trigger-suffix-if-exists) and the name ends with it.
	IncludeTriggers     bool
	TriggerSuffix       string
	RemoveTriggerSuffix bool
	// AttemptInstantDDL (--attempt-instant-ddl) tries the ALTER with ALGORITHM=INSTANT on the
	// original first (ddl.AttemptInstantDDL; issue 14, doc/performance.md).
	AttemptInstantDDL bool
}

// CopySettings are the row copy's: its chunks, sessions and retries, the row count, and the
// checksum that proves it.
type CopySettings struct {
	// Speed (issue 14, doc/performance.md): ChunkSize (--chunk-size) is the rows per copy chunk;
	// ChunkTime (--chunk-time, ours; 0: off) sizes chunks to take about this long each, with
	// ChunkSize as the starting size (copier.Adaptive; 10 to 100000 rows). CopyThreads
	// (--copy-threads, ours) is the number of copy sessions, fixed for the run; 0: half the
	// primary's cores as @@thread_pool_size gives them, 1 to 8 (1 without the variable: MySQL).
	ChunkSize      int
	ChunkTime      time.Duration
	CopyThreads    int
	DefaultRetries int // --default-retries: attempts of a failed chunk, cut-over, ...

	ExactRowcount bool // --exact-rowcount: SELECT COUNT(*) instead of the optimizer's estimate
	// Status and progress (issue 12): ConcurrentRowcount (--concurrent-rowcount, gh-ost's default
	// on) runs the --exact-rowcount count beside the copy, making it the estimate when done,
	// instead of before the copy starts.
	ConcurrentRowcount bool

	// Checksum before the cut-over (issue 13, doc/checksum.md): Checksum (--checksum,
	// on by default) compares the original and the ghost in one consistent snapshot after the copy
	// (and the postponed wait) and copies a differing chunk again, up to 3 times, before failing.
	Checksum bool
}

// ThrottleSettings are the throttle's (throttle.Monitor, doc/throttle.md), with gh-ost's flags. The
// copy waits while any signal throttles; the binlog applier keeps applying. throttle.Config
// embeds them beside the run's wiring, and checks them (throttle.Config.Validate: the migrator's
// New refuses what it refuses as a usage error).
type ThrottleSettings struct {
	MaxLag                     time.Duration // --max-lag-millis: heartbeat lag above this throttles (100ms at least)
	ThrottleControlReplicas    string        // --throttle-control-replicas: host[:port],... whose lag also counts
	ReplicationLagQuery        string        // --replication-lag-query: deprecated in gh-ost; accepted and ignored
	ThrottleQuery              string        // --throttle-query: run on the primary every second; > 0 throttles
	ThrottleHTTP               string        // --throttle-http: HEAD this URL; any status but 200 throttles
	ThrottleHTTPInterval       time.Duration // --throttle-http-interval-millis
	ThrottleHTTPTimeout        time.Duration // --throttle-http-timeout-millis
	IgnoreHTTPErrors           bool          // --ignore-http-errors: a failed request does not throttle
	ThrottleFlagFile           string        // --throttle-flag-file: throttle while it exists
	ThrottleAdditionalFlagFile string        // --throttle-additional-flag-file: the same, shared by all migrations
	MaxLoad                    string        // --max-load: Var=N,... of global status; reaching one throttles
	CriticalLoad               string        // --critical-load: Var=N,...; reaching one aborts (or hibernates)
	CriticalLoadInterval       time.Duration // --critical-load-interval-millis: re-check after this before aborting
	CriticalLoadHibernate      time.Duration // --critical-load-hibernate-seconds: hibernate this long instead of aborting
	NiceRatio                  float64       // --nice-ratio: rest this × each chunk's copy time after it (0 to 100)
}

// CutOverSettings are the cut-over's: its algorithm, its waits and retries, the checks it makes
// and what it does first.
type CutOverSettings struct {
	CutOver            string        // --cut-over: three-step (default)
	CutOverLockTimeout time.Duration // --cut-over-lock-timeout-seconds
	// CutOverExponentialBackoff doubles the wait between cut-over attempts, up to
	// ExponentialBackoffMaxInterval (--cut-over-exponential-backoff, --exponential-backoff-max-interval).
	CutOverExponentialBackoff     bool
	ExponentialBackoffMaxInterval time.Duration

	// RecoverCutOver (--recover-cut-over) restores the original table's name after a run died in
	// the middle of a cut-over, instead of migrating.
	RecoverCutOver bool

	// AnalyzeGhostTable (--analyze-ghost-table-before-cutover) runs ANALYZE TABLE on the ghost
	// before the cut-over.
	AnalyzeGhostTable bool

	// Metadata-lock checks (gh-ost's flags): the cut-over proves each rename waits on the right
	// table through performance_schema.metadata_locks. Without them visible the run is refused
	// unless SkipMetadataLockCheck (--skip-metadata-lock-check: three-step and two-step go on with
	// the processlist checks only); AllowSetupMetadataLockInstruments
	// (--allow-setup-metadata-lock-instruments) lets the run turn the instrument on.
	SkipMetadataLockCheck             bool
	AllowSetupMetadataLockInstruments bool

	// AllowPlugins lets the migration run when a plugin that bypasses LOCK TABLES (HandlerSocket) is
	// installed: --allow-lock-bypassing-plugins.
	AllowPlugins bool
}

// ControlSettings are how an operator steers a running migration from outside it: flag files
// and the control socket's file.
type ControlSettings struct {
	// PostponeCutOverFlagFile: while this file exists the cut-over waits (copy done, ghost kept in
	// sync by the applier); the migration writes state "postponed" to the changelog while waiting.
	PostponeCutOverFlagFile string
	// PanicFlagFile: when this file appears the migration aborts at once, original untouched.
	PanicFlagFile string
	// FlagFileInterval is how often the flag files are checked.
	FlagFileInterval time.Duration

	InitiallyDropSocketFile bool // --initially-drop-socket-file
}

// CheckpointSettings are checkpoint, resume and revert's (issue 13, doc/resume.md,
// doc/revert.md), with gh-ost's --checkpoint, --checkpoint-seconds, --resume, --revert and
// --old-table.
type CheckpointSettings struct {
	// Checkpoint writes, every CheckpointInterval while the copy or the postponed phase runs, a
	// consistent point to the checkpoint table _<tbl>_ghk (binlog position applied, shared key up
	// to which the copy is complete), and keeps the helper tables after a failure. Resume continues
	// the migration from the last checkpoint (and keeps checkpointing).
	Checkpoint         bool
	CheckpointInterval time.Duration
	Resume             bool
	// Revert swaps back to the old table OldTableName of a --checkpoint migration of Table, after
	// applying to it every change the live table had since the cut-over's checkpoint (doc/revert.md).
	Revert       bool
	OldTableName string
}

// DefaultChunkTime is the command line's --chunk-time when it gives no --chunk-size: measured on
// 1M rows (doc/performance.md), chunks of about 100 ms copy 15% faster idle and 25% faster under
// 2,000 writes/s than gh-ost's fixed 1,000 rows, with the application's p99 write latency
// unchanged. Default keeps gh-ost's fixed chunks (ChunkTime 0).
const DefaultChunkTime = 100 * time.Millisecond

// Default returns gh-ost's defaults.
func Default() Config {
	return Config{
		ConnectionSettings: ConnectionSettings{Conn: dbconn.Config{Host: "127.0.0.1", Port: 3306}},
		BinlogSettings: BinlogSettings{
			ReplicaServerID: 99999, DMLBatchSize: 10, HeartbeatInterval: 100 * time.Millisecond,
		},
		TableSettings: TableSettings{StorageEngine: "innodb"},
		CopySettings: CopySettings{
			ChunkSize: 1000, DefaultRetries: 60, ConcurrentRowcount: true, Checksum: true,
		},
		ThrottleSettings: ThrottleSettings{
			MaxLag:                     1500 * time.Millisecond,
			ThrottleHTTPInterval:       100 * time.Millisecond,
			ThrottleHTTPTimeout:        time.Second,
			ThrottleAdditionalFlagFile: "/tmp/gh-ost.throttle",
		},
		CutOverSettings: CutOverSettings{
			CutOver:                       CutOverThreeStep,
			CutOverLockTimeout:            3 * time.Second,
			ExponentialBackoffMaxInterval: 64 * time.Second,
		},
		ControlSettings:    ControlSettings{FlagFileInterval: 100 * time.Millisecond},
		CheckpointSettings: CheckpointSettings{CheckpointInterval: 300 * time.Second},
		Logger:             zerolog.Nop(),
	}
}
