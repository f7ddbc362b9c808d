package binlogapply

import (
	"fmt"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
)

// MySQL JSON columns of the original's row images reach the applier as their raw binary JSON
// (go-mysql's text loses DECIMALs, jsonbin.go): the rows are decoded with a copy of the table map
// in which each JSON column is typed BLOB, whose value go-mysql returns as its bytes. Both carry a
// 4-byte length first. The copy lists one JSON type per JSON column after the real columns, so
// that go-mysql still skips the partial-update bitmap of a PARTIAL_UPDATE_ROWS_EVENT (its size
// counts the map's JSON types); which columns are partial is read in a first decoding with the
// true map, where go-mysql returns a *JsonDiff for them, and their raw changes are kept as
// partialJSON for makeChange.

// decodeRawJSON decodes e's rows (DecodeHeader done, rows from pos) with JSON values raw.
func decodeRawJSON(e *replication.RowsEvent, pos int, data []byte) error {
	orig := e.Table
	var jsonCols []int
	for i, t := range orig.ColumnType {
		if t == mysql.MYSQL_TYPE_JSON {
			jsonCols = append(jsonCols, i)
		}
	}
	if len(jsonCols) == 0 {
		return e.DecodeData(pos, data)
	}
	var partial map[[2]int]bool // (row, column) of partial values
	if e.Type() == replication.EnumRowsEventTypeUnknown && e.ColumnBitmap2 != nil {
		// PARTIAL_UPDATE_ROWS_EVENT, the one update type go-mysql's Type does not name.
		if err := e.DecodeData(pos, data); err != nil {
			return err
		}
		partial = partialValues(e.Rows, jsonCols)
	}
	raw := *orig
	raw.ColumnType = append(append(make([]byte, 0, len(orig.ColumnType)+len(jsonCols)), orig.ColumnType...),
		make([]byte, len(jsonCols))...)
	for k, c := range jsonCols {
		raw.ColumnType[c] = mysql.MYSQL_TYPE_BLOB
		raw.ColumnType[len(orig.ColumnType)+k] = mysql.MYSQL_TYPE_JSON
	}
	e.Table = &raw
	err := e.DecodeData(pos, data)
	e.Table = orig
	if err != nil {
		return err
	}
	for rc := range partial {
		b, ok := e.Rows[rc[0]][rc[1]].([]byte)
		if !ok {
			return fmt.Errorf("partial JSON value of column #%d decoded as %T", rc[1]+1, e.Rows[rc[0]][rc[1]])
		}
		e.Rows[rc[0]][rc[1]] = partialJSON(append([]byte(nil), b...))
	}
	return nil
}

// partialValues lists the (row, column) of the partial JSON values of an update event's rows
// decoded with the true table map: go-mysql returns a *JsonDiff for a list of changes, but an
// empty slice for an empty list as for an empty value. An empty value of an after image whose
// before image holds a document is taken for an empty list (the document unchanged: a JSON_SET,
// JSON_REPLACE or JSON_REMOVE that changed nothing); an empty document, which only a non-strict
// sql_mode stores, replacing a document in an update that logged partial changes is read as the
// document unchanged.
func partialValues(rows [][]any, jsonCols []int) map[[2]int]bool {
	partial := map[[2]int]bool{}
	for r := 1; r < len(rows); r += 2 {
		before, after := rows[r-1], rows[r]
		for _, c := range jsonCols {
			if c >= len(after) || c >= len(before) {
				continue
			}
			_, diff := after[c].(*replication.JsonDiff)
			empty := false
			if b, ok := after[c].([]byte); ok && len(b) == 0 {
				s, isDoc := before[c].(string)
				empty = isDoc && s != ""
			}
			if diff || empty {
				partial[[2]int{r, c}] = true
			}
		}
	}
	return partial
}

// resolvePartial returns after with each partial JSON value (partialJSON) replaced by the whole
// document: the before image's document with the changes applied. after is not changed.
func (p *plan) resolvePartial(before, after []any) ([]any, error) {
	var out []any
	for _, c := range p.write {
		d, ok := after[c.idx].(partialJSON)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]any(nil), after...)
		}
		doc, err := resolveJSONDiffs(before[c.idx], d)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.col.Name, err)
		}
		out[c.idx] = doc
	}
	if out == nil {
		return after, nil
	}
	return out, nil
}

// resolveJSONDiffs is the document that diffs d make of before (a raw binary JSON value).
func resolveJSONDiffs(before any, d partialJSON) (*jsonNode, error) {
	b, ok := before.([]byte)
	if !ok || len(b) == 0 {
		return nil, fmt.Errorf("partial JSON update of a column whose before image holds no document (%T)", before)
	}
	doc, err := parseBinaryJSON(b)
	if err != nil {
		return nil, err
	}
	diffs, err := parseJSONDiffs(d)
	if err != nil {
		return nil, err
	}
	return applyJSONDiffs(doc, diffs)
}

// decodeJSON is the value to write of a MySQL JSON column: its raw binary JSON, or the document a
// partial update made (resolvePartial), as text or jsonValue (jsonwrite.go). An empty value (which
// non-strict modes store for NULL) stays empty.
func decodeJSON(v any) (any, error) {
	switch x := v.(type) {
	case *jsonNode:
		return jsonWriteValue(x), nil
	case []byte:
		if len(x) == 0 {
			return []byte{}, nil
		}
		doc, err := parseBinaryJSON(x)
		if err != nil {
			return nil, err
		}
		return jsonWriteValue(doc), nil
	case partialJSON:
		return nil, fmt.Errorf("partial JSON update outside an update's after image")
	}
	return nil, fmt.Errorf("unexpected binlog value of type %T for a JSON column", v)
}
