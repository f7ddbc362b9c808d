package hooks

import (
	"fmt"
	"math"
	"net"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// etaUnknown is GH_OST_ETA_SECONDS while the ETA is not known: gh-ost's math.MinInt64.
const etaUnknown = math.MinInt64

// environment is the GH_OST_* variables every hook gets, with gh-ost's names and formats
// (floats as %f, booleans as true/false). The password is not among them.
func (h *Hooks) environment() []string {
	st := h.controls.Status()
	ghost, old := st.GhostTable, st.OldTable
	if ghost == "" { // before the run is planned
		ghost, old = table.GhostName(st.Table), table.OldName(st.Table, "")
	}
	eta := int64(etaUnknown)
	if d, ok := st.ETA(); ok {
		eta = int64(d.Round(time.Second) / time.Second)
	}
	lag := max(st.HeartbeatLag, 0).Seconds()
	return []string{
		"GH_OST_DATABASE_NAME=" + st.Database,
		"GH_OST_TABLE_NAME=" + st.Table,
		"GH_OST_GHOST_TABLE_NAME=" + ghost,
		"GH_OST_OLD_TABLE_NAME=" + old,
		"GH_OST_DDL=" + h.cfg.Alter,
		fmt.Sprintf("GH_OST_ELAPSED_SECONDS=%f", st.Elapsed.Seconds()),
		fmt.Sprintf("GH_OST_ELAPSED_COPY_SECONDS=%f", st.CopyElapsed.Seconds()),
		fmt.Sprintf("GH_OST_ESTIMATED_ROWS=%d", st.RowsEstimate),
		fmt.Sprintf("GH_OST_COPIED_ROWS=%d", st.RowsCopied),
		"GH_OST_MIGRATED_HOST=" + hostOnly(st.PrimaryHost),
		"GH_OST_INSPECTED_HOST=" + hostOnly(st.InspectedHost),
		"GH_OST_EXECUTING_HOST=" + h.host,
		// The lag of the server the binlog is read from, as our heartbeat shows it: the one
		// measure of lag go-ghostlite has, so both variables carry it.
		fmt.Sprintf("GH_OST_INSPECTED_LAG=%f", lag),
		fmt.Sprintf("GH_OST_HEARTBEAT_LAG=%f", lag),
		fmt.Sprintf("GH_OST_PROGRESS=%f", st.Progress()),
		fmt.Sprintf("GH_OST_ETA_SECONDS=%d", eta),
		"GH_OST_HOOKS_HINT=" + h.cfg.Hint,
		"GH_OST_HOOKS_HINT_OWNER=" + h.cfg.HintOwner,
		"GH_OST_HOOKS_HINT_TOKEN=" + h.cfg.HintToken,
		fmt.Sprintf("GH_OST_DRY_RUN=%t", h.cfg.DryRun),
		fmt.Sprintf("GH_OST_REVERT=%t", h.cfg.Revert),
	}
}

// hostOnly is addr without its port, as gh-ost's host variables.
func hostOnly(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}
