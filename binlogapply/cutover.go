package binlogapply

import (
	"context"
	"errors"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
)

// During a cut-over the binary log carries the tool's own RENAMEs of the original table: the
// original renamed away, the ghost renamed into its place, and (after a failed attempt) the
// original renamed back. BeginCutOver tells the applier to expect them: such RENAMEs are not a
// change of the table under our feet. Once the ghost has been renamed to the original's name the
// swap is done; row events for that name now belong to the new table and are not applied.
//
// A stream that starts under a finished cut-over's lock (Config.RenamesAtStart, a --revert) reads
// that cut-over's RENAMEs first: they are accepted the same way until the first row event of the
// original, after which the name is the table the stream follows.

// BeginCutOver makes the applier accept RENAMEs of the original and the ghost. Call it before the
// cut-over's first lock; it stays in effect (a retried cut-over renames again).
func (a *Applier) BeginCutOver() { a.cutOver.Store(true) }

// Swapped reports whether the applier has applied everything read before the RENAME that put the
// ghost in the original's place: every change of the original then reached the ghost before it
// took the original's name (a change that could not is ErrLateRows, and Run stops with it).
func (a *Applier) Swapped() bool {
	select {
	case <-a.swapDone:
		return true
	default:
		return false
	}
}

// ErrStopped is returned by AwaitSwapped when Run ended first: its error tells why (ErrLateRows
// when changes of the original could not reach the ghost before the swap).
var ErrStopped = errors.New("the binlog applier stopped")

// AwaitSwapped returns nil once Swapped is true, ErrStopped if Run ends first, or ctx's error.
func (a *Applier) AwaitSwapped(ctx context.Context) error {
	select {
	case <-a.swapDone:
		return nil
	case <-a.stopped:
		if a.Swapped() {
			return nil
		}
		return ErrStopped
	case <-ctx.Done():
		return ctx.Err()
	}
}

// acceptRename handles a DDL touching the original during a cut-over. It returns false when the
// statement is not a plain RENAME among the original, the ghost and other names (then it is fatal).
func (a *Applier) acceptRename(q, defSchema string) bool {
	if !a.cutOver.Load() && (!a.cfg.RenamesAtStart || a.originalRow.Load()) {
		return false
	}
	pairs, ok := renamePairs(q, defSchema)
	if !ok {
		return false
	}
	for _, p := range pairs {
		if strings.EqualFold(p[0].schema, a.cfg.Schema) && strings.EqualFold(p[0].name, a.cfg.Ghost.Name) &&
			strings.EqualFold(p[1].schema, a.cfg.Schema) && strings.EqualFold(p[1].name, a.cfg.Original.Name) {
			a.swapped.Store(true)
		}
	}
	a.log.Info().Bool("swapped", a.swapped.Load()).Msg("cut-over RENAME read from the binary log")
	return true
}

type qualName struct{ schema, name string }

// renamePairs parses "RENAME TABLE a TO b [, c TO d ...]" and two-step's
// "ALTER TABLE a RENAME [TO|AS] b" into (from, to) pairs.
func renamePairs(q, defSchema string) ([][2]qualName, bool) {
	toks, err := sqltok.Tokenize(q, sqltok.Options{})
	if err != nil {
		return nil, false
	}
	p := &ddlParser{toks: toks, defSchema: defSchema}
	switch p.next() {
	case "RENAME":
	case "ALTER":
		return alterRenamePair(p)
	default:
		return nil, false
	}
	if w := p.next(); w != "TABLE" && w != "TABLES" {
		return nil, false
	}
	var pairs [][2]qualName
	for {
		from, ok := p.qualified(defSchema)
		if !ok || p.next() != "TO" {
			return nil, false
		}
		to, ok := p.qualified(defSchema)
		if !ok {
			return nil, false
		}
		pairs = append(pairs, [2]qualName{from, to})
		if p.i >= len(p.toks) {
			return pairs, true
		}
		if !p.toks[p.i].IsPunct(',') {
			return nil, false
		}
		p.i++
	}
}

// alterRenamePair parses the rest of "ALTER TABLE a RENAME [TO|AS] b": a rename and nothing else.
func alterRenamePair(p *ddlParser) ([][2]qualName, bool) {
	if p.next() != "TABLE" {
		return nil, false
	}
	from, ok := p.qualified(p.defSchema)
	if !ok || p.next() != "RENAME" {
		return nil, false
	}
	if w := p.word(p.i); w == "TO" || w == "AS" {
		p.i++
	}
	to, ok := p.qualified(p.defSchema)
	if !ok || p.i != len(p.toks) {
		return nil, false
	}
	return [][2]qualName{{from, to}}, true
}
