// Package ddl makes the statements of a migration that change a table or the server outside
// copying rows, applying the binary log and the cut-over's renames: building the ghost from the
// plan (ghost.go: CREATE TABLE ... LIKE and the ALTER in the server's settings, the CHECK
// constraints' names on MySQL, checknames.go), the --attempt-instant-ddl ALTER on the original and
// ANALYZE TABLE of the ghost (instant.go), the triggers and the AUTO_INCREMENT counter carried to
// the ghost under the cut-over's lock (triggers.go, autoinc.go), the exact count beside the copy
// and the KILL QUERY that stops it (rowcount.go), the dry run's probe table (review.go), and what
// a flag asks of the server (server.go: --switch-to-rbr, --initially-drop-*, the metadata lock
// instrument).
//
// Invariants:
//   - It decides nothing: what to build is plan's, whether it may be done is preflight's (a
//     change a flag asks for is recorded by its check in preflight.State and made here); the
//     conductor calls each function at its phase.
//   - A session whose settings it changes (the DDL settings, a trigger's sql_mode) is closed or
//     restored, never given back changed to the writers' pool.
//   - The original is changed only by the INSTANT attempt (--attempt-instant-ddl), which the
//     server either does at once or refuses untouched.
//   - It imports plan and preflight (for the State the checks filled) and internal leaves; only
//     the conductor imports it.
package ddl
