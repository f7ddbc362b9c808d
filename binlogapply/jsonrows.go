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
// counts the map's JSON types); which values are partial is read from that bitmap
// (jsonlayout.go), and their raw changes are kept as partialJSON for makeChange.

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
		var err error
		if partial, err = partialColumns(e, pos, data, jsonCols); err != nil { // jsonlayout.go
			return fmt.Errorf("read the partial JSON bitmap: %w", err)
		}
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
// partial update made (resolvePartial), as text or jsonValue (jsonwrite.go). An empty value (an
// old non-strict write) is the JSON null literal, as MySQL reads it.
func decodeJSON(v any) (any, error) {
	switch x := v.(type) {
	case *jsonNode:
		return jsonWriteValue(x), nil
	case []byte:
		if len(x) == 0 {
			return []byte("null"), nil
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
