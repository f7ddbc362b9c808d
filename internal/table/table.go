// Package table is the shared model of a MySQL/MariaDB table as go-ghostlite sees it: columns in
// ordinal order, unique keys, the names of the helper tables of a migration, identifier quoting and the small SQL fragments that more than one package builds.
//
// Invariants: every identifier that reaches SQL goes through QuoteIdent; Columns are kept in ordinal
// (binlog) order; a Key lists column names in index order. Nothing here writes to a server.
package table

import (
	"fmt"
	"strings"
)

// Column is one column of a table, as read from information_schema.
type Column struct {
	Name       string
	Position   int    // 1-based ordinal position; row images in the binlog follow this order
	DataType   string // lower case: "int", "varchar", "enum", ...
	ColumnType string // full type, lower case: "int(10) unsigned", "enum('a','b')"
	Nullable   bool
	Unsigned   bool
	Charset    string // empty for non-character types
	Collation  string
	// OctetLength is CHARACTER_OCTET_LENGTH: the byte length of BINARY(N)/CHAR(N) columns.
	OctetLength int64
	// FracDigits is DATETIME_PRECISION for temporal types.
	FracDigits int
	// EnumValues holds the members of an ENUM or SET, in declaration order (1-based in the binlog).
	EnumValues []string
	// Generated is true for VIRTUAL and STORED generated columns: never written by the tool.
	Generated bool
	// Stored marks a STORED (MariaDB: PERSISTENT) generated column; GenerationExpr is its
	// expression as information_schema shows it.
	Stored         bool
	GenerationExpr string
	// AutoIncrement marks the auto_increment column.
	AutoIncrement bool
	// NoDefault marks a NOT NULL column without a DEFAULT (not auto_increment, not generated): an
	// INSERT that leaves it out fails in strict mode, while the server's ALTER that adds it gives
	// every row the type's implicit default (ImplicitDefault).
	NoDefault bool
}

// Key is a unique key (the primary key included).
type Key struct {
	Name    string
	Columns []string
	Primary bool
	// HasPrefix is true when any column is indexed by a prefix (KEY(c(10))): not usable to chunk.
	HasPrefix bool
}

// Table is a base table with its columns and unique keys.
type Table struct {
	Schema     string
	Name       string
	Engine     string
	Columns    []Column
	UniqueKeys []Key // primary key first, then others in name order
}

// Column returns the named column (case-insensitive, as MySQL compares column names).
func (t *Table) Column(name string) (*Column, bool) {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return &t.Columns[i], true
		}
	}
	return nil, false
}

// Key returns the named unique key (case-insensitive).
func (t *Table) Key(name string) (*Key, bool) {
	for i := range t.UniqueKeys {
		if strings.EqualFold(t.UniqueKeys[i].Name, name) {
			return &t.UniqueKeys[i], true
		}
	}
	return nil, false
}

// QualifiedName is `schema`.`name`, quoted.
func (t *Table) QualifiedName() string { return Qualify(t.Schema, t.Name) }

// QuoteIdent quotes an identifier with backticks, doubling any backtick inside it.
func QuoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// Qualify returns `schema`.`name`.
func Qualify(schema, name string) string { return QuoteIdent(schema) + "." + QuoteIdent(name) }

// QuoteIdents quotes each name and joins them with ", ".
func QuoteIdents(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = QuoteIdent(n)
	}
	return strings.Join(q, ", ")
}

// Placeholders returns "?, ?, ..." with n placeholders.
func Placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// GhostName is the ghost table's name for a table: _<tbl>_gho (gh-ost's convention).
func GhostName(tbl string) string { return "_" + tbl + "_gho" }

// ChangelogName is the changelog table's name for the table tbl: _<tbl>_ghc (gh-ost's).
func ChangelogName(tbl string) string { return "_" + tbl + "_ghc" }

// CheckpointName is the checkpoint table's name: _<tbl>_ghk (gh-ost's --checkpoint).
func CheckpointName(tbl string) string { return "_" + tbl + "_ghk" }

// RevertedName is the name the live table takes when a --revert swaps it away: _<tbl>_rev_del
// (gh-ost's).
func RevertedName(tbl string) string { return "_" + tbl + "_rev_del" }

// OldName is the name the original takes at cut-over: _<tbl>_del, or _<tbl>_<timestamp>_del when
// a timestamp (for example "20261121180501") is given, as gh-ost's --timestamp-old-table does.
func OldName(tbl, timestamp string) string {
	if timestamp == "" {
		return "_" + tbl + "_del"
	}
	return fmt.Sprintf("_%s_%s_del", tbl, timestamp)
}

// MaxIdentifierLength is the longest table name MySQL and MariaDB accept.
const MaxIdentifierLength = 64
