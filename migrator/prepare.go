package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The preparation phase checks everything that can be checked before a row moves and proves the
// ALTER on the ghost table. It changes nothing on a server except creating the ghost table (and,
// when asked with --initially-drop-*, dropping stale helper tables); on any failure it drops the
// ghost it created and releases the migration lock, so the server is as it found it.

// session holds what preparation produced and keeps holding until the run ends.
type session struct {
	plan      *Plan
	inspected *sql.DB   // pool (dbconn.Open) on the --host server: binlog is read there
	primary   *sql.DB   // pool on the primary: tables are created and written there (may be inspected)
	mutex     *sql.Conn // dedicated connection to the primary holding the per-table GET_LOCK
	mutexName string
	owned     map[string]string // table name -> identity of the table this run created (owned.go)
	// ghostCreated: this run created the ghost table (not a --resume's or a --revert's).
	ghostCreated bool

	columns      columnMapping // for the plan print-out: dropped, added, generated columns
	foreignKeys  []string      // the original's own foreign keys (not carried to the ghost)
	referencedBy []string      // foreign keys of other tables referencing the original
	// cascadingForeignKeys are the original's foreign keys with ON DELETE/UPDATE CASCADE, SET NULL or
	// SET DEFAULT, let through by --allow-cascading-foreign-keys-data-loss: what they change in the
	// original during the run is not in the binlog, so the new table can differ from it.
	//
	// CHECKSUM HOOK: when --checksum exists, a run with this list non-empty must require the
	// checksum to pass before the cut-over (refuse to start without --checksum, or turn it on).
	cascadingForeignKeys []string
	// original is the original's definition and triggers as preparation saw them (startcheck.go).
	original originalSnapshot
	// ghost is the ghost's definition and triggers as preparation left them (ghostproof.go).
	ghost originalSnapshot
	// nullableKey: the shared key has nullable columns (--allow-nullable-unique-key, nullablekey.go).
	nullableKey bool
	// triggers are the original's triggers, carried to the ghost at the cut-over (triggers.go).
	triggers []triggerDef
	// ddl is the server's global settings the ghost's CREATE and ALTER ran with.
	ddl ddlSettings
	// resume is the checkpoint a --resume run continues from (resume.go); nil otherwise.
	resume *checkpoint.Record
	// alter is the ALTER normalized (resume.go): each checkpoint records it, a --resume compares it.
	alter string
	// revert is the cut-over checkpoint a --revert run streams from (revert.go); nil otherwise.
	revert *checkpoint.Record

	log zerolog.Logger
}

// close releases the mutex (RELEASE_LOCK, then closes its connection) and closes the pools.
// It is safe to call more than once.
//
//nolint:contextcheck // its own context: it runs after the run's context may be cancelled (a signal)
func (s *session) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s.mutex != nil {
		if err := releaseMutex(ctx, s.mutex, s.mutexName); err != nil {
			s.log.Warn().Err(err).Msg("the migration lock is released when its connection closes")
		}
		s.mutex.Close()
		s.mutex = nil
	}
	if s.primary != nil && s.primary != s.inspected {
		s.primary.Close()
	}
	if s.inspected != nil {
		s.inspected.Close()
	}
	s.primary, s.inspected = nil, nil
}

// dropGhost drops the ghost table on the primary, if it is still the one this run created and
// this run still holds its lock.
func (m *Migrator) dropGhost(ctx context.Context, s *session) error {
	if s.primary == nil || s.plan == nil || s.plan.GhostTable == "" {
		return nil
	}
	if err := s.dropOwned(ctx, s.plan.GhostTable); err != nil {
		return fmt.Errorf("drop the ghost table: %w", err)
	}
	return nil
}

// prepare runs every check, creates the ghost table with the ALTER applied and fills the Plan.
// On any error it leaves the server as it found it: the ghost it created is dropped and the
// migration lock released.
func (m *Migrator) prepare(ctx context.Context) (_ *session, err error) {
	started := time.Now()
	s := &session{plan: &Plan{Renames: map[string]string{}}, log: m.log}
	defer func() {
		if err != nil {
			err = m.abandon(s, err)
		}
	}()
	if err := m.connect(ctx, s); err != nil { // 1-3
		return nil, err
	}
	if err := m.checkServers(ctx, s); err != nil { // 4-5
		return nil, err
	}
	if err := m.checkTable(ctx, s); err != nil { // 6
		return nil, err
	}
	spec, err := m.checkAlter(ctx, s) // 7-8
	if err != nil {
		return nil, err
	}
	s.ghostCreated, err = m.buildGhost(ctx, s, spec) // 9
	if err != nil {
		return nil, err
	}
	if err := m.planCopy(ctx, s, spec); err != nil { // 10-12
		return nil, err
	}
	if err := checkResumeColumns(s); err != nil { // resume.go
		return nil, err
	}
	if err := s.recordGhost(ctx); err != nil { // proven again before the swap (ghostproof.go)
		return nil, err
	}
	m.log.Debug().Str("ghost", s.plan.GhostTable).Str("took", logfmt.Duration(time.Since(started))).Msg("preparation complete")
	return s, nil
}

// abandon undoes a preparation that no run follows, for cause: it drops the ghost table this run
// created (not the one a --resume adopted, nor a --revert's old table) and releases the lock, so
// the server is as it was found. It returns cause, with the drop's failure if any.
//
//nolint:contextcheck // its own context: the cleanup runs after the run's may be cancelled
func (m *Migrator) abandon(s *session, cause error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.ghostCreated {
		if err := m.dropGhost(ctx, s); err != nil {
			cause = fmt.Errorf("%w (and the ghost table could not be dropped: %v; drop it by hand)", cause, err)
		}
	}
	s.close()
	return cause
}

// connect opens the server given with --host and, when it is a replica, its primary, and takes
// the per-table mutex there before anything is created.
func (m *Migrator) connect(ctx context.Context, s *session) (err error) {
	cfg, p := m.cfg, s.plan
	schema, tbl := cfg.Database, cfg.Table

	// 1-2. The server given with --host, its flavor, and where the tables are written.
	if err := m.connectPrimary(ctx, s); err != nil {
		return err
	}
	// Replica modes (replica.go): checks that only the whole-migration-on-the-replica needs.
	if err := m.checkOnReplica(ctx, s); err != nil {
		return err
	}

	// 3. The per-table mutex, before anything is created.
	s.mutex, s.mutexName, err = acquireMutex(ctx, s.primary, p.Primary.Addr(), schema, tbl)
	return err
}

// connectPrimary opens the --host server (a supported flavor) and, when it is a replica, its
// primary: the tables are created, written and renamed there. The topology is read before the
// migration lock is taken, because the lock lives on the primary.
func (m *Migrator) connectPrimary(ctx context.Context, s *session) error {
	cfg, p := m.cfg, s.plan
	var err error
	if s.inspected, err = openServer(ctx, cfg.Conn, cfg.Database); err != nil {
		return err
	}
	if p.Flavor, err = dbconn.DetectFlavor(ctx, s.inspected); err != nil {
		return fmt.Errorf("on %s: %w", cfg.Conn.Addr(), err)
	}
	if err := p.Flavor.Supported(); err != nil {
		return fmt.Errorf("%s: %w", cfg.Conn.Addr(), err)
	}
	p.Inspected = cfg.Conn
	// Privileges (privileges.go), before anything is read that needs one: the inspected server's,
	// and the table ones when it may be where tables are created (a replica's primary is
	// checked once known).
	scopes := []privilegeScope{m.replicationScope(s)}
	if cfg.AllowOnMaster || cfg.onReplica() {
		scopes = append(scopes, m.tableScopes(s.inspected, cfg.Conn.Addr())...)
	}
	if err := m.checkPrivileges(ctx, scopes); err != nil {
		return err
	}
	rs, err := readReplicaStatus(ctx, s.inspected, p.Flavor, cfg.Conn.Addr())
	if err != nil {
		return err
	}
	if p.Primary, p.InspectedIsReplica, err = resolvePrimary(cfg, rs); err != nil {
		return err
	}
	s.primary = s.inspected
	if p.InspectedIsReplica {
		if s.primary, err = openServer(ctx, p.Primary, cfg.Database); err != nil {
			return fmt.Errorf("connect to the primary of %s: %w", cfg.Conn.Addr(), err)
		}
	}
	if p.InspectedIsReplica { // privileges.go: checked on the inspected server already otherwise
		return m.checkPrivileges(ctx, m.tableScopes(s.primary, p.Primary.Addr()))
	}
	return nil
}

// checkServers checks the binary log the applier will read (4), the plugins that write around
// LOCK TABLES on the primary and the metadata locks the cut-over's checks read there (5).
func (m *Migrator) checkServers(ctx context.Context, s *session) error {
	cfg, p := m.cfg, s.plan
	vars, err := readVariables(ctx, s.inspected, binlogVariables...)
	if err != nil {
		return fmt.Errorf("on %s: %w", cfg.Conn.Addr(), err)
	}
	if err := m.switchToRBR(ctx, s.inspected, p.Flavor, p.InspectedIsReplica, vars); err != nil {
		return err
	}
	// --tungsten: the replicator writes the primary's changes into this server's binlog.
	if err := checkBinlog(cfg.Conn.Addr(), vars, p.InspectedIsReplica && !cfg.Tungsten, cfg.AssumeRBR); err != nil {
		return err
	}
	if err := checkNoPreparedXAAnywhere(ctx, s); err != nil {
		return err
	}
	plugins, err := readPlugins(ctx, s.primary)
	if err != nil {
		return fmt.Errorf("on %s: %w", p.Primary.Addr(), err)
	}
	if err := checkLockBypassingPlugins(p.Primary.Addr(), plugins, cfg.AllowPlugins); err != nil {
		return err
	}
	return m.checkMetadataLocks(ctx, s) // mdlcheck.go
}

// checkAlter parses the ALTER (7) and names the helper tables, refusing when an earlier run's
// are in the way (8).
func (m *Migrator) checkAlter(ctx context.Context, s *session) (*alterSpec, error) {
	cfg, p := m.cfg, s.plan
	if cfg.Revert {
		return m.checkRevert(ctx, s) // the old table is the ghost (revert.go)
	}
	spec, err := parseAlter(cfg.Alter, cfg.Database, cfg.Table)
	if err != nil {
		return nil, err
	}
	if err := renameRefusal(spec.Renames, cfg.ApproveRenamedColumns, cfg.SkipRenamedColumns); err != nil {
		return nil, err
	}
	if s.alter, err = normalizeAlter(spec.Body); err != nil { // resume.go
		return nil, err
	}
	p.GhostTable, p.ChangelogTable = table.GhostName(cfg.Table), table.ChangelogName(cfg.Table)
	p.OldTable = table.OldName(cfg.Table, "")
	p.CheckpointTable = table.CheckpointName(cfg.Table)
	if cfg.TimestampOldTable {
		p.OldTable = table.OldName(cfg.Table, time.Now().UTC().Format("20060102150405"))
	}
	if err := m.checkHelperTables(ctx, s); err != nil {
		return nil, err
	}
	return spec, nil
}

// buildGhost creates the ghost, runs the ALTER on it under the server's global settings and
// inspects it (9). created tells whether a ghost was created, even when err is not nil.
func (m *Migrator) buildGhost(ctx context.Context, s *session, spec *alterSpec) (created bool, err error) {
	cfg, p := m.cfg, s.plan
	if cfg.Resume {
		return false, m.checkResume(ctx, s, spec) // the ghost is the earlier run's (resume.go)
	}
	if cfg.Revert {
		return false, m.adoptOldTable(ctx, s) // revert.go
	}
	ddl, err := readDDLSettings(ctx, s.primary, cfg.AllowZeroInDate, cfg.SkipStrictMode)
	if err != nil {
		return false, fmt.Errorf("on %s: %w", p.Primary.Addr(), err)
	}
	s.ddl = ddl
	p.TimeZone = ddl.TimeZone
	p.Primary.NoZeroDate, p.Primary.NoZeroInDate = zeroDateChecks(ddl.SQLMode)
	p.AlterSetsAutoIncrement = setsAutoIncrement(spec)
	created, err = createGhost(ctx, s.primary, ddl, cfg.Database, cfg.Table, p.GhostTable, spec, cfg.DiscardForeignKeys)
	if created {
		s.own(ctx, p.GhostTable, p.GhostTable) // the ALTER, failed or not, is done: its final identity
	}
	if err != nil {
		return created, err
	}
	if p.Ghost, err = table.Inspect(ctx, s.primary, cfg.Database, p.GhostTable); err != nil {
		return created, fmt.Errorf("inspect the ghost table: %w", err)
	}
	if p.Ghost.Engine != "" && !strings.EqualFold(p.Ghost.Engine, "InnoDB") {
		return created, fmt.Errorf("the ALTER makes the table use the %s engine; go-ghostlite migrates to InnoDB only: remove ENGINE= from --alter", p.Ghost.Engine)
	}
	return created, nil
}

// planCopy maps the columns (10), chooses the shared key over them (11) and estimates the rows
// to copy (12).
func (m *Migrator) planCopy(ctx context.Context, s *session, spec *alterSpec) (err error) {
	cfg, p := m.cfg, s.plan
	skipRenamed := cfg.SkipRenamedColumns && !cfg.Revert // a revert maps every recorded rename back
	if s.columns, err = mapColumns(p.Original, p.Ghost, spec.Renames, spec.Recreated, skipRenamed); err != nil {
		return err
	}
	p.Columns, p.Renames = s.columns.Pairs, s.columns.Renames
	if p.Fills, err = planFills(p.Ghost, s.columns.Added, s.ddl.SQLMode); err != nil {
		return err
	}
	if err := checkNewAutoIncrement(ctx, s.primary, p, s.columns, s.ddl.SQLMode); err != nil {
		return err
	}
	p.PadChar = table.HasPadChar(s.ddl.SQLMode)
	if err := p.setPadding(); err != nil {
		return err
	}
	if s.nullableKey, err = cfg.chooseKeyAllowingNulls(ctx, s.primary, p); err != nil {
		return err
	}
	p.EstimatedRows, err = estimateRows(ctx, s.inspected, cfg.Database, cfg.Table, cfg.ExactRowcount && !cfg.countsConcurrently())
	return err
}

// checkTable checks the original table on the primary, where it is copied, written and renamed,
// and inspects it there (Plan.Original). When the binlog is read on a replica, the replica's table
// must have the same columns, since its row images describe them.
func (m *Migrator) checkTable(ctx context.Context, s *session) error {
	cfg, p := m.cfg, s.plan
	schema, tbl := cfg.Database, cfg.Table
	primaryAddr := p.Primary.Addr()
	// A run that died between its two renames left tbl missing: say so before "does not exist".
	rev, err := revertNames(ctx, s.primary, schema, tbl) // a revert's changelog names its tables (recover.go)
	if err != nil {
		return err
	}
	if err := cutover.CheckCrashed(ctx, s.primary, schema, tbl, rev); err != nil {
		return err
	}
	if err := checkTableKind(ctx, s.primary, primaryAddr, schema, tbl); err != nil {
		return err
	}
	snap, err := readOriginalSnapshot(ctx, s.primary, schema, tbl)
	if err != nil {
		return err
	}
	s.original = snap
	if s.triggers, err = m.cfg.readTriggers(ctx, s.primary, schema, tbl); err != nil {
		return err
	}
	if err := m.inspectForeignKeys(ctx, s); err != nil {
		return err
	}
	onPrimary, err := table.Inspect(ctx, s.primary, schema, tbl)
	if err != nil {
		return fmt.Errorf("inspect %s.%s on %s: %w", schema, tbl, primaryAddr, err)
	}
	p.Original = onPrimary
	if !p.InspectedIsReplica {
		return nil
	}
	if err := checkTableKind(ctx, s.inspected, cfg.Conn.Addr(), schema, tbl); err != nil {
		return err
	}
	onReplica, err := table.Inspect(ctx, s.inspected, schema, tbl)
	if err != nil {
		return fmt.Errorf("inspect %s.%s on %s: %w", schema, tbl, cfg.Conn.Addr(), err)
	}
	// The replica's binlog row images follow its columns; the copy and the keys run on the
	// primary. Both must agree for the plan to hold on either side.
	return sameLayout(onReplica, onPrimary, cfg.Conn.Addr(), primaryAddr)
}

// inspectForeignKeys reads the original's foreign keys and refuses those the migration cannot keep
// (checkForeignKeys in inspect.go). Cascading keys let through by
// --allow-cascading-foreign-keys-data-loss are recorded in the session and logged as a warning.
func (m *Migrator) inspectForeignKeys(ctx context.Context, s *session) error {
	schema, tbl := m.cfg.Database, m.cfg.Table
	own, referencing, err := foreignKeys(ctx, s.primary, schema, tbl)
	if err != nil {
		return err
	}
	s.foreignKeys, s.referencedBy = describeForeignKeys(own), referencing
	if err := checkForeignKeys(m.cfg, schema+"."+tbl, own, referencing); err != nil {
		return err
	}
	if cascading := cascadingForeignKeys(own); len(cascading) > 0 {
		s.cascadingForeignKeys = describeForeignKeys(cascading)
		// CHECKSUM HOOK: see session.cascadingForeignKeys.
		m.log.Warn().Strs("foreign_keys", s.cascadingForeignKeys).
			Msgf("--allow-cascading-foreign-keys-data-loss: what these keys' actions change in %s.%s during the migration is not in the binlog; rows they delete come back and references they change keep their old values in the new table", schema, tbl)
	}
	return nil
}

// checkHelperTables refuses ghost, changelog and old tables left by an earlier run, or drops them
// when --initially-drop-ghost-table / --initially-drop-old-table say so. Every refusal is decided
// before anything is dropped.
func (m *Migrator) checkHelperTables(ctx context.Context, s *session) error {
	cfg, p := m.cfg, s.plan
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
	case cfg.Resume: // the earlier run's ghost and changelog are what it continues (resume.go)
		helpers = helpers[2:]
	case cfg.Revert: // the ghost is the old table; the checkpoint table is the migration's (revert.go)
		helpers = helpers[1:]
	case cfg.Checkpoint:
		helpers = append(helpers, &helper{name: p.CheckpointTable, drop: cfg.InitiallyDropGhostTable, flag: "--initially-drop-ghost-table"})
	}
	for _, h := range helpers {
		if table.TooLong(h.name) {
			return fmt.Errorf("table name %s is too long for its helper table %s (%d characters at most): rename the table first",
				cfg.Table, h.name, table.MaxIdentifierLength)
		}
		found, err := tableExists(ctx, s.primary, schema, h.name)
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
		if _, err := s.primary.ExecContext(ctx, "DROP TABLE IF EXISTS "+table.Qualify(schema, h.name)); err != nil {
			return fmt.Errorf("drop %s.%s (%s): %w", schema, h.name, h.flag, err)
		}
		m.log.Info().Str("table", h.name).Msgf("dropped %s.%s (%s)", schema, h.name, h.flag)
	}
	return nil
}
