package plan

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// DDLSettings are the session settings the ghost's CREATE and ALTER run with: the server's global
// ones, so the ALTER is accepted or refused (and its literal defaults read) as the server's own
// ALTER would be.
type DDLSettings struct {
	TimeZone string // @@global.time_zone
	SQLMode  string // @@global.sql_mode, relaxed by --allow-zero-in-date / --skip-strict-mode
}

// ReadDDLSettings reads the primary's global time zone and sql_mode and applies the relaxing flags.
func ReadDDLSettings(ctx context.Context, db *sql.DB, allowZeroInDate, skipStrict bool) (DDLSettings, error) {
	var d DDLSettings
	if err := db.QueryRowContext(ctx, "SELECT @@global.time_zone, @@global.sql_mode").Scan(&d.TimeZone, &d.SQLMode); err != nil {
		return d, fmt.Errorf("read the server's global time_zone and sql_mode: %w", err)
	}
	d.SQLMode = relaxSQLMode(d.SQLMode, allowZeroInDate, skipStrict)
	return d, nil
}

// relaxSQLMode removes NO_ZERO_IN_DATE and NO_ZERO_DATE (--allow-zero-in-date) and the strict
// modes (--skip-strict-mode) from mode.
func relaxSQLMode(mode string, allowZeroInDate, skipStrict bool) string {
	var keep []string
	for _, m := range strings.Split(mode, ",") {
		u := strings.ToUpper(strings.TrimSpace(m))
		switch {
		case u == "":
			continue
		case allowZeroInDate && (u == "NO_ZERO_IN_DATE" || u == "NO_ZERO_DATE"):
			continue
		case skipStrict && (u == "STRICT_ALL_TABLES" || u == "STRICT_TRANS_TABLES"):
			continue
		}
		keep = append(keep, u)
	}
	return strings.Join(keep, ",")
}

// ZeroDateChecks says which zero dates the writers must refuse so that the copy and the applier
// refuse what the server's own ALTER refuses under sql_mode mode (the DDL settings' mode), or
// changes: the ALTER checks every temporal value it stores, in a column it does not touch too.
// With a strict mode it refuses a zero date under NO_ZERO_DATE and a zero month or day
// ('2020-00-10') under NO_ZERO_IN_DATE. Without one it stores a zero date as it is (so the writers
// take it) but turns a zero month or day into the zero date, which the writers, strict always,
// refuse as they refuse every other change a non-strict ALTER would make. The writers get the
// checks through dbconn.Config.NoZeroDate and NoZeroInDate.
func ZeroDateChecks(mode string) (noZeroDate, noZeroInDate bool) {
	strict := false
	for _, m := range strings.Split(strings.ToUpper(mode), ",") {
		switch strings.TrimSpace(m) {
		case "NO_ZERO_DATE":
			noZeroDate = true
		case "NO_ZERO_IN_DATE":
			noZeroInDate = true
		case "STRICT_ALL_TABLES", "STRICT_TRANS_TABLES":
			strict = true
		}
	}
	return noZeroDate && strict, noZeroInDate
}

// UseDDLSettings records in the plan what the server's settings d decide for the copy and the
// applier: the time zone of the conversions, the zero dates the writers refuse, the sql_mode's
// value modes, and whether the ALTER (spec) sets the AUTO_INCREMENT counter itself.
func (p *Plan) UseDDLSettings(d DDLSettings, spec *AlterSpec) {
	p.TimeZone = d.TimeZone
	p.Primary.NoZeroDate, p.Primary.NoZeroInDate = ZeroDateChecks(d.SQLMode)
	p.Primary.ValueModes = dbconn.ValueModes(d.SQLMode)
	p.AlterSetsAutoIncrement = SetsAutoIncrement(spec)
}
