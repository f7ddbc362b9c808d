package checksum

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// repairAttempts is how often a repair rolled back by a deadlock or a lock wait timeout (the
// applier writes the same rows) is tried.
const repairAttempts = 5

// repair copies the span again from the original into the ghost, in one transaction: the ghost's
// rows of the span are deleted, then the original's rows of the span are inserted, read with
// shared locks (the latest committed versions). Why the applier, which goes on meanwhile, still
// converges: a change to the original's rows committed before the read is in the rows written
// here, and an applied event for it (the applier may still be behind) writes that row's full
// image, which later events of the same row overwrite in binlog order; a change committed after
// the read waited for this transaction's shared locks, so it comes later in the binlog and is
// applied over what was written here. The ghost's rows of the span are locked from the DELETE on
// (next-key locks), so an applied change to them waits for the commit.
//
// Where the key changes (c.whole) the span is the whole table: every ghost row is deleted and
// every row of the original inserted again, through the copy's expressions, as the server's ALTER
// converts them; the original's rows are share-locked until the commit (the application's writes
// to them wait). Two rows of the original whose keys are equal in the ghost (its collation) fail
// the insert with a duplicate key, as they fail the server's ALTER: the run fails, naming them.
func (c *Checksum) repair(ctx context.Context, sp span) error {
	var err error
	for attempt := 1; attempt <= repairAttempts; attempt++ {
		if err = c.repairOnce(ctx, sp); err == nil || !transient(err) {
			break
		}
	}
	var me *mysql.MySQLError
	if c.whole != "" && errors.As(err, &me) && me.Number == 1062 {
		return fmt.Errorf("checksum: copy the whole table again (%s): rows of %s clash on a unique key of the new table, as they would in the server's ALTER: %w; the original table is untouched",
			c.whole, c.cfg.Original.Name, err)
	}
	if err != nil {
		return fmt.Errorf("checksum: copy keys %s again: %w", c.describe(sp), err)
	}
	return nil
}

func (c *Checksum) repairOnce(ctx context.Context, sp span) error {
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	gw, ga := c.ranges.Where(c.ghostKey, sp.lower, sp.inclusive, sp.upper)
	if _, err := tx.ExecContext(ctx, "DELETE FROM "+table.Qualify(c.cfg.Original.Schema, c.cfg.GhostTable)+" WHERE "+gw, ga...); err != nil {
		return err
	}
	ow, oa := c.ranges.Where(c.origKey, sp.lower, sp.inclusive, sp.upper)
	ghostCols, selects := make([]string, len(c.cfg.Pairs)), make([]string, len(c.cfg.Pairs))
	for i, p := range c.cfg.Pairs {
		ghostCols[i], selects[i] = p.Ghost, p.Select
	}
	q := fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s WHERE %s LOCK IN SHARE MODE",
		table.Qualify(c.cfg.Original.Schema, c.cfg.GhostTable), table.QuoteIdents(ghostCols), strings.Join(selects, ", "), c.from, ow)
	if _, err := tx.ExecContext(ctx, q, oa...); err != nil {
		return err
	}
	if err := onlyNotes(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

// onlyNotes fails when the last statement left a warning other than a Note (a strict session
// turns most into errors already): no value is changed silently.
func onlyNotes(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var level, msg string
		var code int
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return err
		}
		if level != "Note" {
			return fmt.Errorf("copying the rows again: %s %d: %s", level, code, msg)
		}
	}
	return rows.Err()
}

// transient is true for InnoDB's deadlock (1213) and lock wait timeout (1205).
func transient(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}
