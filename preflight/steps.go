package preflight

import (
	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/checkpoint"

	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The preparation's steps, in the order the conductor runs them: connect, the servers, the table,
// the ALTER and the helper tables, the ghost, the copy plan. The migration lock (between connect
// and the servers) is the conductor's.

// Connect opens the --host server (a supported flavor) and, when it is a replica, its primary:
// the tables are created, written and renamed there. The topology is read before the migration
// lock is taken, because the lock lives on the primary.
func Connect(ctx context.Context, st *State) error {
	cfg, p := st.Options, st.Plan
	var err error
	if st.Inspected, err = openServer(ctx, cfg.Conn, cfg.Database); err != nil {
		return err
	}
	if p.Flavor, err = dbconn.DetectFlavor(ctx, st.Inspected); err != nil {
		return fmt.Errorf("on %s: %w", cfg.Conn.Addr(), err)
	}
	if err := p.Flavor.Supported(); err != nil {
		return fmt.Errorf("%s: %w", cfg.Conn.Addr(), err)
	}
	p.Inspected = cfg.Conn
	// Privileges (privileges.go), before anything is read that needs one: the inspected server's,
	// and the table ones when it may be where tables are created (a replica's primary is
	// checked once known).
	scopes := []privilegeScope{st.replicationScope()}
	if cfg.AllowOnMaster || cfg.onReplica() {
		scopes = append(scopes, st.tableScopes(st.Inspected, cfg.Conn.Addr())...)
	}
	if err := st.checkPrivileges(ctx, scopes); err != nil {
		return err
	}
	rs, err := dbconn.ReadReplicaStatus(ctx, st.Inspected, p.Flavor, cfg.Conn.Addr())
	if err != nil {
		return err
	}
	if p.Primary, p.InspectedIsReplica, err = resolvePrimary(cfg, rs); err != nil {
		return err
	}
	st.Primary = st.Inspected
	if p.InspectedIsReplica {
		if st.Primary, err = openServer(ctx, p.Primary, cfg.Database); err != nil {
			return fmt.Errorf("connect to the primary of %s: %w", cfg.Conn.Addr(), err)
		}
	}
	if p.InspectedIsReplica { // privileges.go: checked on the inspected server already otherwise
		return st.checkPrivileges(ctx, st.tableScopes(st.Primary, p.Primary.Addr()))
	}
	return nil
}

// checkServerBinlog checks the binary log the applier will read, switching it to ROW first
// when --switch-to-rbr asks (rbr.go).
func checkServerBinlog(ctx context.Context, st *State) error {
	cfg, p := st.Options, st.Plan
	vars, err := dbconn.ReadVariables(ctx, st.Inspected, binlogVariables...)
	if err != nil {
		return fmt.Errorf("on %s: %w", cfg.Conn.Addr(), err)
	}
	if err := st.switchToRBR(ctx, st.Inspected, p.Flavor, p.InspectedIsReplica, vars); err != nil {
		return err
	}
	// --tungsten: the replicator writes the primary's changes into this server's binlog.
	return checkBinlog(cfg.Conn.Addr(), vars, p.InspectedIsReplica && !cfg.Tungsten, cfg.AssumeRBR)
}

// checkPlugins refuses the plugins that write around LOCK TABLES on the primary.
func checkPlugins(ctx context.Context, st *State) error {
	plugins, err := readPlugins(ctx, st.Primary)
	if err != nil {
		return fmt.Errorf("on %s: %w", st.Plan.Primary.Addr(), err)
	}
	return checkLockBypassingPlugins(st.Plan.Primary.Addr(), plugins, st.Options.AllowPlugins)
}

// checkCrashed runs the conductor's check that a run which died between its two renames did not
// leave the table missing: it says so before "does not exist" (State.Crashed).
func checkCrashed(ctx context.Context, st *State) error {
	if st.Crashed == nil {
		return nil
	}
	return st.Crashed(ctx)
}

// checkTable checks the original table on the primary, where it is copied, written and renamed,
// and inspects it there (Plan.Original). When the binlog is read on a replica, the replica's
// table must have the same columns, since its row images describe them.
func checkTable(ctx context.Context, st *State) error {
	cfg, p := st.Options, st.Plan
	schema, tbl := cfg.Database, cfg.Table
	primaryAddr := p.Primary.Addr()
	if err := checkTableKind(ctx, st.Primary, primaryAddr, schema, tbl); err != nil {
		return err
	}
	snap, err := ReadSnapshot(ctx, st.Primary, schema, tbl)
	if err != nil {
		return err
	}
	st.Original = snap
	if st.Triggers, err = cfg.readTriggers(ctx, st.Primary, schema, tbl); err != nil {
		return err
	}
	if err := inspectForeignKeys(ctx, st); err != nil {
		return err
	}
	onPrimary, err := table.Inspect(ctx, st.Primary, schema, tbl)
	if err != nil {
		return fmt.Errorf("inspect %s.%s on %s: %w", schema, tbl, primaryAddr, err)
	}
	p.Original = onPrimary
	if !p.InspectedIsReplica {
		return nil
	}
	if err := checkTableKind(ctx, st.Inspected, cfg.Conn.Addr(), schema, tbl); err != nil {
		return err
	}
	onReplica, err := table.Inspect(ctx, st.Inspected, schema, tbl)
	if err != nil {
		return fmt.Errorf("inspect %s.%s on %s: %w", schema, tbl, cfg.Conn.Addr(), err)
	}
	// The replica's binlog row images follow its columns; the copy and the keys run on the
	// primary. Both must agree for the plan to hold on either side.
	return sameLayout(onReplica, onPrimary, cfg.Conn.Addr(), primaryAddr)
}

// inspectForeignKeys reads the original's foreign keys and refuses those the migration cannot keep
// (checkForeignKeys in inspect.go). Cascading keys let through by
// --allow-cascading-foreign-keys-data-loss are logged as a warning.
func inspectForeignKeys(ctx context.Context, st *State) error {
	schema, tbl := st.Options.Database, st.Options.Table
	own, referencing, err := foreignKeys(ctx, st.Primary, schema, tbl)
	if err != nil {
		return err
	}
	st.ForeignKeys, st.ReferencedBy = describeForeignKeys(own), referencing
	if err := checkForeignKeys(st.Options, schema+"."+tbl, own, referencing); err != nil {
		return err
	}
	if cascading := cascadingForeignKeys(own); len(cascading) > 0 {
		// config refuses --allow-cascading-foreign-keys-data-loss without --checksum: the
		// checksum repairs what these keys changed before the cut-over.
		st.Log.Warn().Strs("foreign_keys", describeForeignKeys(cascading)).
			Msgf("--allow-cascading-foreign-keys-data-loss: what these keys' actions change in %s.%s during the migration is not in the binlog; rows they delete come back and references they change keep their old values in the new table", schema, tbl)
	}
	return nil
}

// checkAlter parses the ALTER and names the helper tables. A --revert has no ALTER: its
// conductor names the tables (the old table is the ghost).
func checkAlter(_ context.Context, st *State) error {
	cfg, p := st.Options, st.Plan
	if cfg.Revert {
		return nil
	}
	spec, err := ParseAlter(cfg.Alter, cfg.Database, cfg.Table)
	if err != nil {
		return err
	}
	if err := renameRefusal(spec.Renames, cfg.ApproveRenamedColumns, cfg.SkipRenamedColumns); err != nil {
		return err
	}
	if st.Alter, err = checkpoint.NormalizeAlter(spec.Body); err != nil { // what a checkpoint records
		return err
	}
	st.Spec = spec
	p.GhostTable, p.ChangelogTable = table.GhostName(cfg.Table), changelog.Name(cfg.Table)
	p.OldTable = table.OldName(cfg.Table, "")
	p.CheckpointTable = table.CheckpointName(cfg.Table)
	if cfg.TimestampOldTable {
		p.OldTable = table.OldName(cfg.Table, time.Now().UTC().Format("20060102150405"))
	}
	return nil
}

// checkHelperTablesOfRun is CheckHelperTables, which a --revert's conductor runs itself once
// it has named the tables.
func checkHelperTablesOfRun(ctx context.Context, st *State) error {
	if st.Options.Revert {
		return nil
	}
	return CheckHelperTables(ctx, st)
}

// BuildGhost creates the ghost, runs the ALTER on it under the server's global settings and
// inspects it. created tells whether a ghost was created, even when err is not nil.
func BuildGhost(ctx context.Context, st *State) (created bool, err error) {
	cfg, p := st.Options, st.Plan
	if st.DDL, err = ReadDDLSettings(ctx, st.Primary, cfg.AllowZeroInDate, cfg.SkipStrictMode); err != nil {
		return false, fmt.Errorf("on %s: %w", p.Primary.Addr(), err)
	}
	p.TimeZone = st.DDL.TimeZone
	p.Primary.NoZeroDate, p.Primary.NoZeroInDate = ZeroDateChecks(st.DDL.SQLMode)
	p.Primary.ValueModes = dbconn.ValueModes(st.DDL.SQLMode)
	p.AlterSetsAutoIncrement = SetsAutoIncrement(st.Spec)
	created, err = CreateGhost(ctx, st.Primary, st.DDL, cfg.Database, cfg.Table, p.GhostTable, st.Spec, cfg.DiscardForeignKeys)
	if err != nil {
		return created, err
	}
	if p.Ghost, err = table.Inspect(ctx, st.Primary, cfg.Database, p.GhostTable); err != nil {
		return created, fmt.Errorf("inspect the ghost table: %w", err)
	}
	if p.Ghost.Engine != "" && !strings.EqualFold(p.Ghost.Engine, "InnoDB") {
		return created, fmt.Errorf("the ALTER makes the table use the %s engine; go-ghostlite migrates to InnoDB only: remove ENGINE= from --alter", p.Ghost.Engine)
	}
	return created, nil
}

// planColumns maps the columns: the pairs copied, the added columns filled, the padding.
func planColumns(_ context.Context, st *State) (err error) {
	cfg, p := st.Options, st.Plan
	skipRenamed := cfg.SkipRenamedColumns && !cfg.Revert // a revert maps every recorded rename back
	if st.Columns, err = mapColumns(p.Original, p.Ghost, st.Spec.Renames, st.Spec.Recreated, skipRenamed); err != nil {
		return err
	}
	p.Columns, p.Renames = st.Columns.Pairs, st.Columns.Renames
	if p.Fills, err = planFills(p.Ghost, st.Columns.Added, st.DDL.SQLMode); err != nil {
		return err
	}
	return nil
}

// checkNewAutoIncrementColumn refuses an added AUTO_INCREMENT column the copy cannot number as
// the server's ALTER would (autoinc.go), then pads CHAR values when the server does.
func checkNewAutoIncrementColumn(ctx context.Context, st *State) error {
	p := st.Plan
	if err := checkNewAutoIncrement(ctx, st.Primary, p, st.Columns, st.DDL.SQLMode); err != nil {
		return err
	}
	p.PadChar = table.HasPadChar(st.DDL.SQLMode)
	return p.setPadding()
}

// chooseKey chooses the shared key over the columns.
func chooseKey(ctx context.Context, st *State) (err error) {
	st.NullableKey, err = st.Options.chooseKeyAllowingNulls(ctx, st.Primary, st.Plan)
	return err
}

// estimate estimates the rows to copy.
func estimate(ctx context.Context, st *State) (err error) {
	cfg := st.Options
	st.Plan.EstimatedRows, err = estimateRows(ctx, st.Inspected, cfg.Database, cfg.Table, cfg.ExactRowcount)
	return err
}

// recheckNullableKey proves again, on the ghost under the cut-over's lock (the original is
// locked), that the nullable shared key holds no NULL.
func recheckNullableKey(ctx context.Context, st *State) error {
	if !st.NullableKey {
		return nil
	}
	p := st.Plan
	return recheckNoNullKeys(ctx, st.Primary, p.Original.Schema, p.GhostTable, p.GhostKey)
}

// CheckHelperTables refuses ghost, changelog and old tables left by an earlier run, or drops them
// when --initially-drop-ghost-table / --initially-drop-old-table say so. Every refusal is decided
// before anything is dropped.
func CheckHelperTables(ctx context.Context, st *State) error {
	cfg, p := st.Options, st.Plan
	schema := cfg.Database
	type helper struct {
		name  string
		drop  bool
		flag  string
		found bool
	}
	helpers := []*helper{
		{name: p.GhostTable, drop: cfg.InitiallyDropGhostTable, flag: "--initially-drop-ghost-table"},
		{name: p.ChangelogTable, drop: cfg.InitiallyDropGhostTable, flag: "--initially-drop-ghost-table"},
		{name: p.OldTable, drop: cfg.InitiallyDropOldTable, flag: "--initially-drop-old-table"},
	}
	switch {
	case cfg.Resume: // the earlier run's ghost and changelog are what it continues (checkpoint/resume.go, the resume kind in migrator/checkpoint.go)
		helpers = helpers[2:]
	case cfg.Revert: // the ghost is the old table; the checkpoint table is the migration's (migrator/revert.go)
		helpers = helpers[1:]
	case cfg.Checkpoint:
		helpers = append(helpers, &helper{name: p.CheckpointTable, drop: cfg.InitiallyDropGhostTable, flag: "--initially-drop-ghost-table"})
	}
	for _, h := range helpers {
		if table.TooLong(h.name) {
			return fmt.Errorf("table name %s is too long for its helper table %s (%d characters at most): rename the table first",
				cfg.Table, h.name, table.MaxIdentifierLength)
		}
		found, err := table.Exists(ctx, st.Primary, schema, h.name)
		if err != nil {
			return err
		}
		h.found = found
		if found && !h.drop {
			return fmt.Errorf("table %s.%s already exists. Panicking: it was left by an earlier migration: drop it, or pass %s", schema, h.name, h.flag)
		}
	}
	for _, h := range helpers {
		if !h.found {
			continue
		}
		if _, err := st.Primary.ExecContext(ctx, "DROP TABLE IF EXISTS "+table.Qualify(schema, h.name)); err != nil {
			return fmt.Errorf("drop %s.%s (%s): %w", schema, h.name, h.flag, err)
		}
		st.Log.Info().Str("table", h.name).Msgf("dropped %s.%s (%s)", schema, h.name, h.flag)
	}
	return nil
}
