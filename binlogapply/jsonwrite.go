package binlogapply

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// How a MySQL JSON value of a row image is written to the ghost. Its text is bound into
// jsonPlaceholder, the column's expression (decode.go): the server parses it as JSON and converts
// it as its ALTER does. Text loses some types: a DECIMAL parses back as a DOUBLE, an unsigned
// integer as a signed one, a DATE/TIME/DATETIME as a string. A value holding such scalars is a
// jsonValue, and its placeholder becomes JSON_SET(<the text as JSON>, path, CAST(? AS type), ...),
// which puts each of them back with its type (expandJSONArgs).

// jsonPlaceholder is the expression of a MySQL JSON column's value (placeholderExpr).
const jsonPlaceholder = "CAST(CONVERT(? USING utf8mb4) AS JSON)"

// typedLeaf is a scalar of a document that its text does not type: where it is, and its cast.
type typedLeaf struct{ path, cast, lit string }

// jsonValue is a document with typed leaves, ready to bind.
type jsonValue struct {
	text  []byte
	typed []typedLeaf
}

// jsonWriteValue is how document n is bound: its text alone ([]byte) when the text says
// everything, else a jsonValue.
func jsonWriteValue(n *jsonNode) any {
	var b strings.Builder
	var typed []typedLeaf
	n.render(&b, "$", &typed)
	if len(typed) == 0 {
		return []byte(b.String())
	}
	return jsonValue{text: []byte(b.String()), typed: typed}
}

// render writes n as compact JSON text and collects its typed leaves with their paths.
func (n *jsonNode) render(b *strings.Builder, path string, typed *[]typedLeaf) {
	switch n.kind {
	case jkScalar:
		b.WriteString(n.text)
		if n.cast != "" {
			*typed = append(*typed, typedLeaf{path: path, cast: n.cast, lit: n.lit})
		}
	case jkArray:
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.render(b, path+"["+strconv.Itoa(i)+"]", typed)
		}
		b.WriteByte(']')
	case jkObject:
		b.WriteByte('{')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			k := quoteJSON([]byte(n.keys[i]))
			b.WriteString(k)
			b.WriteByte(':')
			e.render(b, path+"."+k, typed)
		}
		b.WriteByte('}')
	}
}

// sqlExpr is the expression that replaces jsonPlaceholder for v, and its arguments.
func (v jsonValue) sqlExpr() (string, []any) {
	var b strings.Builder
	args := make([]any, 0, 1+2*len(v.typed))
	b.WriteString("JSON_SET(" + jsonPlaceholder)
	args = append(args, v.text)
	for _, t := range v.typed {
		b.WriteString(", CONVERT(? USING utf8mb4), CAST(? AS " + t.cast + ")")
		args = append(args, t.path, t.lit)
	}
	b.WriteString(")")
	return b.String(), args
}

// size is a rough byte size of v, to bound statement size.
func (v jsonValue) size() int {
	n := len(v.text)
	for _, t := range v.typed {
		n += len(t.path) + len(t.lit) + 40
	}
	return n
}

// expandJSONArgs rewrites statement q so that each jsonValue among args gets its JSON_SET in place
// of its jsonPlaceholder, and returns the arguments to bind. Like the driver's interpolation, it
// counts every '?' of q as a placeholder.
func expandJSONArgs(q string, args []any) (string, []any, error) {
	if !slices.ContainsFunc(args, isJSONValue) {
		return q, args, nil
	}
	var b strings.Builder
	out := make([]any, 0, len(args)+8)
	rest, k := q, 0
	for k < len(args) {
		i := strings.IndexByte(rest, '?')
		if i < 0 {
			return "", nil, fmt.Errorf("statement has fewer placeholders than its %d values", len(args))
		}
		v, ok := args[k].(jsonValue)
		if !ok {
			b.WriteString(rest[:i+1])
			rest = rest[i+1:]
			out = append(out, args[k])
			k++
			continue
		}
		head := len("CAST(CONVERT(")
		if i < head || !strings.HasPrefix(rest[i-head:], jsonPlaceholder) {
			return "", nil, fmt.Errorf("a JSON value is bound outside a JSON expression (value %d)", k+1)
		}
		expr, more := v.sqlExpr()
		b.WriteString(rest[:i-head])
		b.WriteString(expr)
		rest = rest[i-head+len(jsonPlaceholder):]
		out = append(out, more...)
		k++
	}
	b.WriteString(rest)
	return b.String(), out, nil
}

func isJSONValue(a any) bool {
	_, ok := a.(jsonValue)
	return ok
}
