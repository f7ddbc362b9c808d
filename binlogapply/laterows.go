package binlogapply

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	sqldriver "github.com/go-sql-driver/mysql"
)

// Rows of the original read after a cut-over's sentinel. A sentinel is written while the cut-over
// holds the original locked, so no write to the original can commit between it and the cut-over's
// renames unless the lock was lost (its holder died). Such rows are normal when the attempt then
// rolls back (the next attempt's sentinel covers them), and harmless when the applier writes them
// to the ghost before the swap renames it. But when the ghost was already renamed, they are in
// the old table only: the swap completed without them. The applier then stops with ErrLateRows,
// naming the shared keys and the binlog range of every change read after the sentinel (those not
// applied are among them), so the operator knows what the new table may lack; it never reports
// them as a missing ghost table. Swapped is true only once every change read before the swap's
// RENAME was applied.

// ErrLateRows is wrapped by the error Run returns when changes of the original read after the
// cut-over's last sentinel could not be applied because the ghost had already been renamed: they
// are in the old table only.
var ErrLateRows = errors.New("changes of the original were written after the cut-over's lock was lost and are not in the new table")

// maxLateKeys bounds how many keys the error quotes; the count and the binlog range are exact.
const maxLateKeys = 20

// lateRows collects the changes of the original read after the last sentinel of a cut-over. The
// reader writes it; the applying goroutine reads it when a write finds the ghost gone.
type lateRows struct {
	mu          sync.Mutex
	armed       bool // a sentinel was read since BeginCutOver
	n           int
	first, last string // binlog positions of the first and last such row event
	keys        []string
}

// sentinelRead starts a new window: everything before it is covered by that sentinel.
func (l *lateRows) sentinelRead() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.armed, l.n, l.first, l.last, l.keys = true, 0, "", "", nil
}

// add records one change read at pos, when a window is open.
func (l *lateRows) add(ch *change, pos string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.armed {
		return
	}
	if l.n == 0 {
		l.first = pos
	}
	l.n++
	l.last = pos
	if len(l.keys) < maxLateKeys {
		key := ch.newKey
		if key == nil {
			key = ch.oldKey
		}
		l.keys = append(l.keys, ch.kind.verb()+" "+keyText(key))
	}
}

// err returns nil when no late row was read, and otherwise the report: what happened (cause),
// how many changes, their binlog range and their keys.
func (l *lateRows) err(cause string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		return nil
	}
	more := ""
	if l.n > len(l.keys) {
		more = fmt.Sprintf(" and %d more", l.n-len(l.keys))
	}
	return fmt.Errorf("%w: %s; %d change(s) of the original read from the binary log between %s and %s, after the cut-over's sentinel (shared keys: %s%s), are in the old table only: "+
		"copy them into the new table by hand (the old table holds their final values), then check the table",
		ErrLateRows, cause, l.n, l.first, l.last, strings.Join(l.keys, ", "), more)
}

// swapReached runs when the applier reaches the swap's RENAME (read at pos): every change read
// before it is applied. Late changes applied without error reached the ghost before it was
// renamed (they are in the new table); one that found the ghost gone stopped the applier before
// this (ghostGoneLate).
func (a *Applier) swapReached(pos string) error {
	a.late.mu.Lock()
	n := a.late.n
	a.late.mu.Unlock()
	if n > 0 {
		a.log.Warn().Int("changes", n).Str("swap_at", pos).Msg("changes of the original written after the cut-over's sentinel reached the ghost before the swap")
	}
	a.swapOnce.Do(func() { close(a.swapDone) })
	return nil
}

// ghostGoneLate turns an applying error that says the ghost does not exist (1146) into the late
// rows' report when late rows were read: the cut-over renamed the ghost before they could reach it.
func (a *Applier) ghostGoneLate(err error) error {
	var me *sqldriver.MySQLError
	if err == nil || !a.cutOver.Load() || !errors.As(err, &me) || me.Number != 1146 {
		return err
	}
	if late := a.late.err("the ghost had already taken the original's name when they were applied (" + me.Message + ")"); late != nil {
		return late
	}
	return err
}

// verb names a change kind in the report.
func (k changeKind) verb() string {
	switch k {
	case chInsert:
		return "insert"
	case chUpdate:
		return "update"
	}
	return "delete"
}

// keyText writes a shared key as (v1, v2): strings quoted, bytes as text.
func keyText(key []any) string {
	parts := make([]string, len(key))
	for i, v := range key {
		switch v := v.(type) {
		case []byte:
			parts[i] = fmt.Sprintf("%q", v)
		case string:
			parts[i] = fmt.Sprintf("%q", v)
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
