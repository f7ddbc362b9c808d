package plan

import (
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// ColumnPair maps one column of the original to the ghost column that receives its values.
type ColumnPair struct {
	Original string
	Ghost    string
	// Shift is the time zone conversion between them (TIMESTAMP <-> DATETIME/DATE), done in
	// Plan.TimeZone as the server's own ALTER would.
	Shift table.ZoneShift
	// Pad is the padding of a CHAR value going to a column of another type when the server's
	// sql_mode has PAD_CHAR_TO_FULL_LENGTH (Plan.PadChar), as the server's own ALTER reads it.
	Pad table.PadChar
}

// Plan is what the preparation phase decided; execution follows it and never re-decides.
type Plan struct {
	Flavor dbconn.Flavor

	// Inspected is the server given on the command line: its binary log is read.
	Inspected dbconn.Config
	// Primary is where tables are created and written (the same as Inspected when running on it).
	Primary dbconn.Config
	// InspectedIsReplica is true when the given server replicates from Primary.
	InspectedIsReplica bool

	Original *table.Table // the table being migrated, as inspected
	Ghost    *table.Table // the ghost table after the ALTER, as inspected from the server
	// IndirectWriters are the views over the original and the tables whose triggers write it
	// (writers.go): their statement-logged writes stop the run like the original's.
	IndirectWriters []IndirectWriter

	// The shared key: the copy walks the original in OriginalKey's order; the ghost's rows are
	// addressed by GhostKey (applied events, the copy's duplicate and missing-row checks). Both are
	// the same key over the same columns, or GhostKey is a unique key of the ghost whose columns all
	// come from the original and include OriginalKey's (chooseSharedKey).
	OriginalKey table.Key
	GhostKey    table.Key

	// Columns are the columns copied and applied: present in both tables (after renames), never
	// generated in either. Columns dropped by the ALTER, or renamed with --skip-renamed-columns,
	// are not here.
	Columns []ColumnPair
	// Renames are the column renames read from the ALTER (original name -> new name).
	Renames map[string]string
	// Mapping is the whole column mapping, for the plan's lines: dropped, added, generated columns.
	Mapping ColumnMapping
	// Fills are the ghost columns added NOT NULL without a DEFAULT: the copy and the applier write
	// the type's implicit default into them, as the server's own ALTER does (fill.go).
	Fills []table.Fill

	// AlterSetsAutoIncrement is true when the ALTER sets the AUTO_INCREMENT table option: the
	// cut-over then leaves the ghost's counter alone instead of carrying the original's.
	AlterSetsAutoIncrement bool

	// TimeZone is the primary's global time_zone: the zone of the server's own ALTER, in which
	// ColumnPair.Shift conversions are made.
	TimeZone string
	// PadChar is true when the primary's global sql_mode has PAD_CHAR_TO_FULL_LENGTH: the server's
	// own ALTER then reads CHAR values padded to their length (ColumnPair.Pad).
	PadChar bool

	EstimatedRows int64 // optimizer estimate, or exact with --exact-rowcount

	// ForeignKeys are the original's own foreign keys (not carried to the ghost), ReferencedBy the
	// foreign keys of other tables referencing the original (they follow it to OldTable).
	ForeignKeys  []string
	ReferencedBy []string
	// Triggers are the original's triggers, recreated on the ghost at the cut-over
	// (--include-triggers).
	Triggers []Trigger
	// NullableKey: the shared key has nullable columns (--allow-nullable-unique-key); the
	// cut-over proves again that it holds no NULL.
	NullableKey bool

	GhostTable     string // _<tbl>_gho
	ChangelogTable string // _<tbl>_ghc
	OldTable       string // _<tbl>_del (or timestamped)
	// CheckpointTable is _<tbl>_ghk (--checkpoint, --resume).
	CheckpointTable string
}

// OriginalColumns lists the original-side names of Columns.
func (p *Plan) OriginalColumns() []string {
	out := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		out[i] = c.Original
	}
	return out
}

// GhostColumns lists the ghost-side names of Columns.
func (p *Plan) GhostColumns() []string {
	out := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		out[i] = c.Ghost
	}
	return out
}

// SelectExprs are the copy's SELECT expressions for Columns, reading the original's columns
// qualified by qualifier (empty for none): the column itself, its time zone conversion, or the
// conversion that gives what the server's own ALTER gives (table.ConvertExpr).
func (p *Plan) SelectExprs(qualifier string) []string {
	out := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		out[i] = p.SelectExpr(c, qualifier)
	}
	return out
}

// SelectExpr is the copy's SELECT expression of column pair c (SelectExprs).
func (p *Plan) SelectExpr(c ColumnPair, qualifier string) string {
	col := table.QuoteIdent(c.Original)
	if qualifier != "" {
		col = qualifier + "." + col
	}
	if c.Shift == table.ZoneNone && p.Original != nil && p.Ghost != nil {
		oc, ok := p.Original.Column(c.Original)
		gc, ok2 := p.Ghost.Column(c.Ghost)
		if ok && ok2 {
			col = table.ConvertExpr(oc, gc, col, !p.Flavor.MariaDB)
			if !p.Flavor.MariaDB {
				col = table.DateAsNumber(oc, gc, col)
			}
		}
	}
	if c.Shift == table.ZoneFromUTC && p.Original != nil && p.Ghost != nil {
		oc, ok := p.Original.Column(c.Original)
		gc, ok2 := p.Ghost.Column(c.Ghost)
		if ok && ok2 {
			wall := table.WallClockExpr(oc, gc, c.Shift, table.ZoneExpr(col, c.Shift, p.TimeZone), !p.Flavor.MariaDB)
			if zt, ok := table.ZeroTimestampExpr(oc, gc, col, wall, p.Flavor.MariaDB); ok && p.Primary.NoZeroDate {
				return c.Pad.Expr(zt)
			}
			guarded := table.ZeroDateGuard(col, p.Primary.NoZeroDate, p.Primary.NoZeroInDate)
			return c.Pad.Expr(table.WallClockExpr(oc, gc, c.Shift, table.ZoneExpr(guarded, c.Shift, p.TimeZone), !p.Flavor.MariaDB))
		}
	}
	if c.Shift == table.ZoneToUTC || c.Shift == table.ZoneFromUTC {
		col = table.ZeroDateGuard(col, p.Primary.NoZeroDate, p.Primary.NoZeroInDate)
	}
	return c.Pad.Expr(table.ZoneExpr(col, c.Shift, p.TimeZone))
}

// SetPadding sets ColumnPair.Pad of every column when the server pads CHAR values.
func (p *Plan) SetPadding() error {
	if !p.PadChar {
		return nil
	}
	for i, c := range p.Columns {
		oc, ok := p.Original.Column(c.Original)
		gc, ok2 := p.Ghost.Column(c.Ghost)
		if !ok || !ok2 {
			return fmt.Errorf("column %s: not in both tables", c.Original)
		}
		pad, err := table.PadCharOf(oc, gc)
		if err != nil {
			return err
		}
		p.Columns[i].Pad = pad
	}
	return nil
}

// pairOfGhost returns the column pair whose ghost column is name.
func (p *Plan) pairOfGhost(name string) (ColumnPair, bool) {
	for _, c := range p.Columns {
		if strings.EqualFold(c.Ghost, name) {
			return c, true
		}
	}
	return ColumnPair{}, false
}

// GhostKeyOriginalColumns names the original's columns copied into the columns of GhostKey, in
// its order: the applier reads them from each row image to address the row in the ghost.
func (p *Plan) GhostKeyOriginalColumns() []string {
	out := make([]string, len(p.GhostKey.Columns))
	for i, g := range p.GhostKey.Columns {
		out[i] = g
		if pair, ok := p.pairOfGhost(g); ok {
			out[i] = pair.Original
		}
	}
	return out
}

// GhostKeyExprs give the value of each column of GhostKey as the copy writes it, read from the
// original qualified by qualifier: the select expression of its column pair, or the column of
// the same name; a character value in the ghost column's character set and collation, so that
// it compares with the ghost's column through the ghost's index (two collations of one character
// set do not compare at all: "Illegal mix of collations").
func (p *Plan) GhostKeyExprs(qualifier string) []string {
	out := make([]string, len(p.GhostKey.Columns))
	for i, g := range p.GhostKey.Columns {
		out[i] = qualifier + "." + table.QuoteIdent(g)
		if pair, ok := p.pairOfGhost(g); ok {
			out[i] = p.SelectExpr(pair, qualifier)
		}
		if gc := p.ghostColumn(g); gc != nil && isCharacterString(gc) && gc.Collation != "" {
			out[i] = "CONVERT(" + out[i] + " USING " + gc.Charset + ") COLLATE " + gc.Collation
		}
	}
	return out
}

// GhostKeyByBytes names the columns of GhostKey by whose exact bytes ghost rows are addressed
// (preflight.ComparedByBytes): their collation changes so that keys distinct in one table may be
// equal in the other. Empty when the ghost's key compares as the original's does.
func (p *Plan) GhostKeyByBytes() []string {
	var out []string
	for _, g := range p.GhostKey.Columns {
		pair, ok := p.pairOfGhost(g)
		if !ok || p.Original == nil {
			continue
		}
		oc, ok := p.Original.Column(pair.Original)
		if gc := p.ghostColumn(g); ok && gc != nil && ComparedByBytes(oc, gc) {
			out = append(out, g)
		}
	}
	return out
}

// GhostKeyBytesMatch give, for each column of GhostKey, the condition that the ghost row aliased
// ghostAlias holds the exact bytes of the value the copy writes there (GhostKeyExprs over the
// original qualified by qualifier), or "" for a column not addressed by its bytes
// (GhostKeyByBytes).
func (p *Plan) GhostKeyBytesMatch(qualifier, ghostAlias string) []string {
	exprs := p.GhostKeyExprs(qualifier)
	byBytes := p.GhostKeyByBytes()
	out := make([]string, len(exprs))
	for i, g := range p.GhostKey.Columns {
		if gc := p.ghostColumn(g); gc != nil && containsColumns(byBytes, []string{g}) {
			out[i] = table.ColumnBytes(ghostAlias+"."+table.QuoteIdent(g), gc) + " = " + table.KeyBytes(exprs[i], gc)
		}
	}
	return out
}

// ghostColumn is the ghost's column name, nil when unknown (or no ghost is inspected).
func (p *Plan) ghostColumn(name string) *table.Column {
	if p.Ghost == nil {
		return nil
	}
	gc, _ := p.Ghost.Column(name)
	return gc
}

// Trigger is one trigger of the original, as information_schema.TRIGGERS shows it.
type Trigger struct {
	Name, NewName           string
	Timing, Event           string // BEFORE/AFTER, INSERT/UPDATE/DELETE
	Statement               string // the body
	SQLMode                 string
	CharsetClient, CollConn string
}

// RenamedPairs are the pairs of the plan's column mapping copied under another name, original ->
// ghost: what a cut-over checkpoint records (checkpoint.Swap) for a revert to map back.
func (p *Plan) RenamedPairs() map[string]string {
	out := map[string]string{}
	for _, c := range p.Columns {
		if !strings.EqualFold(c.Original, c.Ghost) {
			out[c.Original] = c.Ghost
		}
	}
	return out
}

// HelperTables names the original and the run's helper tables, as checkpoints record them.
func (p *Plan) HelperTables() checkpoint.Tables {
	return checkpoint.Tables{Schema: p.Original.Schema, Original: p.Original.Name,
		Ghost: p.GhostTable, Changelog: p.ChangelogTable, Checkpoint: p.CheckpointTable}
}
