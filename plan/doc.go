// Package plan says what a migration will do, decided once during preparation and read by every
// phase after it: the ALTER parsed (alter.go: its clauses, renames, recreated columns, and the
// refusal of an ALTER that reaches another table, alterreach.go), what each ghost column is copied
// from (columns.go: ColumnMapping, ColumnPair), the unique key shared by both tables (keychoice.go;
// whether it compares alike, sharedkey.go), the columns added NOT NULL without a default and what
// fills them (fill.go), the server's settings the ghost's ALTER runs in and what they decide for
// the writers (ddlsettings.go), the triggers carried and the indirect writers watched, and the
// Plan that holds it all (plan.go), with its lines for a person (planlines.go) and the dry run's
// review (review.go).
//
// Invariants:
//   - It reads and never writes: every statement here is a SELECT or a SHOW; creating the ghost
//     from the plan, and every other change, is ddl's.
//   - A decision has one home: the copy, the applier, the checksum and the cut-over read the
//     Plan's fields and methods (SelectExprs, GhostKeyExprs, FillExprs, ...) and never decide
//     again.
//   - What the server's own ALTER would give decides every choice: a conversion, a fill, a key
//     that stays distinct (KeysStayDistinct, ComparedByBytes).
//   - It knows nothing of the run or the checks: it imports only internal leaves. The checks
//     (preflight) call it and refuse what it cannot plan.
package plan
