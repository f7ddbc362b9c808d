// Package tablelock keeps two migrations off one table and keeps a run's hands off tables that
// are not its own.
//
// The per-table migration lock (Lock) is a named user lock (GET_LOCK) held on a dedicated
// connection to the primary for the whole run. The server frees it with the connection, so a
// migration that dies never leaves it behind; two migrations of one table, even started through
// different replicas, meet on the primary and the second one refuses. The connection can still
// die under a live run (an idle-connection killer): the lock is then free and a second run may
// start. So the run checks it still holds the lock (Lock.Check) before every destructive step and
// stops when it does not, and it drops only tables it created itself (Owned).
//
// A run drops only tables it created (the ghost, the changelog) or migrated (the original, as
// the old table after the swap). It records each one's identity when it creates it (or before
// the cut-over, for the original) and, before dropping a name, checks both that it still holds
// the migration lock and that the table under the name is still the one it recorded. A second
// run that took the lock after this one lost it may have replaced the tables under the same
// names.
//
// Invariants:
//   - Nothing is dropped unless the lock is held at that moment and the table under the name
//     has the identity recorded when this run created it; a missing table is not an error.
//   - Taking the lock never waits: a held lock is a refusal that names its holder.
//   - The package knows nothing of the run: it imports only internal leaves.
package tablelock
