package migrator

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/preflight"
	"github.com/go-ghostlite/go-ghostlite/tablelock"
)

// Before the swap the run proves that the table under the ghost's name is the one it prepared:
// the same table (its identity, tablelock.Identity: a table dropped and created again under the name has
// another) with the same definition and triggers as when preparation ended (SHOW CREATE TABLE
// without the AUTO_INCREMENT counter, which the cut-over itself sets). The binlog watch stops the
// run on such a change as soon as it is read (binlogapply/stmtwatch.go); this proof, under the
// cut-over's lock, also covers what the watch cannot see (a change on a server the binlog is not
// read from). A failure is cutover.ErrUnsafe: no retry can change it.

// recordGhost records the ghost's definition and triggers as preparation leaves them.
func (s *session) recordGhost(ctx context.Context) error {
	snap, err := preflight.ReadSnapshot(ctx, s.primary, s.plan.Original.Schema, s.plan.GhostTable)
	if err != nil {
		return fmt.Errorf("record the ghost table: %w", err)
	}
	s.ghost = snap
	return nil
}

// proveGhost checks, under the cut-over's lock, that the ghost is still what recordGhost saw.
func (s *session) proveGhost(ctx context.Context) error {
	schema, ghost := s.plan.Original.Schema, s.plan.GhostTable
	unsafe := func(what string) error {
		return fmt.Errorf("%w: the ghost table %s.%s %s since preparation: it is not the table this run built; drop it and run the migration again",
			cutover.ErrUnsafe, schema, ghost, what)
	}
	if want, ok := s.owned.Recorded(ghost); ok {
		got, err := tablelock.Identity(ctx, s.primary, schema, ghost)
		switch {
		case err != nil:
			return fmt.Errorf("before the swap: %w", err)
		case got == "":
			return unsafe("was dropped")
		case got != want:
			return unsafe(fmt.Sprintf("was replaced by another table (%s, this run's was %s)", got, want))
		}
	}
	now, err := preflight.ReadSnapshot(ctx, s.primary, schema, ghost)
	if err != nil {
		return fmt.Errorf("before the swap: %w", err)
	}
	if now.Create != s.ghost.Create {
		return unsafe("changed its definition (SHOW CREATE TABLE)")
	}
	if !slices.Equal(now.Triggers, s.ghost.Triggers) {
		return unsafe(fmt.Sprintf("changed its triggers (now %v)", now.Triggers))
	}
	return nil
}
