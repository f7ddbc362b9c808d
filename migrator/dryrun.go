package migrator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/preflight"
)

// The dry run (no --execute) stops after preparation: the ALTER has been proven on the ghost, the
// plan is printed, the ghost dropped and the lock released. It never writes the original table.

// planLines renders the plan as lines a person reads top to bottom. It holds no row data.
func planLines(s *session, cfg Config) []string {
	p := s.plan
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
	key := "shared key: " + preflight.DescribeKey(p.OriginalKey)
	if !preflight.SameColumns(p.OriginalKey.Columns, p.GhostKey.Columns) || p.OriginalKey.Name != p.GhostKey.Name {
		key += " -> " + preflight.DescribeKey(p.GhostKey) + " in the ghost"
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
	if len(s.pre.Columns.Dropped) > 0 {
		lines = append(lines, "columns dropped (their data is not copied): "+strings.Join(s.pre.Columns.Dropped, ", "))
	}
	if len(s.pre.Columns.SkippedRenamed) > 0 {
		lines = append(lines, "renamed columns not copied (--skip-renamed-columns; the new column gets its default): "+strings.Join(s.pre.Columns.SkippedRenamed, ", "))
	}
	if len(s.pre.Columns.Added) > 0 {
		lines = append(lines, "columns added (filled with their defaults): "+strings.Join(s.pre.Columns.Added, ", "))
	}
	if len(s.pre.Columns.Generated) > 0 {
		lines = append(lines, "generated columns (computed by the server, never copied): "+strings.Join(s.pre.Columns.Generated, ", "))
	}
	if len(s.pre.ForeignKeys) > 0 {
		lines = append(lines, "foreign keys of the original NOT carried to the new table: "+strings.Join(s.pre.ForeignKeys, ", "))
	}
	if len(s.pre.ReferencedBy) > 0 {
		lines = append(lines, "foreign keys referencing the original (they will follow it to "+p.OldTable+"): "+strings.Join(s.pre.ReferencedBy, ", "))
	}
	for _, d := range s.pre.Triggers {
		lines = append(lines, fmt.Sprintf("trigger %s (%s %s) recreated on the new table as %s at the cut-over (--include-triggers)", d.Name, d.Timing, d.Event, d.NewName))
	}
	if s.pre.NullableKey {
		lines = append(lines, "shared key "+preflight.DescribeKey(p.OriginalKey)+" has nullable columns (--allow-nullable-unique-key): no NULL now; checked again at the cut-over")
	}
	how := "optimizer estimate; --exact-rowcount counts them"
	if cfg.ExactRowcount {
		how = "exact count"
	}
	lines = append(lines,
		fmt.Sprintf("rows: %d (%s)", p.EstimatedRows, how),
		fmt.Sprintf("helper tables: ghost %s, changelog %s, old table after cut-over %s", p.GhostTable, p.ChangelogTable, p.OldTable),
	)
	return lines
}

// dryRun prints the plan, drops the ghost and releases the session.
func (m *Migrator) dryRun(ctx context.Context, s *session) error {
	defer s.close()
	p := s.plan
	for _, line := range planLines(s, m.cfg) {
		m.log.Info().Msg(line)
	}
	m.log.Info().
		Str("flavor", p.Flavor.String()).
		Str("binlog_from", p.Inspected.Addr()).
		Str("writes_to", p.Primary.Addr()).
		Str("shared_key", p.OriginalKey.Name).
		Int("columns", len(p.Columns)).
		Int64("estimated_rows", p.EstimatedRows).
		Msg("dry run: the ALTER works on the ghost table; pass --execute to migrate")
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := m.dropGhost(cctx, s); err != nil {
		return fmt.Errorf("dry run: %w", err)
	}
	return nil
}
