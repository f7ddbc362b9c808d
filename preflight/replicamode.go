package preflight

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// The replica modes (--migrate-on-replica, --test-on-replica) run the whole migration on the
// --host replica: what they need of it is checked here, before the migration lock is taken.

// checkReplicaMode checks what only the replica modes need, on the replica: its binlog must carry
// the primary's writes (log_slave_updates), and on MariaDB the migration's own writes there must
// not stop replication (checkGTIDDomain).
func checkReplicaMode(ctx context.Context, st *State) error {
	if !st.Config.OnReplica() {
		return nil
	}
	addr := st.Config.Conn.Addr()
	vars, err := dbconn.ReadVariables(ctx, st.Inspected, "log_slave_updates", "log_replica_updates", "read_only",
		"gtid_strict_mode", "gtid_domain_id", "gtid_slave_pos", "gtid_binlog_state")
	if err != nil {
		return fmt.Errorf("on %s: %w", addr, err)
	}
	if st.Config.AssumeMasterHost != "" {
		st.Log.Info().Str("replica", addr).Msg("--assume-master-host has nothing to do with --test-on-replica (the primary is not connected to): ignored")
	}
	if name, on := replicaUpdatesLogged(vars); !on {
		return fmt.Errorf("%s must have log_slave_updates enabled for testing/migrating on replica: without it the primary's changes never reach its binary log and %s cannot see them: enable %s (needs a restart)",
			addr, st.Config.ReplicaModeFlag(), name)
	}
	if st.Plan.Flavor.MariaDB {
		rs, err := dbconn.ReadReplicaStatus(ctx, st.Inspected, st.Plan.Flavor, addr)
		if err != nil {
			return err
		}
		var ioPos string
		if rs != nil {
			ioPos = rs.GtidIOPos
		}
		warning, err := checkGTIDDomain(addr, vars, ioPos)
		if err != nil {
			return err
		}
		if warning != "" {
			st.Log.Warn().Str("replica", addr).Msg(warning)
		}
	}
	if dbconn.IsOn(vars["read_only"]) {
		st.Log.Warn().Str("replica", addr).Msg("read_only is ON on the replica: the migration's writes there need SUPER (MariaDB: READ_ONLY ADMIN)")
	}
	st.Log.Info().Str("replica", addr).Str("mode", st.Config.ReplicaModeFlag()).
		Msg("the whole migration runs on the replica: binlog read, tables created, copied and cut over there; the primary is not touched")
	return nil
}

// gtidDomains adds the domain ids of a MariaDB GTID list ("0-1-592,9-2-11") to set.
func gtidDomains(set map[uint64]bool, list string) error {
	for _, g := range strings.Split(list, ",") {
		if g = strings.TrimSpace(g); g == "" {
			continue
		}
		d, _, ok := strings.Cut(g, "-")
		id, err := strconv.ParseUint(d, 10, 32)
		if !ok || err != nil {
			return fmt.Errorf("%q is not a MariaDB GTID", g)
		}
		set[id] = true
	}
	return nil
}

// checkGTIDDomain decides whether the replica modes' writes can go on a MariaDB replica without
// breaking its replication. Those writes take GTIDs in the replica's gtid_domain_id (the tool's
// sessions keep the global value). A domain the replica receives from its primary shows in
// gtid_slave_pos (applied) or Gtid_IO_Pos (received, ioPos). Writing in such a domain with
// gtid_strict_mode=ON makes the primary's next GTIDs there out of order, and replication stops:
// refused. With the replica's own domain (as MariaDB recommends for replicas that take local
// writes) strict mode is fine. Without strict mode a replicated domain works but leaves GTIDs the
// primary lacks: returned as a warning. vars holds gtid_strict_mode, gtid_domain_id,
// gtid_slave_pos and gtid_binlog_state.
func checkGTIDDomain(addr string, vars map[string]string, ioPos string) (warning string, err error) {
	domain, err := strconv.ParseUint(vars["gtid_domain_id"], 10, 32)
	if err != nil {
		return "", fmt.Errorf("read gtid_domain_id on %s: %q", addr, vars["gtid_domain_id"])
	}
	replicated := map[uint64]bool{}
	for _, list := range []string{vars["gtid_slave_pos"], ioPos} {
		if err := gtidDomains(replicated, list); err != nil {
			return "", fmt.Errorf("read the replicated GTID domains of %s: %w", addr, err)
		}
	}
	if !replicated[domain] {
		return "", nil
	}
	if !dbconn.IsOn(vars["gtid_strict_mode"]) {
		return fmt.Sprintf("the migration's writes on the replica take GTIDs in gtid_domain_id %d, a domain it replicates from its primary: the primary will lack them (a replica-only gtid_domain_id avoids that)", domain), nil
	}
	used := map[uint64]bool{}
	for k := range replicated {
		used[k] = true
	}
	_ = gtidDomains(used, vars["gtid_binlog_state"]) // only to suggest a free domain
	free := uint64(1)
	for used[free] {
		free++
	}
	return "", fmt.Errorf("gtid_strict_mode is ON on replica %s and its gtid_domain_id %d is a domain it replicates from its primary (gtid_slave_pos %s): the migration's writes there would take GTIDs that make the primary's next transactions in that domain fail as out of order and stop replication: give the replica a domain of its own for local writes (for example SET GLOBAL gtid_domain_id=%d), or SET GLOBAL gtid_strict_mode=OFF for the migration",
		addr, domain, vars["gtid_slave_pos"], free)
}
