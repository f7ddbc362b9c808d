package migrator

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
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
//     names before it inspects it (readOriginalSnapshot); right after the start position is
//     recorded they are read again and any difference stops the run with ErrOriginalAltered
//     (checkOriginalUnchanged). A change after that is in the stream and the watcher stops the run.
//   - an XA transaction prepared before the start position and committed after it cannot be
//     applied: the stream never saw its rows. A prepared XA transaction on the binlog source (or the
//     primary) refuses the run, once as a pre-flight check and again right after the start position
//     is recorded (checkNoPreparedXA). One committed between the position and the second check is
//     caught by the reader, which stops the run.

// originalSnapshot is what preparation saw of the original.
type originalSnapshot struct {
	create   string   // SHOW CREATE TABLE without the AUTO_INCREMENT table option
	triggers []string // trigger names, sorted
}

// autoIncOption is the table option that changes with every insert; it is not part of the definition.
var autoIncOption = regexp.MustCompile(` AUTO_INCREMENT=[0-9]+`)

// readOriginalSnapshot reads the original's definition and triggers on db (the primary).
func readOriginalSnapshot(ctx context.Context, db *sql.DB, schema, tbl string) (originalSnapshot, error) {
	var name, create string
	if err := db.QueryRowContext(ctx, "SHOW CREATE TABLE "+table.Qualify(schema, tbl)).Scan(&name, &create); err != nil {
		return originalSnapshot{}, fmt.Errorf("read the definition of %s.%s: %w", schema, tbl, err)
	}
	triggers, err := queryStrings(ctx, db, `SELECT TRIGGER_NAME FROM information_schema.TRIGGERS
		WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? ORDER BY TRIGGER_NAME`, schema, tbl)
	if err != nil {
		return originalSnapshot{}, fmt.Errorf("read triggers of %s.%s: %w", schema, tbl, err)
	}
	return originalSnapshot{create: autoIncOption.ReplaceAllString(create, ""), triggers: triggers}, nil
}

// checkOriginalUnchanged reads the original again and fails with ErrOriginalAltered when its
// definition or triggers differ from what preparation saw.
func (m *Migrator) checkOriginalUnchanged(ctx context.Context, s *session) error {
	schema, tbl := s.plan.Original.Schema, s.plan.Original.Name
	now, err := readOriginalSnapshot(ctx, s.primary, schema, tbl)
	if err != nil {
		return fmt.Errorf("before the binlog stream starts: %w", err)
	}
	var what string
	switch {
	case now.create != s.original.create:
		what = "its definition (SHOW CREATE TABLE) changed"
	case strings.Join(now.triggers, ",") != strings.Join(s.original.triggers, ","):
		what = fmt.Sprintf("its triggers changed (now: %s)", strings.Join(now.triggers, ", "))
	default:
		return nil
	}
	return fmt.Errorf("%s.%s was changed between the preparation and the start of the binlog stream: %s: %w",
		schema, tbl, what, binlogapply.ErrOriginalAltered)
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

// checkNoPreparedXAAnywhere runs checkNoPreparedXA on the binlog source and, when it is a replica,
// on the primary too.
func checkNoPreparedXAAnywhere(ctx context.Context, s *session) error {
	if err := checkNoPreparedXA(ctx, s.inspected, s.plan.Inspected.Addr()); err != nil {
		return err
	}
	if s.primary != s.inspected {
		return checkNoPreparedXA(ctx, s.primary, s.plan.Primary.Addr())
	}
	return nil
}
