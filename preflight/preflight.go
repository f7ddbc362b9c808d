// Package preflight holds the checks a migration makes, each of which returns a refusal or
// nothing: the servers (flavor, privileges, binary log, plugins, metadata locks, prepared XA), the
// table (kind, foreign keys, triggers), the ALTER (refused when it renames columns without
// approval or names a CHECK constraint the new table cannot keep), the helper tables' names, and
// what the plan needs (plan/: the column mapping, the shared key, the fills, each refused where it
// cannot be planned). The checks are named entries of one registry (checks.go), each with the
// scope it runs in: before anything is created, after the ghost exists (they have plan/ decide
// the columns and the key and fill the Plan), or before the cut-over (the ghost still the table
// the run built, the nullable key, the triggers).
//
// Invariants:
//   - No check changes a table or a server: they read. What a flag asks of a server is recorded
//     here (State.SwitchRBRFrom, State.Stale) and made by the conductor through ddl/ once the
//     checks before anything is created passed; the metadata lock instrument is turned on
//     through the conductor's State.EnableMetadataLocks, and a --resume's scratch ghost is made
//     by the function CheckResume is handed.
//   - Flavor differences live inside a check, chosen by dbconn.Flavor, never by its caller.
//   - The Plan (plan.Plan) is decided during preparation, by these checks calling plan/; the run
//     follows it and never re-decides.
//   - Every refusal says what was found and how to get past it; the conductor drops what the run
//     created before it (the ghost) and releases the lock.
//   - A refusal that no retry can change (the table changed since preparation) is final
//     (IsFinal): the conductor says what it means for the run (the cut-over's ErrUnsafe, the
//     applier's ErrOriginalAltered).
//   - The package knows nothing of the run: it imports none of migrator, copier, cutover,
//     throttle, binlogapply or ddl, only internal leaves, plan, and the leaf packages that own
//     what it reads (changelog, checkpoint, tablelock).
package preflight

import (
	"context"
	"database/sql"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// Options are the command line's settings the checks and the plan read.
type Options struct {
	Conn     dbconn.Config // the --host server: its binary log is read
	Database string
	Table    string
	Alter    string // the ALTER clauses (a leading "ALTER TABLE t" is accepted)

	Execute          bool   // false: dry run
	AllowOnMaster    bool   // --allow-on-master
	AssumeMasterHost string // --assume-master-host
	MasterUser       string // --master-user
	MasterPassword   string // --master-password
	AssumeRBR        bool   // --assume-rbr
	SwitchToRBR      bool   // --switch-to-rbr
	Tungsten         bool   // --tungsten
	AllowPlugins     bool   // --allow-lock-bypassing-plugins
	ExactRowcount    bool   // --exact-rowcount, counted before the copy (not concurrently)

	// Replica modes: --migrate-on-replica, --test-on-replica.
	MigrateOnReplica bool
	TestOnReplica    bool

	InitiallyDropGhostTable bool // --initially-drop-ghost-table
	InitiallyDropOldTable   bool // --initially-drop-old-table
	TimestampOldTable       bool // --timestamp-old-table

	ApproveRenamedColumns             bool // --approve-renamed-columns
	SkipRenamedColumns                bool // --skip-renamed-columns
	DiscardForeignKeys                bool // --discard-foreign-keys
	SkipForeignKeyChecks              bool // --skip-foreign-key-checks
	AllowCascadingForeignKeysDataLoss bool // --allow-cascading-foreign-keys-data-loss
	AllowZeroInDate                   bool // --allow-zero-in-date
	SkipStrictMode                    bool // --skip-strict-mode
	AllowNullableUniqueKey            bool // --allow-nullable-unique-key

	IncludeTriggers     bool   // --include-triggers
	TriggerSuffix       string // --trigger-suffix
	RemoveTriggerSuffix bool   // --remove-trigger-suffix-if-exists

	AtomicCutOver bool // --cut-over=atomic: it needs metadata locks visible
	// CutOverRefusal says whether --cut-over's algorithm can be trusted on the server's flavor
	// (cutover.RefuseOn, handed in by the conductor's configuration; nil: no refusal).
	CutOverRefusal                    func(dbconn.Flavor) error
	CutOverLockTimeout                time.Duration // --cut-over-lock-timeout-seconds
	DefaultRetries                    int           // --default-retries
	SkipMetadataLockCheck             bool          // --skip-metadata-lock-check
	AllowSetupMetadataLockInstruments bool          // --allow-setup-metadata-lock-instruments

	AttemptInstantDDL bool // --attempt-instant-ddl
	AnalyzeGhostTable bool // --analyze-ghost-table-before-cutover

	// The run's kind: a --checkpoint run also names a checkpoint table; a --resume continues an
	// earlier run's ghost; a --revert swaps back to an old table.
	Checkpoint bool
	Resume     bool
	Revert     bool
}

// onReplica is true in the replica modes: the whole migration runs on the --host replica.
func (o Options) onReplica() bool { return o.MigrateOnReplica || o.TestOnReplica }

// ReplicaMode names the replica mode's flag, "" when the run is not in one (plan.Plan.Lines).
func (o Options) ReplicaMode() string {
	if !o.onReplica() {
		return ""
	}
	return o.ReplicaModeFlag()
}

// ReplicaModeFlag names the replica mode's flag, for messages.
func (o Options) ReplicaModeFlag() string {
	if o.TestOnReplica {
		return "--test-on-replica"
	}
	return "--migrate-on-replica"
}

// State is what the checks found and decided, and the pools they read over; it is built by
// Connect and the checks of each scope, and read by the run until it ends.
type State struct {
	Options Options
	Log     zerolog.Logger

	Plan      *plan.Plan
	Inspected *sql.DB // pool on the --host server: the binlog is read there
	Primary   *sql.DB // pool on the primary: tables are created and written there (may be Inspected)

	// Original is the original's definition and triggers as preparation saw them (startcheck.go).
	Original Snapshot
	// Ghost is the ghost's definition and triggers as preparation left them, GhostIdentity the
	// identity the run recorded for it ("": none); both proven again before the swap (ghostproof.go).
	Ghost         Snapshot
	GhostIdentity string
	// DDL is the server's global settings the ghost's CREATE and ALTER ran with.
	DDL plan.DDLSettings
	// Alter is the ALTER normalized: each checkpoint records it, a --resume compares it.
	Alter string
	// Spec is the ALTER parsed (or, for a --revert, the renames it maps back).
	Spec *plan.AlterSpec
	// SwitchRBRFrom is the inspected server's binlog_format that --switch-to-rbr switches to ROW
	// once every check passed ("": no switch; rbr.go, ddl.SwitchToRBR).
	SwitchRBRFrom string
	// Stale are the helper tables of an earlier run that --initially-drop-* let the run drop
	// (CheckHelperTables, ddl.DropStale).
	Stale []StaleTable

	// EnableMetadataLocks, given by the conductor, turns performance_schema's metadata lock
	// instrument on (--allow-setup-metadata-lock-instruments, mdlcheck.go); nil: not turned on.
	EnableMetadataLocks func(ctx context.Context) error

	// Crashed, given by the conductor, refuses when a run that died between its two renames left
	// the table missing (the cut-over's recovery knows how to tell); nil: not checked.
	Crashed func(ctx context.Context) error
}

// NewState is the state before any check ran.
func NewState(opts Options, log zerolog.Logger) *State {
	return &State{Options: opts, Log: log, Plan: &plan.Plan{Renames: map[string]string{}}}
}

// StaleTable is a helper table left by an earlier run, and the flag that lets the run drop it.
type StaleTable struct{ Name, Flag string }
