package preflight

import (
	"fmt"
	"strings"
)

// PlanLines renders the plan as lines a person reads top to bottom (the dry run prints them);
// exactRowcount says the rows were (or will be) counted exactly. It holds no row data.
func PlanLines(st *State, exactRowcount bool) []string {
	p, cfg := st.Plan, st.Options
	orig := p.Original
	lines := []string{
		fmt.Sprintf("plan: migrate %s.%s on %s", orig.Schema, orig.Name, p.Flavor),
	}
	switch {
	case cfg.TestOnReplica:
		lines = append(lines, fmt.Sprintf("topology: --test-on-replica: everything on the replica %s; at cut-over replication is stopped, the tables swapped, then swapped back (both kept)",
			p.Inspected.Addr()))
	case cfg.MigrateOnReplica:
		lines = append(lines, fmt.Sprintf("topology: --migrate-on-replica: binlog read, tables created, copied and cut over on the replica %s; the primary is not touched",
			p.Inspected.Addr()))
	case p.InspectedIsReplica:
		lines = append(lines, fmt.Sprintf("topology: binlog read on %s (a replica); tables created and written on its primary %s",
			p.Inspected.Addr(), p.Primary.Addr()))
	default:
		lines = append(lines, fmt.Sprintf("topology: binlog read and tables written on %s (the primary)", p.Primary.Addr()))
	}
	lines = append(lines, "alter: "+cfg.Alter)
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
	if len(st.Columns.Dropped) > 0 {
		lines = append(lines, "columns dropped (their data is not copied): "+strings.Join(st.Columns.Dropped, ", "))
	}
	if len(st.Columns.SkippedRenamed) > 0 {
		lines = append(lines, "renamed columns not copied (--skip-renamed-columns; the new column gets its default): "+strings.Join(st.Columns.SkippedRenamed, ", "))
	}
	if len(st.Columns.Added) > 0 {
		lines = append(lines, "columns added (filled with their defaults): "+strings.Join(st.Columns.Added, ", "))
	}
	if len(st.Columns.Generated) > 0 {
		lines = append(lines, "generated columns (computed by the server, never copied): "+strings.Join(st.Columns.Generated, ", "))
	}
	if len(st.ForeignKeys) > 0 {
		lines = append(lines, "foreign keys of the original NOT carried to the new table: "+strings.Join(st.ForeignKeys, ", "))
	}
	if len(st.ReferencedBy) > 0 {
		lines = append(lines, "foreign keys referencing the original (they will follow it to "+p.OldTable+"): "+strings.Join(st.ReferencedBy, ", "))
	}
	for _, d := range st.Triggers {
		lines = append(lines, fmt.Sprintf("trigger %s (%s %s) recreated on the new table as %s at the cut-over (--include-triggers)", d.Name, d.Timing, d.Event, d.NewName))
	}
	if st.NullableKey {
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
