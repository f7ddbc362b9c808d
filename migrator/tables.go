package migrator

import (
	"context"
	"slices"
	"sync"
)

// The run's hold on its tables: the per-table migration lock and the identities of the tables it
// created live in tablelock; these are the session's call sites. The run checks the lock before
// every destructive step and drops only the tables it recorded; before the swap it proves the
// ghost is the table it built (preflight/ghostproof.go).

// checkMutex returns an error wrapping tablelock.ErrLost unless the session still holds its
// migration lock (tablelock.Lock.Check).
func (s *session) checkMutex(ctx context.Context) error { return s.lock.Check(ctx) }

// own records the identity of the table under name as this run's, under the key as (the name
// the table will have when it is dropped: the old table's name for the original).
func (s *session) own(ctx context.Context, as, name string) {
	if ok, err := s.owned.Record(ctx, s.primary, s.plan.Original.Schema, as, name); !ok {
		s.log.Warn().Err(err).Str("table", name).Msg("could not record the table's identity: it will not be dropped automatically")
	}
}

// dropOwned drops the table name while this run holds its lock and the table is the one it
// recorded (tablelock.Owned.Drop).
func (s *session) dropOwned(ctx context.Context, name string) error {
	return s.owned.Drop(ctx, s.primary, s.lock, s.plan.Original.Schema, name)
}

// rebuiltTables are table names an OPTIMIZE TABLE rebuilt: InnoDB recreates the table, which gets
// a new table id (its identity) and keeps its definition and rows. The applier marks them as it
// reads the statement; the conductor re-records their identities (refreshRebuilt).
type rebuiltTables struct {
	mu    sync.Mutex
	names []string
}

// mark records name as rebuilt (the applier's reading goroutine calls it).
func (r *rebuiltTables) mark(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.names, name) {
		r.names = append(r.names, name)
	}
}

// take returns the names marked since the last take.
func (r *rebuiltTables) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.names
	r.names = nil
	return out
}

// refreshRebuilt records anew the identity of every table of the run that an OPTIMIZE TABLE read
// from the binary log rebuilt: so the old table and the helpers are still dropped as this run's,
// and the ghost is still proved the table this run built. The cut-over calls it under its lock,
// once every event before the lock was read: no rebuild can be missed, and the original is still
// under its own name. A rebuild is told from a replacement by the statement in the binary log; a
// table put under the name any other way is still refused.
func (s *session) refreshRebuilt(ctx context.Context) {
	p := s.plan
	for _, name := range s.rebuilt.take() {
		as := name
		if name == p.Original.Name {
			as = p.OldTable
		}
		if !s.owned.Has(as) {
			continue
		}
		s.own(ctx, as, name)
		if name == p.GhostTable && s.pre.GhostIdentity != "" {
			if id, ok := s.owned.Recorded(as); ok {
				s.pre.GhostIdentity = id
			}
		}
		s.log.Info().Str("table", name).Msg("the table was rebuilt by an OPTIMIZE TABLE read from the binary log: its new identity is recorded as this run's")
	}
}
