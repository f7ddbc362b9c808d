package migrator

import "context"

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
