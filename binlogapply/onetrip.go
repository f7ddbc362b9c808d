package binlogapply

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// One round trip per batch.
//
// At a few hundred writes a second most batches hold one or two changes, and sending BEGIN, the
// DELETE, SHOW WARNINGS, the INSERT, SHOW WARNINGS and COMMIT one by one costs the server more
// than the writes themselves. When Target accepts several statements per round trip, a batch is
// sent as one script:
//
//	START TRANSACTION; DELETE ...; SHOW COUNT(*) WARNINGS; SHOW WARNINGS;
//	                   INSERT ...; SHOW COUNT(*) WARNINGS; SHOW WARNINGS; COMMIT
//
// SHOW COUNT(*) WARNINGS and SHOW WARNINGS clear no warning on either flavor (on MySQL any SELECT,
// even SELECT @@warning_count, clears them), so each count and list belongs to the statement
// before them. The batch is done
// when every warning listed is a Note (which the server's own ALTER lets through, see
// checkWarnings) and the lists hold every warning counted. The server stops at the first statement that fails, leaving the
// transaction open: it is rolled back and the batch applied again statement by statement
// (writeChanges), which displaces rows on a unique-key clash and retries after a deadlock. A
// warning is seen only once the script has committed; the batch is applied again the same way,
// deterministically raises the same warning there, and fails the run naming it. The script is
// used only while no row is displaced, so it never needs displaced.go's bookkeeping.

// script collects a transaction's statements and their arguments.
type script struct {
	stmts []string
	args  []any
	slow  bool // a row must be inserted alone with its own sql_mode (enumzero.go): not by script
}

// collect moves the writer's pending DELETE and INSERT into its script.
func (w *writer) collect() {
	if len(w.dels) > 0 {
		q, args := w.p.deleteSQL(w.dels)
		w.script.stmts = append(w.script.stmts, q)
		w.script.args = append(w.script.args, args...)
	}
	w.script.slow = w.script.slow || w.relaxed
	if len(w.ins) > 0 {
		q, args := w.p.insertSQL(w.ins)
		w.script.stmts = append(w.script.stmts, q)
		w.script.args = append(w.script.args, args...)
	}
	w.reset()
}

// sql is the whole transaction: each statement followed by the read of its warning count.
func (s *script) sql() string {
	var b strings.Builder
	b.WriteString("START TRANSACTION")
	for _, q := range s.stmts {
		b.WriteString("; ")
		b.WriteString(q)
		b.WriteString("; SHOW COUNT(*) WARNINGS; SHOW WARNINGS")
	}
	b.WriteString("; COMMIT")
	return b.String()
}

// writeChangesOneTrip applies the batch in one round trip. done is false when the batch must be
// applied the slow way (a statement failed or warned); err is set only when the session's state
// is unknown (the rollback failed).
func (a *Applier) writeChangesOneTrip(ctx context.Context, conn *sql.Conn, batch []item) (done bool, err error) {
	w := &writer{p: a.plan, script: &script{}}
	w.reset()
	for _, it := range batch {
		if it.kind == itemChange {
			_ = w.add(ctx, it.ch) // collecting cannot fail
		}
	}
	_ = w.flush(ctx)
	if w.script.slow {
		return false, nil
	}
	if len(w.script.stmts) == 0 {
		return true, nil
	}
	if runScript(ctx, conn, w.script) {
		return true, nil
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		return false, fmt.Errorf("roll back a failed batch on %s: %w", a.plan.ghostTable, err)
	}
	return false, nil
}

// runScript sends the script and reports whether every statement ran with no warning but Notes,
// all of them listed, and the transaction committed. Counts come as one-column result sets,
// listed warnings as three-column ones.
func runScript(ctx context.Context, conn *sql.Conn, s *script) bool {
	rows, err := conn.QueryContext(ctx, s.sql(), s.args...)
	if err != nil {
		return false
	}
	defer rows.Close()
	counts, warnings, notes := 0, int64(0), int64(0)
	for {
		cols, err := rows.Columns()
		if err != nil {
			return false
		}
		for rows.Next() {
			switch len(cols) {
			case 1:
				var n int64
				if rows.Scan(&n) != nil {
					return false
				}
				counts++
				warnings += n
			case 3:
				var level, msg string
				var code int
				if rows.Scan(&level, &code, &msg) != nil || level != "Note" {
					return false
				}
				notes++
			default:
				return false
			}
		}
		if !rows.NextResultSet() {
			break
		}
	}
	return rows.Err() == nil && counts == len(s.stmts) && notes == warnings
}
