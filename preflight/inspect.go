package preflight

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The checks of the servers and of the table, read-only. Decisions over values read from a server
// are pure functions (checkBinlog, resolvePrimary, checkLockBypassPlugins, checkForeignKeys), so
// each refusal can be tested without changing a shared server.

// openServer opens a pool on c in the migration's database. A missing database is a refusal.
func openServer(ctx context.Context, c dbconn.Config, schema string) (*sql.DB, error) {
	db, err := dbconn.Open(ctx, c, schema)
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1049 {
		return nil, fmt.Errorf("database %s does not exist on %s: fix --database", schema, c.Addr())
	}
	return db, err
}

// binlogVariables are the variables checkBinlog decides on.
var binlogVariables = []string{"log_bin", "binlog_format", "binlog_row_image", "log_slave_updates",
	"log_replica_updates"}

// checkBinlog decides whether the binary log of the server at addr can feed the applier. vars are
// global variables (lower-case names; absent when the server lacks them). onReplica says the
// server replicates the primary's writes, which then must reach its own binlog.
func checkBinlog(addr string, vars map[string]string, onReplica, assumeRBR bool) error {
	if !dbconn.IsOn(vars["log_bin"]) {
		return fmt.Errorf("%s must have binary logs enabled: go-ghostlite reads the table's changes from its binary log (log_bin=OFF there): enable log_bin (needs a restart), or point --host at a server that has it", addr)
	}
	if f := vars["binlog_format"]; !assumeRBR && !strings.EqualFold(f, "ROW") {
		return fmt.Errorf("you must be using ROW binlog format. I can switch it for you, provided --switch-to-rbr and that %s doesn't have replicas: it writes %s events, and only row events can be applied faithfully: pass --switch-to-rbr on a replica, or SET GLOBAL binlog_format=ROW (and restart replication)", addr, f)
	}
	if img := vars["binlog_row_image"]; !strings.EqualFold(img, "FULL") {
		return fmt.Errorf("%s has '%s' binlog_row_image, and only 'FULL' is supported: the applier writes whole rows from the row images: SET GLOBAL binlog_row_image=FULL (and restart replication)", addr, img)
	}
	if onReplica {
		if name, on := replicaUpdatesLogged(vars); !on {
			return fmt.Errorf("%s must have log_slave_updates enabled for executing migration: without it the primary's changes never reach this replica's binary log: enable %s (needs a restart), or point --host at the primary with --allow-on-master", addr, name)
		}
	}
	// binlog_row_value_options=PARTIAL_JSON (MySQL) is accepted: the applier rebuilds each partially
	// updated JSON document from the full before image (binlogapply's jsonrows.go).
	return nil
}

// resolvePrimary decides where tables are created and written. rs is the inspected server's
// replication source (nil when it does not replicate). It returns the primary's settings and
// whether the inspected server is a replica of it.
func resolvePrimary(cfg config.Config, rs *dbconn.ReplicaStatus) (dbconn.Config, bool, error) {
	inspected := cfg.Conn.Addr()
	primary := cfg.Conn
	// Replica modes (replicamode.go): everything is created and written on the --host replica.
	if cfg.OnReplica() {
		onReplica, err := resolveOnReplica(cfg, rs)
		return onReplica, false, err
	}
	switch {
	case cfg.AssumeMasterHost != "":
		host, port, err := dbconn.ParseHostPort(cfg.AssumeMasterHost, cfg.Conn.Port)
		if err != nil {
			return dbconn.Config{}, false, fmt.Errorf("--assume-master-host: %w", err)
		}
		primary.Host, primary.Port = host, port
		if cfg.MasterUser != "" {
			primary.User = cfg.MasterUser
		}
		if cfg.MasterPassword != "" {
			primary.Password = cfg.MasterPassword
		}
		return primary, primary.Addr() != inspected, nil
	case rs != nil:
		if !strings.EqualFold(rs.IORunning, "Yes") || !strings.EqualFold(rs.SQLRunning, "Yes") {
			return dbconn.Config{}, false, fmt.Errorf("replication is not running on %s (IO thread: %s, SQL thread: %s), so the primary's changes would not reach its binlog: start replication, or point --host at another server",
				inspected, rs.IORunning, rs.SQLRunning)
		}
		primary.Host, primary.Port = rs.SourceHost, rs.SourcePort
		return primary, true, nil
	case !cfg.AllowOnMaster:
		return dbconn.Config{}, false, fmt.Errorf("it seems like this migration attempt to run directly on master: %s is a primary (not replicating); pass --allow-on-master to migrate on it, or point --host at a replica", inspected)
	}
	return primary, false, nil
}

// plugin is a row of information_schema.PLUGINS.
type plugin struct{ Name, Status string }

// lockBypassingPlugins are plugins that write to tables without going through the SQL layer's
// table locks: the cut-over's LOCK TABLES would not hold their writes back.
var lockBypassingPlugins = []string{"handlersocket"}

func readPlugins(ctx context.Context, db *sql.DB) ([]plugin, error) {
	rows, err := db.QueryContext(ctx, "SELECT PLUGIN_NAME, PLUGIN_STATUS FROM information_schema.PLUGINS")
	if err != nil {
		return nil, fmt.Errorf("read plugins: %w", err)
	}
	defer rows.Close()
	var out []plugin
	for rows.Next() {
		var p plugin
		if err := rows.Scan(&p.Name, &p.Status); err != nil {
			return nil, fmt.Errorf("read plugins: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// checkLockBypassingPlugins refuses an active plugin that bypasses LOCK TABLES, unless allowed.
func checkLockBypassingPlugins(addr string, plugins []plugin, allow bool) error {
	if allow {
		return nil
	}
	for _, p := range plugins {
		for _, bad := range lockBypassingPlugins {
			if strings.EqualFold(p.Name, bad) && strings.EqualFold(p.Status, "ACTIVE") {
				return fmt.Errorf("the %s plugin is active on %s; its writes bypass LOCK TABLES, so the cut-over could lose them: UNINSTALL PLUGIN %s, or pass --allow-lock-bypassing-plugins if nothing writes to the table through it",
					p.Name, addr, p.Name)
			}
		}
	}
	return nil
}

// checkTableKind refuses a missing table, a view and an engine other than InnoDB.
func checkTableKind(ctx context.Context, db *sql.DB, addr, schema, tbl string) error {
	var typ string
	var engine sql.NullString
	err := db.QueryRowContext(ctx, `SELECT TABLE_TYPE, ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`,
		schema, tbl).Scan(&typ, &engine)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("cannot find table %s.%s! It does not exist on %s: fix --database/--table", schema, tbl, addr)
	case err != nil:
		return fmt.Errorf("look up table %s.%s on %s: %w", schema, tbl, addr, err)
	case typ != "BASE TABLE":
		return fmt.Errorf("%s.%s is a %s, not a real table. Bailing out: go-ghostlite migrates base tables only", schema, tbl, strings.ToUpper(typ))
	case !strings.EqualFold(engine.String, "InnoDB"):
		return fmt.Errorf("%s.%s uses the %s engine; go-ghostlite migrates InnoDB tables only: convert it with ALTER TABLE ... ENGINE=InnoDB first", schema, tbl, engine.String)
	}
	return nil
}

// foreignKey is one of the table's own foreign keys (the table is the child).
type foreignKey struct {
	Name, Parent       string
	OnUpdate, OnDelete string // UPDATE_RULE, DELETE_RULE: CASCADE, SET NULL, SET DEFAULT, RESTRICT or NO ACTION
}

// serverActions are the key's referential actions that change this table's rows inside the storage
// engine (ON DELETE/UPDATE CASCADE, SET NULL, SET DEFAULT), as "ON DELETE CASCADE". The engine
// never writes those changes to the row binlog, so the applier cannot see them.
func (fk foreignKey) serverActions() []string {
	var out []string
	for _, a := range []struct{ on, rule string }{{"DELETE", fk.OnDelete}, {"UPDATE", fk.OnUpdate}} {
		switch r := strings.ToUpper(a.rule); r {
		case "CASCADE", "SET NULL", "SET DEFAULT":
			out = append(out, "ON "+a.on+" "+r)
		}
	}
	return out
}

// String is "name -> parent", followed by the key's server-side actions.
func (fk foreignKey) String() string {
	return strings.Join(append([]string{fk.Name + " -> " + fk.Parent}, fk.serverActions()...), " ")
}

func describeForeignKeys(fks []foreignKey) []string {
	out := make([]string, len(fks))
	for i, fk := range fks {
		out[i] = fk.String()
	}
	return out
}

// foreignKeys lists the constraints where tbl is the child (own) and those of other tables that
// reference it, each as "schema.table.constraint" (referencing).
func foreignKeys(ctx context.Context, db *sql.DB, schema, tbl string) (own []foreignKey, referencing []string, err error) {
	rows, err := db.QueryContext(ctx, `SELECT CONSTRAINT_NAME, REFERENCED_TABLE_NAME, UPDATE_RULE, DELETE_RULE
		FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?
		ORDER BY CONSTRAINT_NAME`, schema, tbl)
	if err != nil {
		return nil, nil, fmt.Errorf("read foreign keys of %s.%s: %w", schema, tbl, err)
	}
	defer rows.Close()
	for rows.Next() {
		var fk foreignKey
		if err := rows.Scan(&fk.Name, &fk.Parent, &fk.OnUpdate, &fk.OnDelete); err != nil {
			return nil, nil, fmt.Errorf("read foreign keys of %s.%s: %w", schema, tbl, err)
		}
		own = append(own, fk)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read foreign keys of %s.%s: %w", schema, tbl, err)
	}
	referencing, err = dbconn.QueryStrings(ctx, db, `SELECT CONCAT(CONSTRAINT_SCHEMA, '.', TABLE_NAME, '.', CONSTRAINT_NAME)
		FROM information_schema.REFERENTIAL_CONSTRAINTS
		WHERE UNIQUE_CONSTRAINT_SCHEMA = ? AND REFERENCED_TABLE_NAME = ? AND NOT (CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?)
		ORDER BY 1`, schema, tbl, schema, tbl)
	if err != nil {
		return nil, nil, fmt.Errorf("read foreign keys referencing %s.%s: %w", schema, tbl, err)
	}
	return own, referencing, nil
}

// cascadesLogged says whether the server writes the rows its foreign keys' actions (CASCADE, SET
// NULL) change to the row binlog: MySQL with innodb_native_foreign_keys=OFF (the default of MySQL
// 9.7, whose SQL layer runs them: row events flagged USE_SQL_FOREIGN_KEY_F, applied like any
// other). MariaDB, an older MySQL without the variable, or the variable ON: InnoDB runs them,
// unlogged.
func cascadesLogged(ctx context.Context, db *sql.DB, f dbconn.Flavor) (bool, error) {
	if f.MariaDB {
		return false, nil
	}
	vars, err := dbconn.ReadVariables(ctx, db, "innodb_native_foreign_keys")
	if err != nil {
		return false, err
	}
	native, ok := vars["innodb_native_foreign_keys"]
	return ok && !dbconn.IsOn(native), nil
}

// cascadingForeignKeys returns the keys of own with server-side actions (serverActions).
func cascadingForeignKeys(own []foreignKey) []foreignKey {
	var out []foreignKey
	for _, fk := range own {
		if len(fk.serverActions()) > 0 {
			out = append(out, fk)
		}
	}
	return out
}

// checkForeignKeys refuses foreign keys the migration cannot keep:
//   - a referenced table (its children would follow the original to its old name), unless
//     --skip-foreign-key-checks;
//   - a child table whose keys have server-side actions (cascadingForeignKeys), where the server
//     runs them inside InnoDB (!logged): the rows those actions delete or change during the
//     migration are not in the row binlog, so they would come back unchanged after the cut-over.
//     Neither --discard-foreign-keys nor --skip-foreign-key-checks lets it through; only
//     --allow-cascading-foreign-keys-data-loss, whose name states the loss;
//   - any other child table (a cascading one where the server logs the actions), unless
//     --discard-foreign-keys or --skip-foreign-key-checks.
func checkForeignKeys(cfg config.Config, qualified string, own []foreignKey, referencing []string, logged bool) error {
	discard, skip := cfg.DiscardForeignKeys, cfg.SkipForeignKeyChecks
	if len(referencing) > 0 && !skip {
		return fmt.Errorf("found %d parent-side foreign keys on %s. Parent-side foreign keys are not supported. Bailing out: %s is referenced by foreign keys (%s); after the cut-over they would point at the old table: drop them first, or pass --skip-foreign-key-checks if you accept that",
			len(referencing), qualified, qualified, strings.Join(referencing, ", "))
	}
	if cascading := cascadingForeignKeys(own); len(cascading) > 0 && !logged && !cfg.AllowCascadingForeignKeysDataLoss {
		return fmt.Errorf("Child-side foreign keys are not supported: %s has foreign keys with actions the server runs inside InnoDB, outside the row binlog (%s): rows they delete and references they change during the migration would come back unchanged after the cut-over; drop the keys or their actions first, or pass --allow-cascading-foreign-keys-data-loss (with --discard-foreign-keys) to accept that loss",
			qualified, strings.Join(describeForeignKeys(cascading), "; "))
	}
	if len(own) > 0 && !discard && !skip {
		return fmt.Errorf("found %d child-side foreign keys on %s. Child-side foreign keys are not supported. Bailing out: %s has foreign keys (%s) that the new table cannot keep: pass --discard-foreign-keys to migrate without them, or drop them first",
			len(own), qualified, qualified, strings.Join(describeForeignKeys(own), ", "))
	}
	return nil
}

// sameLayout returns an error when the table read on the replica and on the primary differ in
// columns: the binlog read on one must describe the table written on the other.
func sameLayout(onReplica, onPrimary *table.Table, replicaAddr, primaryAddr string) error {
	describe := func(t *table.Table) string {
		parts := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			parts[i] = c.Name + " " + c.ColumnType
		}
		return strings.Join(parts, ", ")
	}
	if a, b := describe(onReplica), describe(onPrimary); a != b {
		return fmt.Errorf("%s.%s has different columns on %s (%s) and on its primary %s (%s): let replication catch up, or fix the replica",
			onReplica.Schema, onReplica.Name, replicaAddr, a, primaryAddr, b)
	}
	return nil
}

// resolveOnReplica is the topology of the replica modes: the --host server must be a replica
// whose replication runs (the primary's writes must keep reaching its binlog), and every table is
// created and written on it. It returns the server to write to (the replica itself).
func resolveOnReplica(cfg config.Config, rs *dbconn.ReplicaStatus) (dbconn.Config, error) {
	flag, addr := cfg.ReplicaModeFlag(), cfg.Conn.Addr()
	if rs == nil {
		return dbconn.Config{}, fmt.Errorf("%s needs --host to be a replica: %s does not replicate from a primary", flag, addr)
	}
	if !strings.EqualFold(rs.IORunning, "Yes") || !strings.EqualFold(rs.SQLRunning, "Yes") {
		return dbconn.Config{}, fmt.Errorf("%s needs replication running on %s (IO thread: %s, SQL thread: %s): start replication first",
			flag, addr, rs.IORunning, rs.SQLRunning)
	}
	return cfg.Conn, nil
}

// replicaUpdatesLogged says whether a replica logs what it replicates, and the setting's name on
// that server (MySQL 8.0.26+ log_replica_updates, which 8.4 keeps alone; MariaDB log_slave_updates).
func replicaUpdatesLogged(vars map[string]string) (name string, on bool) {
	if v, ok := vars["log_replica_updates"]; ok {
		return "log_replica_updates", dbconn.IsOn(v)
	}
	return "log_slave_updates", dbconn.IsOn(vars["log_slave_updates"])
}
