package migrator

import (
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// ColumnPair maps one column of the original to the ghost column that receives its values.
type ColumnPair struct {
	Original string
	Ghost    string
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

	// SharedKey is the unique key used to chunk the copy and to address rows when applying events:
	// OriginalKey names its columns in the original, GhostKey the same key in the ghost.
	OriginalKey table.Key
	GhostKey    table.Key

	// Columns are the columns copied and applied: present in both tables (after renames), never
	// generated in either. Columns dropped by the ALTER, or renamed with --skip-renamed-columns,
	// are not here.
	Columns []ColumnPair
	// Renames are the column renames read from the ALTER (original name -> new name).
	Renames map[string]string

	EstimatedRows int64 // optimizer estimate, or exact with --exact-rowcount

	GhostTable     string // _<tbl>_gho
	ChangelogTable string // _<tbl>_ghc
	OldTable       string // _<tbl>_del (or timestamped)
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
