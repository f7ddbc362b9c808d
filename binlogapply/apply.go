package binlogapply

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	sqldriver "github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

const (
	maxStatementBytes = 4 << 20 // flush a multi-row INSERT beyond this many (estimated) bytes
	maxBatchItems     = 4096    // markers taken per batch besides row changes
)

// apply takes items off the queue in order and commits them to the ghost in batches of at most
// DMLBatchSize row changes; it never waits for a batch to fill. While more items wait than that,
// a batch takes up to backlogBatchFactor times as many (batchLimit): behind, the applier spends
// one round trip and one multi-row DELETE and INSERT on many changes instead of a few.
func (a *Applier) apply(ctx context.Context, q <-chan item) error {
	conn, err := a.cfg.Target.Conn(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("connect applier session: %w", err)
	}
	defer conn.Close()
	defer a.discardSession(conn)
	var batch []item
	for {
		size := batchLimit(a.DMLBatchSize(), len(q))
		batch = batch[:0]
		select {
		case <-ctx.Done():
			return nil
		case h := <-a.holds: // locked.go
			if err := a.serveHold(ctx, conn, q, h); err != nil {
				return err
			}
			continue
		case req := <-a.track.settles: // track.go
			if err := a.settle(ctx, conn, req); err != nil {
				return err
			}
			continue
		case it := <-q:
			batch = append(batch, it)
		}
		n := countChanges(batch[:1])
	fill:
		for n < size && len(batch) < maxBatchItems && batch[len(batch)-1].kind != itemFatal {
			select {
			case it := <-q:
				batch = append(batch, it)
				if it.kind == itemChange {
					n++
				}
			default:
				break fill
			}
		}
		if err := a.applyBatch(ctx, conn, batch, n); err != nil {
			return err
		}
	}
}

// backlogBatchFactor bounds how much larger than --dml-batch-size a batch grows while the
// applier is behind.
const backlogBatchFactor = 10

// batchLimit is the most row changes the next batch takes: size (--dml-batch-size), or, while
// more than size items wait, as many as wait up to backlogBatchFactor times size.
func batchLimit(size, waiting int) int {
	return max(size, min(waiting, backlogBatchFactor*size))
}

func countChanges(items []item) int {
	n := 0
	for _, it := range items {
		if it.kind == itemChange {
			n++
		}
	}
	return n
}

// applyBatch commits the batch's row changes in one transaction, repairs displaced rows at a
// sentinel or heartbeat (displaced.go), then publishes its markers (positions, heartbeats,
// sentinels) in order: each of them now has everything before it applied.
func (a *Applier) applyBatch(ctx context.Context, conn *sql.Conn, batch []item, n int) error {
	if n > 0 {
		err := a.retryTransient(ctx, func() error { return a.writeChanges(ctx, conn, batch) })
		if err != nil || ctx.Err() != nil {
			return a.ghostGoneLate(err) // laterows.go
		}
		a.recordApplied(batch) // track.go
		a.backlog.Add(int64(-n))
	}
	if err := a.settleDisplaced(ctx, conn, batch); err != nil || ctx.Err() != nil {
		return err
	}
	a.countApplied(n)
	return a.publish(batch)
}

// publish makes the markers of an applied batch known, in order: positions, heartbeats,
// sentinels, the swap; a fatal item ends it with its error.
func (a *Applier) publish(batch []item) error {
	for _, it := range batch {
		switch it.kind {
		case itemPosition:
			a.mu.Lock()
			a.stats.Applied = it.pos
			a.mu.Unlock()
		case itemHeartbeat:
			a.mu.Lock()
			a.stats.LastHeartbeat = it.hb
			a.mu.Unlock()
		case itemSentinel:
			a.sentinelApplied(it.value)
			a.log.Debug().Str("sentinel", it.value).Msg("sentinel applied")
		case itemSwap:
			if err := a.swapReached(it.value); err != nil { // laterows.go
				return err
			}
		case itemFatal:
			return it.err
		}
	}
	return nil
}

// countApplied adds a committed transaction of n row changes to the statistics.
func (a *Applier) countApplied(n int) {
	a.mu.Lock()
	a.stats.EventsApplied += int64(n)
	if n > 0 {
		a.stats.Transactions++
	}
	a.mu.Unlock()
}

// execQuerier is where the writer sends its statements: a transaction, or a session.
type execQuerier interface {
	dbconn.Querier
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// transientAttempts bounds how often a batch rolled back by a deadlock or a lock wait timeout is
// tried again. The row copy's INSERT ... SELECT and the applier lock the same ghost rows (and the
// AUTO-INC lock), so InnoDB sometimes picks the applier as the deadlock victim.
const transientAttempts = 20

// retryTransient runs one transaction (applying a batch, or repairing displaced rows), trying it
// again after a deadlock or a lock wait timeout: InnoDB rolled it back entirely, and both are
// idempotent (a batch deletes by key, then inserts). It returns nil when ctx ends.
func (a *Applier) retryTransient(ctx context.Context, txn func() error) error {
	for attempt := 1; ; attempt++ {
		err := txn()
		if err == nil || attempt >= transientAttempts || !isTransient(err) || ctx.Err() != nil {
			return err
		}
		a.log.Debug().Int("attempt", attempt).Msg("transaction rolled back by a deadlock or lock wait timeout; retrying")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Duration(attempt) * 5 * time.Millisecond):
		}
	}
}

// isTransient is true for InnoDB's deadlock (1213) and lock wait timeout (1205).
func isTransient(err error) bool {
	var me *sqldriver.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}

// writeChanges applies the batch's row changes in one transaction: in one round trip when it can
// (onetrip.go), otherwise statement by statement, which also handles clashes and warnings.
func (a *Applier) writeChanges(ctx context.Context, conn *sql.Conn, batch []item) error {
	if a.cfg.OneTrip && a.displaced.count == 0 {
		done, err := a.writeChangesOneTrip(ctx, conn, batch)
		if done || err != nil {
			return err
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin applying transaction: %w", err)
	}
	w := &writer{p: a.plan, tx: tx, d: a.displaced}
	w.reset()
	for _, it := range batch {
		if it.kind != itemChange {
			continue
		}
		if err := w.add(ctx, it.ch); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	if err := w.flush(ctx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit applied changes to %s: %w", a.plan.ghostTable, err)
	}
	if w.displacedDelta != 0 {
		a.displaced.count += int(w.displacedDelta)
		a.mu.Lock()
		a.stats.Displaced = a.displaced.count
		a.mu.Unlock()
	}
	if w.moved > 0 {
		a.displaced.moved.Add(w.moved)
		a.log.Debug().Int64("moved", w.moved).Int("displaced", a.displaced.count).Msg("ghost rows displaced by clashes on unique keys")
	}
	return nil
}

// writer merges consecutive row changes into one DELETE (by shared key) followed by one multi-row
// INSERT. A change to a key whose row is already pending in the INSERT replaces that row (the
// last image of a key wins), which is provably the same as applying both in order: every key of
// the pending INSERT is in the pending DELETE, so the ghost ends with the key deleted and then
// holding its last image, or none. The pending rows are then the last images of their keys, rows
// that coexisted in the original, so their order inside the INSERT does not matter. What the
// dropped image would have done on its way (a clash moving a ghost row aside, a warning) concerns
// a row the ghost never keeps. An INSERT that fails on a duplicate is redone row by row,
// displacing the ghost rows a row clashes with (displaced.go).
type writer struct {
	p        *plan
	tx       execQuerier // the applying transaction (or the cut-over's locking session: locked.go)
	dels     [][]any
	delSet   map[string]bool
	ins      [][]any
	insRelax [][]string     // per row of ins: ENUM columns given their error value (enumzero.go)
	relaxed  bool           // some row of ins has them: rows are inserted one by one
	insAt    map[string]int // key -> index of its pending row in ins (nil once replaced)
	dropped  bool           // some row of ins was replaced: compact before use
	insBytes int

	script *script // when set, statements are collected for one round trip instead of run

	d *displacedSet
	// noDisplace: a clash fails the write instead of moving ghost rows aside (locked.go: the
	// displaced table lives on the applier's own session).
	noDisplace bool
	// displacedDelta is the change of d.count made by this transaction and moved the number of
	// ghost rows it displaced; both count once it commits.
	displacedDelta int64
	moved          int64
}

func (w *writer) reset() {
	w.dels, w.ins, w.insRelax, w.insBytes, w.relaxed, w.dropped = w.dels[:0], w.ins[:0], w.insRelax[:0], 0, false, false
	w.delSet, w.insAt = map[string]bool{}, map[string]int{}
}

func (w *writer) add(ctx context.Context, ch *change) error {
	var keys [][]any
	switch ch.kind {
	case chInsert:
		keys = [][]any{ch.newKey}
	case chUpdate:
		// The after image's key is cleared too: the row copy may have copied it already.
		keys = [][]any{ch.oldKey}
		if keyString(ch.newKey) != keyString(ch.oldKey) {
			keys = append(keys, ch.newKey)
		}
	case chDelete:
		keys = [][]any{ch.oldKey}
	}
	for _, k := range keys {
		ks := keyString(k)
		if i, ok := w.insAt[ks]; ok { // pending, so ks is in dels too
			w.ins[i], w.insRelax[i], w.dropped = nil, nil, true
			delete(w.insAt, ks)
		}
		if !w.delSet[ks] {
			w.delSet[ks] = true
			w.dels = append(w.dels, k)
		}
	}
	if ch.values == nil {
		return nil
	}
	if len(w.ins) > 0 && w.insBytes+ch.size > maxStatementBytes {
		if err := w.flush(ctx); err != nil {
			return err
		}
	}
	w.ins = append(w.ins, ch.values)
	w.insRelax = append(w.insRelax, ch.relax)
	w.relaxed = w.relaxed || len(ch.relax) > 0
	w.insAt[keyString(ch.newKey)] = len(w.ins) - 1
	w.insBytes += ch.size
	return nil
}

// compact removes the replaced rows from ins.
func (w *writer) compact() {
	if !w.dropped {
		return
	}
	n := 0
	for i, r := range w.ins {
		if r != nil {
			w.ins[n], w.insRelax[n] = r, w.insRelax[i]
			n++
		}
	}
	w.ins, w.insRelax, w.dropped = w.ins[:n], w.insRelax[:n], false
}

func (w *writer) flush(ctx context.Context) error {
	w.compact()
	if w.script != nil {
		w.collect()
		return nil
	}
	if len(w.dels) > 0 {
		q, args := w.p.deleteSQL(w.dels)
		if _, err := w.tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("apply delete of %d keys on %s: %w", len(w.dels), w.p.ghostTable, err)
		}
		if err := statementWarnings(ctx, w.tx, "DELETE on "+w.p.ghostTable, 1, w.statements(), nil); err != nil {
			return err
		}
		if err := w.forgetRewritten(ctx, w.dels); err != nil {
			return err
		}
	}
	if len(w.ins) > 0 && w.relaxed {
		if err := w.insertDisplacing(ctx); err != nil {
			return err
		}
	} else if len(w.ins) > 0 {
		q, args := w.p.insertSQL(w.ins)
		if _, err := w.tx.ExecContext(ctx, q, args...); err != nil {
			if _, dup := asDuplicate(err, w.p.ghostName); !dup {
				return fmt.Errorf("apply insert of %d rows into %s: %w", len(w.ins), w.p.ghostTable, err)
			}
			// The failed statement was rolled back alone; the transaction goes on.
			if err := w.insertDisplacing(ctx); err != nil {
				return err
			}
		} else if err := statementWarnings(ctx, w.tx, "INSERT into "+w.p.ghostTable, w.statements(), w.statements(), nil); err != nil {
			return err
		}
	}
	w.reset()
	return nil
}

// statements is how many statements a flush of w sends: its DELETE and its INSERT, when it has
// rows for them (a warning names its statement among them, as gh-ost's does).
func (w *writer) statements() int {
	n := 0
	if len(w.dels) > 0 {
		n++
	}
	if len(w.ins) > 0 {
		n++
	}
	return n
}

// checkWarnings fails on any Warning or Error left by the last statement: truncation, conversion
// or a skipped row must never pass silently. Notes pass: they are what the server's own ALTER lets
// through in strict mode too (DECIMAL rounding, DATETIME to DATE), with the same value stored.
func checkWarnings(ctx context.Context, tx execQuerier, what string) error {
	return statementWarnings(ctx, tx, what, 1, 1, nil)
}

// checkWarningsAllowing is checkWarnings also accepting the truncation warning (1265) of the named
// ghost columns (the ENUM error value written on purpose, enumzero.go).
func checkWarningsAllowing(ctx context.Context, tx execQuerier, what string, cols []string) error {
	return statementWarnings(ctx, tx, what, 1, 1, cols)
}

// statementWarnings is checkWarningsAllowing for statement stmt of the of statements sent
// together, which the error names in gh-ost's words ("warnings detected in statement 2 of 2:
// [...]"). The list is trusted only when it holds every warning counted (writer sessions list up
// to 65535, dbconn's DSN).
func statementWarnings(ctx context.Context, tx execQuerier, what string, stmt, of int, cols []string) error {
	var count int64
	if err := tx.QueryRowContext(ctx, "SHOW COUNT(*) WARNINGS").Scan(&count); err != nil {
		return fmt.Errorf("check warnings of %s: %w", what, err)
	}
	if count == 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		return fmt.Errorf("check warnings of %s: %w", what, err)
	}
	defer rows.Close()
	var bad []dbconn.Warning
	var listed int64
	for rows.Next() {
		var x dbconn.Warning
		if err := rows.Scan(&x.Level, &x.Code, &x.Message); err != nil {
			return fmt.Errorf("check warnings of %s: %w", what, err)
		}
		listed++
		if acceptedWarning(x.Level, x.Code, x.Message, cols) {
			continue
		}
		bad = append(bad, x)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check warnings of %s: %w", what, err)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: %s: nothing may be changed silently", what, dbconn.WarningsDetected(stmt, of, bad))
	}
	if listed < count {
		return fmt.Errorf("%s raised %d warnings and the server listed %d: cannot tell that nothing was changed silently; lower --dml-batch-size", what, count, listed)
	}
	return nil
}

// acceptedWarning is true for a Note, a deprecated name in the statement (MySQL's utf8mb3), and
// the truncation warning of one of cols.
func acceptedWarning(level string, code int, msg string, cols []string) bool {
	return level == "Note" || dbconn.DeprecationWarning(level, code) || (code == 1265 && level == "Warning" && namesOneOf(msg, cols))
}

// deleteSQL deletes rows of the ghost by shared key: "k IN (...)" for a single non-NULL column,
// otherwise "(k1 <=> ? AND k2 <=> ?) OR ..."; a column addressed by its bytes (colPlan.keyBytes)
// is compared by its bytes too.
func (p *plan) deleteSQL(keys [][]any) (string, []any) { return p.deleteFromSQL(p.ghostTable, keys) }

// deleteFromSQL is deleteSQL on tbl, a table with the ghost's shared key columns.
func (p *plan) deleteFromSQL(tbl string, keys [][]any) (string, []any) {
	var b strings.Builder
	b.WriteString("DELETE FROM ")
	b.WriteString(tbl)
	b.WriteString(" WHERE ")
	args := make([]any, 0, len(keys)*len(p.key))
	single := len(p.key) == 1
	for _, k := range keys {
		single = single && k[0] != nil
	}
	if single {
		b.WriteString(table.QuoteIdent(p.key[0].ghost))
		b.WriteString(" IN (")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(p.key[0].keyExpr)
			args = append(args, k[0])
		}
		b.WriteString(")")
		if c := p.key[0]; c.keyBytes != "" {
			// Equal bytes are equal under the collation: the IN above finds the candidates
			// through the index, this keeps the row of the exact key only (table.KeyBytes).
			b.WriteString(" AND " + table.ColumnBytes(table.QuoteIdent(c.ghost), c.bytesCol) + " IN (")
			for i, k := range keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(c.keyBytes)
				args = append(args, k[0])
			}
			b.WriteString(")")
		}
		return b.String(), args
	}
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("(")
		for j, c := range p.key {
			if j > 0 {
				b.WriteString(" AND ")
			}
			b.WriteString(table.QuoteIdent(c.ghost))
			b.WriteString(" <=> ")
			b.WriteString(c.keyExpr)
			args = append(args, k[j])
		}
		for j, c := range p.key {
			if c.keyBytes != "" {
				b.WriteString(" AND " + table.ColumnBytes(table.QuoteIdent(c.ghost), c.bytesCol) + " <=> " + c.keyBytes)
				args = append(args, k[j])
			}
		}
		b.WriteString(")")
	}
	return b.String(), args
}

// insertSQL is a plain multi-row INSERT: no IGNORE, no REPLACE, no ON DUPLICATE KEY.
func (p *plan) insertSQL(rows [][]any) (string, []any) {
	var b strings.Builder
	b.Grow(64 + len(rows)*(len(p.rowExpr)+2))
	b.WriteString("INSERT INTO ")
	b.WriteString(p.ghostTable)
	b.WriteString(" (")
	b.WriteString(p.columnList)
	b.WriteString(") VALUES ")
	args := make([]any, 0, len(rows)*len(p.write))
	for i, r := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		expr, rargs := p.rowSQL(r) // zerodate.go
		b.WriteString(expr)
		args = append(args, rargs...)
	}
	q, expanded, err := expandJSONArgs(b.String(), args) // jsonwrite.go
	if err != nil {
		// newPlan proved every JSON column's expression holds jsonPlaceholder: unreachable. The
		// driver refuses to bind a jsonValue, so the statement would fail loudly all the same.
		return b.String(), args
	}
	return q, expanded
}

// keyString is an exact identity for a decoded key (type-tagged, length-prefixed).
func keyString(k []any) string {
	var b strings.Builder
	for _, v := range k {
		switch x := v.(type) {
		case nil:
			b.WriteString("N;")
		case int64:
			b.WriteString("i" + strconv.FormatInt(x, 10) + ";")
		case uint64:
			b.WriteString("u" + strconv.FormatUint(x, 10) + ";")
		case float64:
			b.WriteString("f" + strconv.FormatUint(math.Float64bits(x), 16) + ";")
		case string:
			b.WriteString("s" + strconv.Itoa(len(x)) + ":" + x)
		case []byte:
			b.WriteString("b" + strconv.Itoa(len(x)) + ":")
			b.Write(x)
		default:
			fmt.Fprintf(&b, "?%T:%v;", v, v)
		}
	}
	return b.String()
}
