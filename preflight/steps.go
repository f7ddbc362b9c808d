package preflight

import (
	"context"
	"fmt"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// The preparation's checks, in the order the conductor runs them: connect, the servers, the
// table, the helper tables (the ALTER's are in alter.go), then, once the conductor built the
// ghost (ddl.BuildGhost), the copy plan, which plan/ decides. The migration lock (between connect
// and the servers) is the conductor's.

// Connect opens the --host server (a supported flavor) and, when it is a replica, its primary:
// the tables are created, written and renamed there. The topology is read before the migration
// lock is taken, because the lock lives on the primary.
func Connect(ctx context.Context, st *State) error {
	cfg, p := st.Config, st.Plan
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
	if cfg.AllowOnMaster || cfg.OnReplica() {
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

// checkServerBinlog checks the binary log the applier will read, as ROW when --switch-to-rbr
// will switch it (rbr.go).
func checkServerBinlog(ctx context.Context, st *State) error {
	cfg, p := st.Config, st.Plan
	vars, err := dbconn.ReadVariables(ctx, st.Inspected, binlogVariables...)
	if err != nil {
		return fmt.Errorf("on %s: %w", cfg.Conn.Addr(), err)
	}
	if err := st.checkSwitchToRBR(ctx, st.Inspected, p.Flavor, p.InspectedIsReplica, vars); err != nil {
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
	return checkLockBypassingPlugins(st.Plan.Primary.Addr(), plugins, st.Config.AllowPlugins)
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
	cfg, p := st.Config, st.Plan
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
	if st.Plan.Triggers, err = readTriggers(ctx, cfg, st.Primary, schema, tbl); err != nil {
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
// --allow-cascading-foreign-keys-data-loss are logged as a warning, unless the server logs what
// they change (cascadesLogged): then they are child-side keys like any other.
func inspectForeignKeys(ctx context.Context, st *State) error {
	schema, tbl := st.Config.Database, st.Config.Table
	own, referencing, err := foreignKeys(ctx, st.Primary, schema, tbl)
	if err != nil {
		return err
	}
	st.Plan.ForeignKeys, st.Plan.ReferencedBy = describeForeignKeys(own), referencing
	logged, err := cascadesLogged(ctx, st.Primary, st.Plan.Flavor)
	if err != nil {
		return err
	}
	if err := checkForeignKeys(st.Config, schema+"."+tbl, own, referencing, logged); err != nil {
		return err
	}
	if cascading := cascadingForeignKeys(own); len(cascading) > 0 && !logged {
		// config refuses --allow-cascading-foreign-keys-data-loss without --checksum: the
		// checksum repairs what these keys changed before the cut-over.
		st.Log.Warn().Strs("foreign_keys", describeForeignKeys(cascading)).
			Msgf("--allow-cascading-foreign-keys-data-loss: what these keys' actions change in %s.%s during the migration is not in the binlog; rows they delete come back and references they change keep their old values in the new table", schema, tbl)
	}
	return nil
}

// checkHelperTablesOfRun is CheckHelperTables, which a --revert's conductor runs itself once
// it has named the tables.
func checkHelperTablesOfRun(ctx context.Context, st *State) error {
	if st.Config.Revert {
		return nil
	}
	return CheckHelperTables(ctx, st)
}

// planColumns maps the columns: the pairs copied, the added columns filled, the padding.
func planColumns(_ context.Context, st *State) (err error) {
	cfg, p := st.Config, st.Plan
	skipRenamed := cfg.SkipRenamedColumns && !cfg.Revert // a revert maps every recorded rename back
	if p.Mapping, err = plan.MapColumns(p.Original, p.Ghost, st.Spec.Renames, st.Spec.Recreated, skipRenamed); err != nil {
		return err
	}
	p.Columns, p.Renames = p.Mapping.Pairs, p.Mapping.Renames
	if p.Fills, err = plan.Fills(p.Ghost, p.Mapping.Added, st.DDL.SQLMode); err != nil {
		return err
	}
	return nil
}

// checkNewAutoIncrementColumn refuses an added AUTO_INCREMENT column the copy cannot number as
// the server's ALTER would (autoinc.go), then pads CHAR values when the server does.
func checkNewAutoIncrementColumn(ctx context.Context, st *State) error {
	p := st.Plan
	if err := checkNewAutoIncrement(ctx, st.Primary, p, p.Mapping, st.DDL.SQLMode); err != nil {
		return err
	}
	p.PadChar = table.HasPadChar(st.DDL.SQLMode)
	return p.SetPadding()
}

// chooseKey chooses the shared key over the columns.
func chooseKey(ctx context.Context, st *State) (err error) {
	st.Plan.NullableKey, err = chooseKeyAllowingNulls(ctx, st.Primary, st.Plan, st.Config.AllowNullableUniqueKey)
	return err
}

// estimate estimates the rows to copy.
func estimate(ctx context.Context, st *State) (err error) {
	cfg := st.Config
	st.Plan.EstimatedRows, err = plan.EstimateRows(ctx, st.Inspected, cfg.Database, cfg.Table, cfg.CountsBeforeCopy())
	return err
}

// findIndirectWriters fills Plan.IndirectWriters (after the ghost exists: it is a read, no refusal).
func findIndirectWriters(ctx context.Context, st *State) error {
	p := st.Plan
	w, err := plan.IndirectWritersOf(ctx, st.Primary, p.Original.Schema, p.Original.Name)
	if err != nil {
		return err
	}
	p.IndirectWriters = w
	return nil
}

// recheckNullableKey proves again, on the ghost under the cut-over's lock (the original is
// locked), that the nullable shared key holds no NULL.
func recheckNullableKey(ctx context.Context, st *State) error {
	if !st.Plan.NullableKey {
		return nil
	}
	p := st.Plan
	return recheckNoNullKeys(ctx, st.Primary, p.Original.Schema, p.GhostTable, p.GhostKey)
}

// CheckHelperTables refuses ghost, changelog and old tables left by an earlier run, unless
// --initially-drop-ghost-table / --initially-drop-old-table say so: then it lists them in
// State.Stale, which the conductor drops once every check passed (ddl.DropStale).
func CheckHelperTables(ctx context.Context, st *State) error {
	cfg, p := st.Config, st.Plan
	schema := cfg.Database
	type helper struct {
		name string
		drop bool
		flag string
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
		if found && !h.drop {
			return fmt.Errorf("table %s.%s already exists. Panicking: it was left by an earlier migration: drop it, or pass %s", schema, h.name, h.flag)
		}
		if found {
			st.Stale = append(st.Stale, StaleTable{Name: h.name, Flag: h.flag})
		}
	}
	return nil
}
