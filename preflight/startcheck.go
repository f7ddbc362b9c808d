package preflight

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Checks that close the gap between preparation and the start of the binlog stream.
//
// The binlog DDL watcher and the reader's XA bookkeeping see only what is logged from the stream's
// start position on. Preparation reads the original (its definition, its triggers) and creates the
// ghost earlier, so:
//
//   - a DDL on the original, or a CREATE TRIGGER on it, between preparation and the start position
//     would leave the ghost built from a stale definition and nothing would notice. Preparation
//     records the original's SHOW CREATE TABLE (without its AUTO_INCREMENT counter) and trigger
//     names before it inspects it (ReadSnapshot); right after the start position is
//     recorded they are read again and any difference stops the run with ErrOriginalAltered
//     (checkOriginalUnchanged). A change after that is in the stream and the watcher stops the run.
//   - an XA transaction prepared before the start position and committed after it cannot be
//     applied: the stream never saw its rows. A prepared XA transaction on the binlog source (or the
//     primary) refuses the run, once as a pre-flight check and again right after the start position
//     is recorded (checkNoPreparedXA). One committed between the position and the second check is
//     caught by the reader, which stops the run.

// Snapshot is what preparation saw of the original.
type Snapshot struct {
	Create   string   // SHOW CREATE TABLE without the AUTO_INCREMENT table option
	Triggers []string // trigger names, sorted
}

// ReadSnapshot reads the original's definition and triggers on db (the primary).
func ReadSnapshot(ctx context.Context, db *sql.DB, schema, tbl string) (Snapshot, error) {
	var name, create string
	if err := db.QueryRowContext(ctx, "SHOW CREATE TABLE "+table.Qualify(schema, tbl)).Scan(&name, &create); err != nil {
		return Snapshot{}, fmt.Errorf("read the definition of %s.%s: %w", schema, tbl, err)
	}
	triggers, err := dbconn.QueryStrings(ctx, db, `SELECT TRIGGER_NAME FROM information_schema.TRIGGERS
		WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? ORDER BY TRIGGER_NAME`, schema, tbl)
	if err != nil {
		return Snapshot{}, fmt.Errorf("read triggers of %s.%s: %w", schema, tbl, err)
	}
	return Snapshot{Create: table.WithoutAutoIncrement(create), Triggers: triggers}, nil
}

// checkOriginalUnchanged reads the original again and refuses, for good (IsFinal), when its
// definition or triggers differ from what preparation saw.
func checkOriginalUnchanged(ctx context.Context, st *State) error {
	schema, tbl := st.Plan.Original.Schema, st.Plan.Original.Name
	now, err := ReadSnapshot(ctx, st.Primary, schema, tbl)
	if err != nil {
		return fmt.Errorf("before the binlog stream starts: %w", err)
	}
	var what string
	switch {
	case now.Create != st.Original.Create:
		what = "its definition (SHOW CREATE TABLE) changed"
	case strings.Join(now.Triggers, ",") != strings.Join(st.Original.Triggers, ","):
		what = fmt.Sprintf("its triggers changed (now: %s)", strings.Join(now.Triggers, ", "))
	default:
		return nil
	}
	return final{fmt.Errorf("%s.%s was changed between the preparation and the start of the binlog stream: %s",
		schema, tbl, what)}
}

// preparedXA is one row of XA RECOVER.
type preparedXA struct {
	formatID, gtridLen, bqualLen int
	data                         []byte
}

// sql is the xid as XA COMMIT / XA ROLLBACK take it.
func (x preparedXA) sql() string {
	g, b := x.data, []byte(nil)
	if x.gtridLen >= 0 && x.gtridLen <= len(x.data) {
		g, b = x.data[:x.gtridLen], x.data[x.gtridLen:]
	}
	return fmt.Sprintf("X'%s',X'%s',%d", hex.EncodeToString(g), hex.EncodeToString(b), x.formatID)
}

// checkNoPreparedXA refuses to start while db (named addr) holds prepared XA transactions.
func checkNoPreparedXA(ctx context.Context, db *sql.DB, addr string) error {
	rows, err := db.QueryContext(ctx, "XA RECOVER")
	if err != nil {
		return fmt.Errorf("list prepared XA transactions on %s (XA RECOVER; MySQL needs the XA_RECOVER_ADMIN privilege): %w", addr, err)
	}
	defer rows.Close()
	var xids []string
	for rows.Next() {
		var x preparedXA
		if err := rows.Scan(&x.formatID, &x.gtridLen, &x.bqualLen, &x.data); err != nil {
			return fmt.Errorf("list prepared XA transactions on %s: %w", addr, err)
		}
		xids = append(xids, x.sql())
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("list prepared XA transactions on %s: %w", addr, err)
	}
	if len(xids) == 0 {
		return nil
	}
	shown := xids
	if len(shown) > 5 {
		shown = append(shown[:5:5], "...")
	}
	return fmt.Errorf("%s holds %d prepared XA transaction(s) (%s); one committed after the migration starts could not be applied: commit or roll back each (XA COMMIT <xid> / XA ROLLBACK <xid>, see XA RECOVER) and retry",
		addr, len(xids), strings.Join(shown, "; "))
}

// checkPreparedXA runs checkNoPreparedXA on the binlog source and, when it is a replica,
// on the primary too.
func checkPreparedXA(ctx context.Context, st *State) error {
	if err := checkNoPreparedXA(ctx, st.Inspected, st.Plan.Inspected.Addr()); err != nil {
		return err
	}
	if st.Primary != st.Inspected {
		return checkNoPreparedXA(ctx, st.Primary, st.Plan.Primary.Addr())
	}
	return nil
}
