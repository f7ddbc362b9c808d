package plan

import (
	"fmt"
	"strings"
)

// Lines renders the plan as lines a person reads top to bottom (the dry run prints them): alter
// is the ALTER as given, replicaMode the replica mode's flag ("--test-on-replica",
// "--migrate-on-replica" or "" for none); exactRowcount says the rows were (or will be) counted
// exactly. It holds no row data.
func (p *Plan) Lines(alter, replicaMode string, exactRowcount bool) []string {
	orig := p.Original
	lines := []string{
		fmt.Sprintf("plan: migrate %s.%s on %s", orig.Schema, orig.Name, p.Flavor),
	}
	switch {
	case replicaMode == "--test-on-replica":
		lines = append(lines, fmt.Sprintf("topology: --test-on-replica: everything on the replica %s; at cut-over replication is stopped, the tables swapped, then swapped back (both kept)",
			p.Inspected.Addr()))
	case replicaMode == "--migrate-on-replica":
		lines = append(lines, fmt.Sprintf("topology: --migrate-on-replica: binlog read, tables created, copied and cut over on the replica %s; the primary is not touched",
			p.Inspected.Addr()))
	case p.InspectedIsReplica:
		lines = append(lines, fmt.Sprintf("topology: binlog read on %s (a replica); tables created and written on its primary %s",
			p.Inspected.Addr(), p.Primary.Addr()))
	default:
		lines = append(lines, fmt.Sprintf("topology: binlog read and tables written on %s (the primary)", p.Primary.Addr()))
	}
	lines = append(lines, "alter: "+alter)
	key := "shared key: " + DescribeKey(p.OriginalKey)
	if !SameColumns(p.OriginalKey.Columns, p.GhostKey.Columns) || p.OriginalKey.Name != p.GhostKey.Name {
		key += " -> " + DescribeKey(p.GhostKey) + " in the ghost"
	}
	lines = append(lines, key)
	cols := make([]string, len(p.Columns))
	for i, c := range p.Columns {
		cols[i] = c.Original
		if c.Original != c.Ghost {
			cols[i] = c.Original + " -> " + c.Ghost + " (renamed)"
		}
	}
	lines = append(lines, fmt.Sprintf("columns copied (%d): %s", len(cols), strings.Join(cols, ", ")))
	if len(p.Mapping.Dropped) > 0 {
		lines = append(lines, "columns dropped (their data is not copied): "+strings.Join(p.Mapping.Dropped, ", "))
	}
	if len(p.Mapping.SkippedRenamed) > 0 {
		lines = append(lines, "renamed columns not copied (--skip-renamed-columns; the new column gets its default): "+strings.Join(p.Mapping.SkippedRenamed, ", "))
	}
	if len(p.Mapping.Added) > 0 {
		lines = append(lines, "columns added (filled with their defaults): "+strings.Join(p.Mapping.Added, ", "))
	}
	if len(p.Mapping.Generated) > 0 {
		lines = append(lines, "generated columns (computed by the server, never copied): "+strings.Join(p.Mapping.Generated, ", "))
	}
	if len(p.ForeignKeys) > 0 {
		lines = append(lines, "foreign keys of the original NOT carried to the new table: "+strings.Join(p.ForeignKeys, ", "))
	}
	if len(p.ReferencedBy) > 0 {
		lines = append(lines, "foreign keys referencing the original (they will follow it to "+p.OldTable+"): "+strings.Join(p.ReferencedBy, ", "))
	}
	for _, d := range p.Triggers {
		lines = append(lines, fmt.Sprintf("trigger %s (%s %s) recreated on the new table as %s at the cut-over (--include-triggers)", d.Name, d.Timing, d.Event, d.NewName))
	}
	if p.NullableKey {
		lines = append(lines, "shared key "+DescribeKey(p.OriginalKey)+" has nullable columns (--allow-nullable-unique-key): no NULL now; checked again at the cut-over")
	}
	how := "optimizer estimate; --exact-rowcount counts them"
	if exactRowcount {
		how = "exact count"
	}
	lines = append(lines,
		fmt.Sprintf("rows: %d (%s)", p.EstimatedRows, how),
		fmt.Sprintf("helper tables: ghost %s, changelog %s, old table after cut-over %s", p.GhostTable, p.ChangelogTable, p.OldTable),
	)
	return lines
}
