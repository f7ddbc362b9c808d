// Package changelog owns a migration's changelog table, _<tbl>_ghc: its name, its creation, and
// every row the tool writes to it or reads from it, on the server or in the binary log.
//
// The table holds one row per hint (the unique key), rewritten in place:
//   - "state": the run's phase, for scripts (best effort: it is informative);
//   - "heartbeat": the writer's UTC time, RFC3339Nano, by the migration's own clock; its copy on a
//     server (ReadHeartbeat) and its arrival in the binary log tell how far behind they are;
//   - "sentinel": a unique token written under the cut-over's lock (AwaitSentinel): once the binlog
//     applier has applied it, it has applied every event before it;
//   - "revert": written by a --revert only, right after it creates its changelog and long before
//     its cut-over renames anything: the names its cut-over swaps (RevertNames), which a
//     --recover-cut-over reads back (ReadRevert).
//
// Invariants:
//   - the layout is fixed: id (1), last_update (2), hint (3), value (4); the binlog applier reads
//     hint and value from row images by position (ParseImage), so the columns never move;
//   - every write is one upsert of (hint, value): no statement ever deletes a row, so the stream
//     never carries a changelog delete that means anything;
//   - a heartbeat write that fails is not fatal (the lag it measures grows, which throttles), except
//     when the table no longer exists (ErrGone): no retry brings it back;
//   - a table under the changelog's name that is not a changelog reads as "no revert" (ReadRevert),
//     never as an error, so a user's table with that name does not block a recovery.
//
// The package writes and reads rows only; dropping the table is the run's (it drops only the
// table it created, tablelock.Owned) or the crash recovery's (cutover.RecoverCrashed).
package changelog

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Hints: the value of the hint column of each row (see the package comment).
const (
	HintHeartbeat = "heartbeat" // value: the writer's UTC time, RFC3339Nano
	HintState     = "state"     // value: the migration's state name
	HintSentinel  = "sentinel"  // value: a unique token written under the cut-over lock
	// HintRevert is written by a --revert only: its cut-over's names, JSON {"ghost": the old
	// table it swaps back, "old": the name the live table takes}, for --recover-cut-over.
	HintRevert = "revert"
)

// 1-based positions of hint and value in a row image of the table (the layout is fixed).
const (
	hintColumn  = 3
	valueColumn = 4
)

// Execer is what writing rows needs: *sql.DB, *sql.Conn and *sql.Tx all satisfy it.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Table is one changelog table: Name in Schema (the migrated table's schema).
type Table struct {
	Schema, Name string
}

// Of is the changelog table of schema.tbl.
func Of(schema, tbl string) Table { return Table{Schema: schema, Name: table.ChangelogName(tbl)} }

// Create creates the table; it fails when a table has the name already.
func (t Table) Create(ctx context.Context, db Execer) error {
	ddl := fmt.Sprintf(`CREATE TABLE %s (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  last_update TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  hint VARCHAR(64) CHARACTER SET ascii NOT NULL,
  value VARCHAR(4096) CHARACTER SET utf8mb4 NOT NULL,
  PRIMARY KEY (id),
  UNIQUE KEY hint_uidx (hint)
) ENGINE=InnoDB`, t.qualified())
	if _, err := db.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("create changelog table %s: %w", t.Name, err)
	}
	return nil
}

// Adopt keeps the table when it exists (a --resume continues the stopped run's) and creates it
// when it does not.
func (t Table) Adopt(ctx context.Context, db *sql.DB) error {
	exists, err := table.Exists(ctx, db, t.Schema, t.Name)
	if err != nil || exists {
		return err
	}
	return t.Create(ctx, db)
}

// WriteState records the run's state (its phase's name) in the state row.
func (t Table) WriteState(ctx context.Context, db Execer, state string) error {
	return t.write(ctx, db, HintState, state)
}

// write upserts the row of hint with value.
func (t Table) write(ctx context.Context, db Execer, hint, value string) error {
	q := "INSERT INTO " + t.qualified() + " (hint, value) VALUES (?, ?) ON DUPLICATE KEY UPDATE value = VALUES(value), last_update = CURRENT_TIMESTAMP(6)"
	_, err := db.ExecContext(ctx, q, hint, value)
	return err
}

// selectValue is the query reading the value of one hint's row; the hint is a literal, not a
// placeholder, so the statement is sent as is (one round trip, no prepared statement).
func (t Table) selectValue(hint string) string {
	return "SELECT value FROM " + t.qualified() + " WHERE hint = '" + hint + "'"
}

func (t Table) qualified() string { return table.Qualify(t.Schema, t.Name) }
