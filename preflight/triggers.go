package preflight

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// Triggers (--include-triggers, as gh-ost's). A table with triggers is refused without the flag.
// With it, the original's triggers stay on the original during the copy (they fire there for the
// application's writes; what they write to other tables reaches those tables, and what they change
// in the row itself is in its row image, applied to the ghost). Only at the cut-over, under the
// lock and once every change is applied, are they created on the ghost (cutover.Config.UnderLock),
// so they never fire for the copy or the applier's writes; a failed attempt drops them from the
// ghost before the lock is released (UndoUnderLock). The ghost then takes the table's name with
// them. Each keeps its timing, event, body, order among its peers, sql_mode and character set;
// its name gets --trigger-suffix (or loses it: --remove-trigger-suffix-if-exists).

// newTriggerName is name with the suffix appended, or removed when asked and present.
func newTriggerName(c config.Config, name string) string {
	if c.RemoveTriggerSuffix && strings.HasSuffix(name, c.TriggerSuffix) && len(name) > len(c.TriggerSuffix) {
		return strings.TrimSuffix(name, c.TriggerSuffix)
	}
	return name + c.TriggerSuffix
}

// readTriggers reads the original's triggers in the order they fire, and refuses as gh-ost does:
// a table with triggers without --include-triggers, a new name too long or already taken.
func readTriggers(ctx context.Context, c config.Config, db *sql.DB, schema, tbl string) ([]plan.Trigger, error) {
	rows, err := db.QueryContext(ctx, `SELECT TRIGGER_NAME, ACTION_TIMING, EVENT_MANIPULATION FROM information_schema.TRIGGERS
		WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? ORDER BY ACTION_TIMING, EVENT_MANIPULATION, ACTION_ORDER`, schema, tbl)
	if err != nil {
		return nil, fmt.Errorf("read triggers of %s.%s: %w", schema, tbl, err)
	}
	defer rows.Close()
	var defs []plan.Trigger
	var names []string
	for rows.Next() {
		var d plan.Trigger
		if err := rows.Scan(&d.Name, &d.Timing, &d.Event); err != nil {
			return nil, fmt.Errorf("read triggers of %s.%s: %w", schema, tbl, err)
		}
		d.NewName = newTriggerName(c, d.Name)
		defs = append(defs, d)
		names = append(names, d.Name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read triggers of %s.%s: %w", schema, tbl, err)
	}
	if len(defs) == 0 {
		return nil, nil
	}
	for i := range defs {
		if err := readTriggerBody(ctx, db, schema, &defs[i]); err != nil {
			return nil, err
		}
	}
	if !c.IncludeTriggers {
		return nil, fmt.Errorf("found triggers on %s.%s. Tables with triggers are supported only when using \"include-triggers\" flag: %s has triggers (%s); pass --include-triggers --trigger-suffix=_new to recreate them on the new table at the cut-over, or drop them for the migration",
			schema, tbl, tbl, strings.Join(names, ", "))
	}
	return defs, checkNewTriggerNames(ctx, db, schema, defs)
}

// readTriggerBody reads d's body, sql_mode and character set from SHOW CREATE TRIGGER: its
// statement is the text as the client sent it, in the client's character set (information_schema's
// ACTION_STATEMENT is converted, which garbles the non-ASCII text of a trigger created by a client
// whose character set is not utf8). The body is what follows FOR EACH ROW [FOLLOWS|PRECEDES name].
func readTriggerBody(ctx context.Context, db *sql.DB, schema string, d *plan.Trigger) error {
	rows, err := db.QueryContext(ctx, "SHOW CREATE TRIGGER "+table.Qualify(schema, d.Name))
	if err != nil {
		return fmt.Errorf("read trigger %s: %w", d.Name, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil || len(cols) < 5 || !rows.Next() {
		return fmt.Errorf("read trigger %s: SHOW CREATE TRIGGER returned no definition (%v)", d.Name, err)
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return fmt.Errorf("read trigger %s: %w", d.Name, err)
	}
	// Trigger, sql_mode, SQL Original Statement, character_set_client, collation_connection, ...
	d.SQLMode, d.CharsetClient, d.CollConn = vals[1].String, vals[3].String, vals[4].String
	mode := strings.ToUpper(d.SQLMode)
	toks, err := sqltok.Tokenize(vals[2].String, sqltok.Options{
		NoBackslashEscapes: strings.Contains(mode, "NO_BACKSLASH_ESCAPES"), AnsiQuotes: strings.Contains(mode, "ANSI_QUOTES")})
	if err != nil {
		return fmt.Errorf("read trigger %s: %w", d.Name, err)
	}
	for i := 0; i+3 < len(toks); i++ {
		if !toks[i].IsWord("FOR") || !toks[i+1].IsWord("EACH") || !toks[i+2].IsWord("ROW") {
			continue
		}
		body := i + 3
		if (toks[body].IsWord("FOLLOWS") || toks[body].IsWord("PRECEDES")) && body+2 < len(toks) {
			body += 2
		}
		d.Statement = vals[2].String[toks[body].Start:]
		return rows.Close()
	}
	return fmt.Errorf("read trigger %s: no FOR EACH ROW in its definition", d.Name)
}

// checkNewTriggerNames refuses new trigger names that are too long or already in the schema.
func checkNewTriggerNames(ctx context.Context, db *sql.DB, schema string, defs []plan.Trigger) error {
	var long, taken []string
	for _, d := range defs {
		if table.TooLong(d.NewName) {
			long = append(long, d.NewName)
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ? AND TRIGGER_NAME = ?`,
			schema, d.NewName).Scan(&n); err != nil {
			return fmt.Errorf("look up trigger %s: %w", d.NewName, err)
		}
		if n > 0 {
			taken = append(taken, d.NewName)
		}
	}
	if len(long) > 0 {
		return fmt.Errorf("gh-ost triggers (%s) length > 64 characters. Bailing out: a trigger name has 64 characters at most; use a shorter --trigger-suffix", strings.Join(long, ", "))
	}
	if len(taken) > 0 {
		return fmt.Errorf("found gh-ost triggers (%s). Please use a different suffix or drop them. Bailing out: those names are taken in %s",
			strings.Join(taken, ", "), schema)
	}
	return nil
}

// checkTriggersUnchanged refuses, for good (IsFinal), to carry triggers that are no
// longer the original's: the binlog watch stops the run on a CREATE TRIGGER on the original, but a
// DROP TRIGGER names no table, so the names are read again under the lock (information_schema
// reads the locked table's triggers without waiting for the lock).
func checkTriggersUnchanged(ctx context.Context, st *State) error {
	if len(st.Plan.Triggers) == 0 {
		return nil
	}
	o := st.Plan.Original
	now, err := dbconn.QueryStrings(ctx, st.Primary, `SELECT TRIGGER_NAME FROM information_schema.TRIGGERS
		WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? ORDER BY TRIGGER_NAME`, o.Schema, o.Name)
	if err != nil {
		return fmt.Errorf("read triggers of %s.%s: %w", o.Schema, o.Name, err)
	}
	if strings.Join(now, ",") != strings.Join(st.Original.Triggers, ",") {
		return final{fmt.Errorf("the triggers of %s.%s changed during the migration (now: %s; at the start: %s): run the migration again",
			o.Schema, o.Name, strings.Join(now, ", "), strings.Join(st.Original.Triggers, ", "))}
	}
	return nil
}
