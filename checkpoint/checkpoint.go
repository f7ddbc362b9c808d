// Package checkpoint keeps a migration's checkpoints in the checkpoint table _<tbl>_ghk: where a
// resumed run may start again. It holds the table and its records (this file), the Writer a run
// runs beside its phases (writer.go), the record of the ALTER (alter.go) and the preconditions of
// a --resume, the scratch ghost's comparison included (resume.go). It knows nothing of the
// copier, the applier or the cut-over: what it reads of them comes in as small functions.
//
// Invariants:
//   - a record is one consistent point: every binlog event before Position is applied to the
//     ghost, Position is a transaction boundary, and every row of the original whose shared key
//     is at most Key (in the key's order) is in the ghost; a nil Key means no row is proven yet;
//   - records are only ever added (the older ones deleted after), so the last one is always whole;
//   - key values are kept as the bytes the server returned for them, hex-encoded, so they travel
//     back exactly (any charset, binary values);
//   - a cut-over record also says which tables it swapped and which columns it copied under
//     another name (Swap), so a --revert can map them back; a table made before that column
//     existed reads as records without a Swap, and Upgrade adds the column;
//   - every record written by a run says which ALTER it is of (Alter: the ALTER normalized, and
//     which original column each ghost column is copied from), so a --resume under another ALTER
//     or another column mapping is refused; a table made before that column existed reads as
//     records without an Alter.
package checkpoint

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Record is one checkpoint.
type Record struct {
	File string // binary log file of the position
	Pos  uint32 // offset in File: the end of a transaction
	GTID string // the GTID set at the position, when the server has GTIDs ("" otherwise)
	// Key is the shared-key value up to which the copy is complete (nil: none).
	Key []sql.RawBytes
	// RowsCopied and EventsApplied are the run's counters when the record was written (for the
	// logs of a resumed run).
	RowsCopied, EventsApplied int64
	At                        time.Time // when it was written (UTC, set by Write)
	// CutOver marks the record a successful cut-over keeps for --revert: Position was read under
	// the cut-over's lock, once every change of the original was applied, so every change of the
	// table's name after it is the new table's.
	CutOver bool
	// Swap is what a cut-over record's swap did (nil on other records, and on the records of a
	// checkpoint table made before it was kept).
	Swap *Swap
	// Alter is the ALTER the run that wrote the record migrates with (nil on the records of a
	// checkpoint table made before it was kept).
	Alter *Alter
}

// Alter identifies what a run copies: its ALTER, normalized (the same ALTER written in another
// case, spacing or quoting reads the same), and the original column each ghost column is copied
// from (flags such as --skip-renamed-columns change that under the same ALTER).
type Alter struct {
	Alter      string            `json:"alter"`
	CopiedFrom map[string]string `json:"copied_from"` // ghost column -> original column
	// Set are the tables cut over together with this one, itself included, sorted (nil when it is
	// migrated alone): a set resumes as the same set only.
	Set []string `json:"set,omitempty"`
}

// Swap is what a cut-over swapped: the table that took the name, the name the table it replaced
// took, and the columns copied under another name. A revert reads it to map columns back.
type Swap struct {
	Ghost string `json:"ghost"` // the table that took the table's name
	Old   string `json:"old"`   // the name the replaced table took
	// Renames maps a column of the replaced table to the column of the ghost its values went to,
	// for every column copied under another name (never nil in a record written by Write).
	Renames map[string]string `json:"renames"`
}

// swapColumn is the checkpoint table's column holding Swap as JSON (NULL when there is none);
// alterColumn holds Alter as JSON.
const (
	swapColumn  = "cut_over_swap"
	alterColumn = "alter_spec"
)

// addedColumns are the columns added to the table after its first version, with their
// definitions: Upgrade adds those a table lacks, Last reads NULL for them.
var addedColumns = []struct{ name, def string }{
	{swapColumn, "TEXT CHARACTER SET utf8mb4 NULL"},
	{alterColumn, "MEDIUMTEXT CHARACTER SET utf8mb4 NULL"},
}

// Coords is the record's position as gh-ost's log lines give it: "file:pos[ gtid=set]".
func (r Record) Coords() string {
	s := fmt.Sprintf("%s:%d", r.File, r.Pos)
	if r.GTID != "" {
		s += " gtid=" + r.GTID
	}
	return s
}

// String is the position and whether a key is recorded; it carries no row data.
func (r Record) String() string {
	s := fmt.Sprintf("%s:%d", r.File, r.Pos)
	if r.GTID != "" {
		s += " (gtid " + r.GTID + ")"
	}
	if r.Key == nil {
		return s + ", no chunk complete"
	}
	return s + ", copy complete up to a key"
}

// DDL creates the checkpoint table schema.name.
func DDL(schema, name string) string {
	return fmt.Sprintf(`CREATE TABLE %s (
  id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  written_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  binlog_file VARCHAR(512) NOT NULL,
  binlog_pos BIGINT UNSIGNED NOT NULL,
  gtid TEXT CHARACTER SET ascii NOT NULL,
  key_values MEDIUMTEXT CHARACTER SET ascii NULL,
  rows_copied BIGINT NOT NULL,
  events_applied BIGINT NOT NULL,
  is_cutover TINYINT NOT NULL DEFAULT 0,
  `+swapColumn+` TEXT CHARACTER SET utf8mb4 NULL,
  `+alterColumn+` MEDIUMTEXT CHARACTER SET utf8mb4 NULL,
  PRIMARY KEY (id)
) ENGINE=InnoDB`, table.Qualify(schema, name))
}

// Create creates the checkpoint table schema.name on db; it fails when a table has the name.
func Create(ctx context.Context, db *sql.DB, schema, name string) error {
	if _, err := db.ExecContext(ctx, DDL(schema, name)); err != nil {
		return fmt.Errorf("create checkpoint table %s: %w", name, err)
	}
	return nil
}

// Write adds rec to schema.name and deletes the records before it.
func Write(ctx context.Context, db *sql.DB, schema, name string, rec Record) error {
	var key sql.NullString
	if rec.Key != nil {
		vals := make([]string, len(rec.Key))
		for i, v := range rec.Key {
			vals[i] = hex.EncodeToString(v)
		}
		b, err := json.Marshal(vals)
		if err != nil {
			return fmt.Errorf("write checkpoint: %w", err)
		}
		key = sql.NullString{String: string(b), Valid: true}
	}
	var swap, alter sql.NullString
	if rec.Swap != nil {
		sw := *rec.Swap
		if sw.Renames == nil {
			sw.Renames = map[string]string{}
		}
		b, err := json.Marshal(sw)
		if err != nil {
			return fmt.Errorf("write checkpoint: %w", err)
		}
		swap = sql.NullString{String: string(b), Valid: true}
	}
	if rec.Alter != nil {
		b, err := json.Marshal(rec.Alter)
		if err != nil {
			return fmt.Errorf("write checkpoint: %w", err)
		}
		alter = sql.NullString{String: string(b), Valid: true}
	}
	t := table.Qualify(schema, name)
	res, err := db.ExecContext(ctx, "INSERT INTO "+t+" (written_at, binlog_file, binlog_pos, gtid, key_values, rows_copied, events_applied, is_cutover, "+swapColumn+", "+alterColumn+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		time.Now().UTC().Format("2006-01-02 15:04:05.000000"), rec.File, rec.Pos, rec.GTID, key, rec.RowsCopied, rec.EventsApplied, rec.CutOver, swap, alter)
	if err != nil {
		return fmt.Errorf("write checkpoint to %s: %w", t, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("write checkpoint to %s: %w", t, err)
	}
	if _, err := db.ExecContext(ctx, "DELETE FROM "+t+" WHERE id < ?", id); err != nil {
		return fmt.Errorf("delete older checkpoints from %s: %w", t, err)
	}
	return nil
}

// ErrNone is returned by Last when the table holds no checkpoint.
var ErrNone = errors.New("no checkpoint recorded")

// Last reads the latest record of schema.name (ErrNone when there is none). A table made before
// the swap or the alter column existed reads as records without a Swap or an Alter.
func Last(ctx context.Context, db *sql.DB, schema, name string) (Record, error) {
	var rec Record
	var key, swap, alter sql.NullString
	var at string
	has, err := columnsOf(ctx, db, schema, name)
	if err != nil {
		return rec, err
	}
	exprs := make([]string, len(addedColumns))
	for i, c := range addedColumns {
		exprs[i] = "NULL"
		if has[c.name] {
			exprs[i] = c.name
		}
	}
	err = db.QueryRowContext(ctx, "SELECT CAST(written_at AS CHAR), binlog_file, binlog_pos, gtid, key_values, rows_copied, events_applied, is_cutover, "+strings.Join(exprs, ", ")+" FROM "+
		table.Qualify(schema, name)+" ORDER BY id DESC LIMIT 1").
		Scan(&at, &rec.File, &rec.Pos, &rec.GTID, &key, &rec.RowsCopied, &rec.EventsApplied, &rec.CutOver, &swap, &alter)
	if errors.Is(err, sql.ErrNoRows) {
		return rec, ErrNone
	}
	if err != nil {
		return rec, fmt.Errorf("read checkpoint from %s.%s: %w", schema, name, err)
	}
	rec.At, _ = time.Parse("2006-01-02 15:04:05.999999", at)
	if swap.Valid {
		rec.Swap = &Swap{}
		if err := json.Unmarshal([]byte(swap.String), rec.Swap); err != nil {
			return rec, fmt.Errorf("read checkpoint from %s.%s: %s: %w", schema, name, swapColumn, err)
		}
	}
	if alter.Valid {
		rec.Alter = &Alter{}
		if err := json.Unmarshal([]byte(alter.String), rec.Alter); err != nil {
			return rec, fmt.Errorf("read checkpoint from %s.%s: %s: %w", schema, name, alterColumn, err)
		}
	}
	if rec.Key, err = decodeKey(key); err != nil {
		return rec, fmt.Errorf("read checkpoint from %s.%s: key values: %w", schema, name, err)
	}
	return rec, nil
}

// decodeKey reads the key_values column (nil when NULL).
func decodeKey(key sql.NullString) ([]sql.RawBytes, error) {
	if !key.Valid {
		return nil, nil
	}
	var vals []string
	if err := json.Unmarshal([]byte(key.String), &vals); err != nil {
		return nil, err
	}
	out := make([]sql.RawBytes, len(vals))
	for i, v := range vals {
		b, err := hex.DecodeString(v)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// columnsOf is the set of schema.name's columns among addedColumns (a table made by an older
// version lacks some).
func columnsOf(ctx context.Context, db *sql.DB, schema, name string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME IN (?, ?)",
		schema, name, addedColumns[0].name, addedColumns[1].name)
	if err != nil {
		return nil, fmt.Errorf("read the columns of %s.%s: %w", schema, name, err)
	}
	defer rows.Close()
	has := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("read the columns of %s.%s: %w", schema, name, err)
		}
		has[strings.ToLower(c)] = true
	}
	return has, rows.Err()
}

// Upgrade adds the columns a checkpoint table made by an older version lacks (a --resume adopts
// the table and writes records with them); a table that has them is left alone.
func Upgrade(ctx context.Context, db *sql.DB, schema, name string) error {
	has, err := columnsOf(ctx, db, schema, name)
	if err != nil {
		return err
	}
	for _, c := range addedColumns {
		if has[c.name] {
			continue
		}
		if _, err := db.ExecContext(ctx, "ALTER TABLE "+table.Qualify(schema, name)+" ADD COLUMN "+c.name+" "+c.def); err != nil {
			return fmt.Errorf("add %s to %s.%s: %w", c.name, schema, name, err)
		}
	}
	return nil
}

// BinaryLogs lists the binary log files the server still has (SHOW BINARY LOGS).
func BinaryLogs(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SHOW BINARY LOGS")
	if err != nil {
		return nil, fmt.Errorf("SHOW BINARY LOGS: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("SHOW BINARY LOGS: %w", err)
	}
	var files []string
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("SHOW BINARY LOGS: %w", err)
		}
		files = append(files, string(vals[0]))
	}
	return files, rows.Err()
}
