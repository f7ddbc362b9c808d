package preflight

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// The privilege pre-flight (doc/requirements.md): before anything is created, the account's
// privileges are read from information_schema and every missing one is named, in one line, with
// the GRANT that fixes it. Without it a missing privilege shows late, after tables were created
// (a missing INSERT on the changelog), or as a cut-over that retries until it gives up (a missing
// DROP or LOCK TABLES). Privileges granted through a role cannot be read this way: with a role
// active the check is skipped, with a warning.

// privilege is one privilege the migration needs; any of names satisfies it (a newer name and the
// older, broader one).
type privilege struct {
	names []string
	why   string
}

// replicationPrivileges are needed on the server whose binary log is read (--host).
func replicationPrivileges(f dbconn.Flavor) []privilege {
	if !f.MariaDB {
		return []privilege{
			{[]string{"REPLICATION SLAVE"}, "the binlog stream"},
			{[]string{"REPLICATION CLIENT", "SUPER"}, f.BinlogStatusSQL() + " and " + f.ReplicaStatusSQL()},
			{[]string{"XA_RECOVER_ADMIN"}, "XA RECOVER: no prepared XA transaction may hold changes"},
		}
	}
	return []privilege{
		{[]string{"REPLICATION SLAVE"}, "the binlog stream"},
		{[]string{"BINLOG MONITOR", "SUPER"}, "SHOW MASTER STATUS"},
		{[]string{"SLAVE MONITOR", "SUPER"}, "SHOW SLAVE STATUS"},
	}
}

// schemaPrivileges are needed on the migrated database, on the primary.
var schemaPrivileges = []privilege{
	{[]string{"SELECT"}, "the copy reads the table"},
	{[]string{"INSERT"}, "the copy, the binlog applier and the changelog"},
	{[]string{"UPDATE"}, "the binlog applier and the changelog"},
	{[]string{"DELETE"}, "the binlog applier"},
	{[]string{"CREATE"}, "the ghost and changelog tables"},
	{[]string{"ALTER"}, "the ALTER on the ghost table and the cut-over's renames"},
	{[]string{"DROP"}, "the cut-over's renames and dropping the helper tables"},
	{[]string{"LOCK TABLES"}, "the cut-over locks the table"},
}

// grants are the privileges of the current account: global ones, and per database pattern.
type grants struct {
	account  string // 'user'@'host'
	global   map[string]bool
	onSchema map[string]bool // privileges on the schema asked for, by any matching pattern
}

// readGrants reads the current account's global privileges and those on schema. ok is false when
// a role is active (its privileges are not in these tables).
func readGrants(ctx context.Context, db *sql.DB, schema string) (g grants, ok bool, err error) {
	var current string
	var role sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT CURRENT_USER(), CURRENT_ROLE()").Scan(&current, &role); err != nil {
		return g, false, fmt.Errorf("read the current account: %w", err)
	}
	if role.Valid && role.String != "" && role.String != "NONE" { // MySQL says NONE, MariaDB NULL
		return g, false, nil
	}
	at := strings.LastIndexByte(current, '@')
	if at < 0 {
		return g, false, nil
	}
	g.account = "'" + current[:at] + "'@'" + current[at+1:] + "'"
	if g.global, err = privilegeSet(ctx, db, "SELECT PRIVILEGE_TYPE FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = ?", g.account); err != nil {
		return g, false, err
	}
	// Database grants may be patterns (`shop\_%`.*): the server matches them with LIKE.
	g.onSchema, err = privilegeSet(ctx, db, "SELECT PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = ? AND ? LIKE TABLE_SCHEMA", g.account, schema)
	return g, err == nil, err
}

func privilegeSet(ctx context.Context, db *sql.DB, query string, args ...any) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("read privileges: %w", err)
	}
	defer rows.Close()
	set := map[string]bool{}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, fmt.Errorf("read privileges: %w", err)
		}
		set[strings.ToUpper(p)] = true
	}
	return set, rows.Err()
}

// missingPrivileges names each privilege of need that neither the global set nor on holds, as
// "LOCK TABLES (the cut-over locks the table)", and the GRANT that gives them all on target.
func missingPrivileges(need []privilege, global, on map[string]bool, target, account string) (names []string, grant string) {
	var grantList []string
	for _, p := range need {
		held := false
		for _, n := range p.names {
			held = held || global[n] || on[n]
		}
		if !held {
			names = append(names, fmt.Sprintf("%s (%s)", p.names[0], p.why))
			grantList = append(grantList, p.names[0])
		}
	}
	if len(names) == 0 {
		return nil, ""
	}
	return names, fmt.Sprintf("GRANT %s ON %s TO %s", strings.Join(grantList, ", "), target, account)
}

// privilegeScope is a set of privileges needed on one server, on target (*.* or `db`.*).
type privilegeScope struct {
	db             *sql.DB
	addr           string
	schema, target string
	need           []privilege
}

// replicationScope is what the inspected server (--host) needs: it is checked before its
// replication status is read (which needs one of them).
func (st *State) replicationScope() privilegeScope {
	return privilegeScope{st.Inspected, st.Plan.Inspected.Addr(), "", "*.*", replicationPrivileges(st.Plan.Flavor)}
}

// tableScopes are what the primary needs: the table privileges on the database, and
// performance_schema, read by the cut-over's checks.
func (st *State) tableScopes(db *sql.DB, addr string) []privilegeScope {
	quoted := "`" + strings.ReplaceAll(st.Config.Database, "`", "``") + "`.*"
	scopes := []privilegeScope{{db, addr, st.Config.Database, quoted, schemaPrivileges}}
	if !st.Config.SkipMetadataLockCheck {
		scopes = append(scopes, privilegeScope{db, addr, "performance_schema", "performance_schema.*",
			[]privilege{{[]string{"SELECT"}, "the cut-over's metadata lock checks"}}})
	}
	return scopes
}

// checkPrivileges refuses, before anything is created, an account that lacks a privilege of
// scopes, naming every missing one in one line with the GRANTs that fix them.
func (st *State) checkPrivileges(ctx context.Context, scopes []privilegeScope) error {
	var missing, fixes []string
	for _, sc := range scopes {
		g, ok, err := readGrants(ctx, sc.db, sc.schema)
		if err != nil {
			return fmt.Errorf("on %s: %w", sc.addr, err)
		}
		if !ok {
			st.Log.Warn().Str("server", sc.addr).Msg("privileges granted through a role cannot be checked before the run; skipping the privilege pre-flight")
			continue
		}
		names, grant := missingPrivileges(sc.need, g.global, g.onSchema, sc.target, g.account)
		for _, n := range names {
			st.Log.Error().Str("server", sc.addr).Str("account", g.account).Msgf("missing privilege %s on %s", n, sc.target)
			missing = append(missing, n+" on "+sc.target+" of "+sc.addr)
		}
		if grant != "" {
			fixes = append(fixes, grant)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the account lacks privileges the migration needs: %s; nothing was created: run %s (see doc/requirements.md)",
			strings.Join(missing, ", "), strings.Join(fixes, "; "))
	}
	return nil
}
