package binlogapply

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/go-ghostlite/go-ghostlite/changelog"
)

type changeKind int

const (
	chInsert changeKind = iota
	chUpdate
	chDelete
)

// change is one row change of the original, decoded and ready to write.
type change struct {
	kind   changeKind
	oldKey []any    // shared key of the before image (update, delete)
	newKey []any    // shared key of the after image (insert, update)
	values []any    // after image, plan.write order (insert, update)
	size   int      // rough byte size of values, to bound statement size
	relax  []string // ghost ENUM columns given their error value: inserted alone (enumzero.go)
}

// rowsKind classifies a rows event type; false for types we cannot apply faithfully. MySQL's
// PARTIAL_UPDATE_ROWS_EVENT is an update whose JSON values may be changes (jsonrows.go).
func rowsKind(t replication.EventType) (changeKind, bool) {
	switch t {
	case replication.WRITE_ROWS_EVENTv0, replication.WRITE_ROWS_EVENTv1, replication.WRITE_ROWS_EVENTv2,
		replication.MARIADB_WRITE_ROWS_COMPRESSED_EVENT_V1:
		return chInsert, true
	case replication.UPDATE_ROWS_EVENTv0, replication.UPDATE_ROWS_EVENTv1, replication.UPDATE_ROWS_EVENTv2,
		replication.MARIADB_UPDATE_ROWS_COMPRESSED_EVENT_V1, replication.PARTIAL_UPDATE_ROWS_EVENT:
		return chUpdate, true
	case replication.DELETE_ROWS_EVENTv0, replication.DELETE_ROWS_EVENTv1, replication.DELETE_ROWS_EVENTv2,
		replication.MARIADB_DELETE_ROWS_COMPRESSED_EVENT_V1:
		return chDelete, true
	}
	return 0, false
}

// rows dispatches a rows event: the original's rows become changes, the changelog's become
// heartbeats and sentinels, everything else is ignored (and was not even decoded).
func (r *reader) rows(ctx context.Context, h *replication.EventHeader, e *replication.RowsEvent) error {
	cfg := r.a.cfg
	if e.Table == nil || string(e.Table.Schema) != cfg.Schema {
		return nil
	}
	name := string(e.Table.Table)
	if name != cfg.Original.Name && name != cfg.Changelog {
		return nil
	}
	kind, ok := rowsKind(h.EventType)
	if !ok {
		return fatal{fmt.Errorf("unsupported row event %s for %s.%s at %s:%d: the tool cannot apply it",
			h.EventType, cfg.Schema, name, r.file, h.LogPos)}
	}
	if missing := r.skippedStored(e, name); len(missing) > 0 {
		return fatal{fmt.Errorf("row event for %s.%s at %s:%d lacks %d of its %d columns (%s): binlog_row_image must be FULL",
			cfg.Schema, name, r.file, h.LogPos, len(missing), e.ColumnCount, strings.Join(missing, ", "))}
	}
	step := 1
	if kind == chUpdate {
		step = 2
	}
	if len(e.Rows)%step != 0 {
		return fatal{fmt.Errorf("update event for %s.%s at %s:%d has an odd number of row images", cfg.Schema, name, r.file, h.LogPos)}
	}
	if name == cfg.Changelog {
		return r.changelogRows(ctx, kind, e.Rows, step)
	}
	if r.a.swapped.Load() {
		return nil // rows of the new table, written after the swap
	}
	r.a.originalRow.Store(true)
	if int(e.ColumnCount) != r.a.plan.ncols {
		return fatal{fmt.Errorf("%w: row event at %s:%d has %d columns, the original had %d (the table changed)",
			ErrOriginalAltered, r.file, h.LogPos, e.ColumnCount, r.a.plan.ncols)}
	}
	for i := 0; i < len(e.Rows); i += step {
		var after []any
		if kind == chUpdate {
			after = e.Rows[i+1]
		}
		ch, err := r.a.plan.makeChange(kind, e.Rows[i], after)
		if err != nil {
			return fatal{fmt.Errorf("decode row of %s.%s at %s:%d: %w", cfg.Schema, name, r.file, h.LogPos, err)}
		}
		if r.a.cutOver.Load() {
			r.a.late.add(ch, fmt.Sprintf("%s:%d", r.file, h.LogPos))
		}
		if err := r.hold(ctx, item{kind: itemChange, ch: ch}); err != nil {
			return err
		}
	}
	return nil
}

// changelogRows turns inserted/updated changelog rows into heartbeat and sentinel items.
func (r *reader) changelogRows(ctx context.Context, kind changeKind, rows [][]any, step int) error {
	for i := 0; i < len(rows); i += step {
		if kind == chDelete {
			continue
		}
		row, err := changelog.ParseImage(r.a.cfg.Changelog, rows[i+step-1]) // the after image
		if err != nil {
			return fatal{err}
		}
		switch row.Hint {
		case changelog.HintSentinel:
			r.a.settleHelpers(row.Value) // stmtwatch.go
			if r.a.cutOver.Load() {
				r.a.late.sentinelRead() // laterows.go
			}
			if err := r.hold(ctx, item{kind: itemSentinel, value: row.Value}); err != nil {
				return err
			}
		case changelog.HintHeartbeat:
			t, err := changelog.ParseHeartbeat(row.Value)
			if err != nil {
				r.a.log.Warn().Str("hint", row.Hint).Msg("changelog heartbeat with an unreadable time; ignored")
				continue
			}
			if err := r.hold(ctx, item{kind: itemHeartbeat, hb: t}); err != nil {
				return err
			}
		}
	}
	return nil
}

// makeChange decodes the images of one row change.
func (p *plan) makeChange(kind changeKind, img, after []any) (*change, error) {
	ch := &change{kind: kind}
	var err error
	switch kind {
	case chInsert:
		ch.values, ch.size, err = p.decodeWrite(img)
		ch.relax = p.errorValueColumns(img)
		if err == nil {
			ch.newKey, err = p.keyFromValues(ch.values, img)
		}
	case chUpdate:
		if ch.oldKey, err = p.decodeKey(img); err != nil {
			return nil, err
		}
		if after, err = p.resolvePartial(img, after); err != nil { // jsonrows.go
			return nil, err
		}
		ch.values, ch.size, err = p.decodeWrite(after)
		ch.relax = p.errorValueColumns(after)
		if err == nil {
			ch.newKey, err = p.keyFromValues(ch.values, after)
		}
	case chDelete:
		ch.oldKey, err = p.decodeKey(img)
	}
	if err != nil {
		return nil, err
	}
	return ch, nil
}

func (p *plan) decodeWrite(img []any) ([]any, int, error) {
	vals := make([]any, len(p.write))
	size := 0
	for i, c := range p.write {
		v, err := decodeValue(c.col, img[c.idx])
		if err != nil {
			return nil, 0, err
		}
		if x, ok := v.(uint64); ok && c.bitBytes {
			v = bitValueBytes(c.col, x)
		}
		if c.byNumber && v != nil {
			v, err = decodeNumber(c.col, img[c.idx])
			if err != nil {
				return nil, 0, err
			}
		}
		vals[i] = v
		switch x := v.(type) {
		case []byte:
			size += len(x) * 2
		case string:
			size += len(x)
		case jsonValue:
			size += x.size
		}
		size += 8
	}
	return vals, size, nil
}

func (p *plan) decodeKey(img []any) ([]any, error) {
	key := make([]any, len(p.key))
	for i, c := range p.key {
		v, err := decodeValue(c.col, img[c.idx])
		if err != nil {
			return nil, err
		}
		key[i] = v
	}
	return key, nil
}

// keyFromValues is the shared key of a row: from its written values vals, and for a generated key
// column (not written) from its image img.
func (p *plan) keyFromValues(vals, img []any) ([]any, error) {
	if vals == nil {
		return nil, nil
	}
	key := make([]any, len(p.key))
	for i, w := range p.keyPos {
		if w >= 0 {
			key[i] = vals[w]
			continue
		}
		v, err := decodeValue(p.key[i].col, img[p.key[i].idx])
		if err != nil {
			return nil, err
		}
		key[i] = v
	}
	return key, nil
}

// skippedStored names the distinct columns left out of e's row images (of any row) that are not
// generated columns of the original: MariaDB 11.8 leaves generated columns (virtual and stored) out
// of some images even under binlog_row_image=FULL, and the applier never writes them (the ghost
// computes its own). A column of a table other than the original is named by its position (#1).
func (r *reader) skippedStored(e *replication.RowsEvent, name string) []string {
	cols := r.a.cfg.Original.Columns
	var missing []int
	for _, sk := range e.SkippedColumns {
		for _, i := range sk {
			if name == r.a.cfg.Original.Name && i < len(cols) && cols[i].Generated || slices.Contains(missing, i) {
				continue
			}
			missing = append(missing, i)
		}
	}
	slices.Sort(missing)
	names := make([]string, len(missing))
	for k, i := range missing {
		names[k] = "#" + strconv.Itoa(i+1)
		if name == r.a.cfg.Original.Name && i < len(cols) {
			names[k] = cols[i].Name
		}
	}
	return names
}
