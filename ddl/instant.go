package ddl

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"github.com/go-ghostlite/go-ghostlite/plan"
	"github.com/go-ghostlite/go-ghostlite/preflight"
	"strings"
	"time"

	sqldriver "github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// --attempt-instant-ddl, as gh-ost: once preparation has proven the ALTER on the ghost, try
// "ALTER TABLE original <alter>, ALGORITHM=INSTANT" on the primary. The server either changes
// only the table's metadata, at once, or refuses without touching anything, and then the full
// migration runs. INSTANT only: MariaDB's NOCOPY and INPLACE still rebuild or scan the table
// under the server's own control, which is what this tool exists to avoid.
//
// The statement waits for the table's metadata lock at most twice --cut-over-lock-timeout-seconds
// (lock_wait_timeout); meanwhile the application's new statements on the table queue behind it,
// the same bounded stall as a cut-over. A lock wait timeout is tried again, after 5 s × attempt,
// up to --default-retries times; any other refusal falls back to the full migration.

// InstantAttemptPause is the pause before the next attempt after a lock wait timeout (times the
// attempt); a variable for the tests.
var InstantAttemptPause = 5 * time.Second

// AttemptInstantDDL reports whether the ALTER was done instantly on the original. Then the ghost
// is to be dropped and nothing else is left to do.
func AttemptInstantDDL(ctx context.Context, st *preflight.State) bool {
	if !st.Config.AttemptInstantDDL {
		return false
	}
	spec, err := plan.ParseAlter(st.Config.Alter, st.Config.Database, st.Config.Table) // parsed by prepare already
	if err != nil {
		return false
	}
	if why := instantRefusal(st.Config); why != "" {
		st.Log.Info().Str("reason", why).Msg("--attempt-instant-ddl: not attempted; running the full migration")
		return false
	}
	start := time.Now()
	st.Log.Info().Msg("Attempting to execute alter with ALGORITHM=INSTANT") // gh-ost's words
	for attempt := 1; ; attempt++ {
		err := instantAlter(ctx, st, spec.Body)
		if err == nil {
			break
		}
		if ctx.Err() != nil || !isLockWaitTimeout(err) || attempt >= st.Config.DefaultRetries {
			st.Log.Info().Msgf("ALGORITHM=INSTANT not supported for this operation, proceeding with original algorithm: %s",
				strings.Join(strings.Fields(err.Error()), " ")) // gh-ost's words
			return false
		}
		st.Log.Info().Int("attempt", attempt).Msg("--attempt-instant-ddl: lock wait timeout on the table; trying again")
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Duration(attempt) * InstantAttemptPause):
		}
	}
	st.Log.Info().Str("took", logfmt.Duration(time.Since(start))).
		Msgf("Success! table %s migrated instantly", table.Qualify(st.Plan.Original.Schema, st.Plan.Original.Name)) // gh-ost's words: no copy needed
	return true
}

// instantRefusal names why an instant ALTER must not be tried in this run ("" when it may).
func instantRefusal(cfg config.Config) string {
	switch {
	case cfg.TestOnReplica || cfg.MigrateOnReplica:
		return "--test-on-replica and --migrate-on-replica change the replica only"
	case cfg.DiscardForeignKeys:
		return "--discard-foreign-keys: an instant ALTER would keep the table's foreign keys"
	}
	return ""
}

// instantAlter runs the ALTER with ALGORITHM=INSTANT on the original, under the server's global
// time_zone and sql_mode (as the ghost's ALTER ran) and a lock_wait_timeout of twice the
// cut-over's.
func instantAlter(ctx context.Context, st *preflight.State, body string) error {
	conn, err := st.Primary.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// The pool's sessions are writer sessions; this one is given back changed: close it instead.
	defer conn.Raw(func(any) error { return driver.ErrBadConn }) //nolint:errcheck // marks the session unusable
	wait := max(int(2*st.Config.CutOverLockTimeout/time.Second), 1)
	if err := applySettings(ctx, conn, st.DDL, fmt.Sprintf(", SESSION lock_wait_timeout = %d", wait)); err != nil {
		return err
	}
	p := st.Plan
	_, err = conn.ExecContext(ctx, "ALTER TABLE "+table.Qualify(p.Original.Schema, p.Original.Name)+" "+body+", ALGORITHM=INSTANT")
	return err
}

func isLockWaitTimeout(err error) bool {
	var me *sqldriver.MySQLError
	return errors.As(err, &me) && me.Number == 1205
}

// AnalyzeGhost runs ANALYZE TABLE on the ghost (--analyze-ghost-table-before-cutover), so the
// table that takes the original's name has fresh index statistics. As in gh-ost a failure fails
// the run, before the cut-over.
func AnalyzeGhost(ctx context.Context, st *preflight.State) error {
	if !st.Config.AnalyzeGhostTable {
		return nil
	}
	p := st.Plan
	start := time.Now()
	rows, err := st.Primary.QueryContext(ctx, "ANALYZE TABLE "+table.Qualify(p.Original.Schema, p.GhostTable))
	if err != nil {
		return fmt.Errorf("--analyze-ghost-table-before-cutover: %w", err)
	}
	defer rows.Close()
	for rows.Next() { // Table, Op, Msg_type, Msg_text
		var tbl, op, typ, text string
		if err := rows.Scan(&tbl, &op, &typ, &text); err != nil {
			return fmt.Errorf("--analyze-ghost-table-before-cutover: %w", err)
		}
		if strings.EqualFold(typ, "error") {
			return fmt.Errorf("--analyze-ghost-table-before-cutover: ANALYZE TABLE %s: %s", p.GhostTable, text)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("--analyze-ghost-table-before-cutover: %w", err)
	}
	st.Log.Info().Str("took", logfmt.Duration(time.Since(start))).Msgf("ghost table %s analyzed", p.GhostTable)
	return nil
}
