// Package preflight holds the checks a migration makes, each of which returns a refusal or
// nothing: the servers (flavor, privileges, binary log, plugins, metadata locks, prepared XA), the
// table (kind, foreign keys, triggers), the ALTER (refused when it renames columns without
// approval or names a CHECK constraint the new table cannot keep), the helper tables' names, and
// what the plan needs (plan/: the column mapping, the shared key, the fills, each refused where it
// cannot be planned). The checks are named entries of one registry (checks.go), each with the
// moment (Scope) it runs at: once connected (the replica modes), before anything is created, to
// resume or to revert (instead of creating the ghost), after the ghost exists (they have plan/
// decide the columns and the key and fill the Plan), once the binlog stream started (the
// original unchanged, no prepared XA), or before the cut-over (the ghost still the table the run
// built, the nullable key, the triggers). The conductor only asks Run for a moment. A check that
// reads the State alone is marked NoServer and is tested with no server (checks_test.go).
//
// Invariants:
//   - No check changes a table or a server: they read. What a flag asks of a server is recorded
//     here (State.SwitchRBRFrom, State.Stale) and made by the conductor through ddl/ once the
//     checks before anything is created passed; the metadata lock instrument is turned on
//     through the conductor's State.EnableMetadataLocks, and a --resume's scratch ghost is made
//     by the function resumeCheckpoint is handed.
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

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// State is what the checks found and decided, and the pools they read over; it is built by
// Connect and the checks of each scope, and read by the run until it ends.
type State struct {
	Config config.Config // the run's settings
	Log    zerolog.Logger

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

	// CutOverRefusal, given by the conductor, says whether --cut-over's algorithm can be trusted
	// on the server's flavor (cutover.RefuseOn); nil: no refusal.
	CutOverRefusal func(dbconn.Flavor) error

	// EnableMetadataLocks, given by the conductor, turns performance_schema's metadata lock
	// instrument on (--allow-setup-metadata-lock-instruments, mdlcheck.go); nil: not turned on.
	EnableMetadataLocks func(ctx context.Context) error

	// Crashed, given by the conductor, refuses when a run that died between its two renames left
	// the table missing (the cut-over's recovery knows how to tell); nil: not checked.
	Crashed func(ctx context.Context) error

	// CreateScratch, given by the conductor, builds a scratch ghost for the Resume checks to
	// compare a --resume's ghost with (ddl.CreateGhostAs). Resumed is the checkpoint they found,
	// the run continues from.
	CreateScratch func(ctx context.Context, name string) (bool, error)
	Resumed       *checkpoint.Record
	// Reverted is the cut-over checkpoint the Revert checks found: a --revert's stream starts
	// there.
	Reverted *checkpoint.Record

	// Ran names the checks run so far, in order (Run records them; the dry run lists them).
	Ran []string
}

// NewState is the state before any check ran.
func NewState(cfg config.Config, log zerolog.Logger) *State {
	return &State{Config: cfg, Log: log, Plan: &plan.Plan{Renames: map[string]string{}}}
}

// StaleTable is a helper table left by an earlier run, and the flag that lets the run drop it.
type StaleTable struct{ Name, Flag string }
