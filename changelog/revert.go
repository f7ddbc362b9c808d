package changelog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
)

// RevertNames are the names of a --revert's cut-over: Ghost is the old table the revert swaps
// back into place, Old the name the live table takes. A revert records them in its changelog
// (WriteRevert); the crash recovery decides on them (cutover.CrashConfig.Revert).
type RevertNames struct {
	Ghost string `json:"ghost"`
	Old   string `json:"old"`
}

// WriteRevert records a revert's cut-over names in the revert row.
func (t Table) WriteRevert(ctx context.Context, db Execer, names RevertNames) error {
	b, err := json.Marshal(names)
	if err != nil {
		return err
	}
	if err := t.write(ctx, db, HintRevert, string(b)); err != nil {
		return fmt.Errorf("record its tables in %s: %w", t.Name, err)
	}
	return nil
}

// ReadRevert reads the names a revert recorded in the changelog of schema.tbl: nil when there is
// no changelog, it is not a revert's, or the table under its name is not a changelog at all.
func ReadRevert(ctx context.Context, db *sql.DB, schema, tbl string) (*RevertNames, error) {
	t := Of(schema, tbl)
	if ok, err := t.exists(ctx, db); err != nil || !ok {
		return nil, err
	}
	var value string
	err := db.QueryRowContext(ctx, "SELECT value FROM "+t.qualified()+" WHERE hint = ?", HintRevert).Scan(&value)
	var me *mysql.MySQLError
	if errors.Is(err, sql.ErrNoRows) || (errors.As(err, &me) && (me.Number == 1054 || me.Number == 1146)) { // no such column, or table
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s.%s: %w", schema, t.Name, err)
	}
	var rev RevertNames
	if err := json.Unmarshal([]byte(value), &rev); err != nil || rev.Ghost == "" || rev.Old == "" {
		return nil, fmt.Errorf("%s.%s: the revert's tables %q cannot be read (%v): look at the tables by hand", schema, t.Name, value, err)
	}
	return &rev, nil
}

// exists tells whether a table has the changelog's name.
func (t Table) exists(ctx context.Context, db *sql.DB) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`,
		t.Schema, t.Name).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("look up table %s.%s: %w", t.Schema, t.Name, err)
	}
	return n > 0, nil
}
