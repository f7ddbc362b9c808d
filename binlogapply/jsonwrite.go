package binlogapply

import (
	"fmt"
	"slices"
	"strings"
)

// How a MySQL JSON value of a row image is written to the ghost. Its text is bound into
// jsonPlaceholder, the column's expression (decode.go): the server parses it as JSON and converts
// it as its ALTER does. Text loses some types: a DECIMAL parses back as a DOUBLE, an integer with
// the other signedness, a DATE/TIME/DATETIME or a binary string as a string. A document holding
// such scalars is a jsonValue, and its placeholder becomes an expression that builds it: the
// containers on the way to those scalars with JSON_OBJECT and JSON_ARRAY, each such scalar with
// CAST(? AS type), and every other part from its text (expandJSONArgs). Building costs one pass
// over the document; setting each scalar with JSON_SET at its path costs a path lookup each
// (measured on MySQL 9.7, 400 row images of 1,000 DECIMALs each: about 12 s with JSON_SET, 2-5 s
// built, 0.5-3 s for the same arrays of DOUBLEs, on a loaded 2-core machine).

// jsonPlaceholder is the expression of a MySQL JSON column's value (placeholderExpr).
const jsonPlaceholder = "CAST(CONVERT(? USING utf8mb4) AS JSON)"

// jsonValue is a document with typed scalars, ready to bind.
type jsonValue struct {
	doc  *jsonNode
	size int // rough byte size of its arguments
}

// jsonWriteValue is how document n is bound: its text alone ([]byte) when the text says
// everything, else a jsonValue.
func jsonWriteValue(n *jsonNode) any {
	typed, size := n.markTyped()
	if !typed {
		return []byte(n.textOf())
	}
	return jsonValue{doc: n, size: size}
}

// markTyped sets n.typed where n holds a scalar whose type its text loses, and returns it with a
// rough size of n's text.
func (n *jsonNode) markTyped() (bool, int) {
	size := len(n.text) + len(n.lit)
	for i, e := range n.elems {
		t, s := e.markTyped()
		n.typed = n.typed || t
		size += s + 2
		if n.kind == jkObject {
			size += len(n.keys[i]) + 3
		}
	}
	n.typed = n.typed || n.cast != ""
	return n.typed, size
}

// textOf is n as compact JSON text.
func (n *jsonNode) textOf() string {
	var b strings.Builder
	n.render(&b)
	return b.String()
}

func (n *jsonNode) render(b *strings.Builder) {
	switch n.kind {
	case jkScalar:
		b.WriteString(n.text)
	case jkArray:
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			e.render(b)
		}
		b.WriteByte(']')
	case jkObject:
		b.WriteByte('{')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quoteJSON([]byte(n.keys[i])))
			b.WriteByte(':')
			e.render(b)
		}
		b.WriteByte('}')
	}
}

// sqlExpr is the expression that replaces jsonPlaceholder for v, and its arguments. A typed scalar
// at the root is wrapped in an array and taken out again: the expression must be JSON.
func (v jsonValue) sqlExpr() (string, []any) {
	var b strings.Builder
	var args []any
	if v.doc.kind == jkScalar {
		b.WriteString("JSON_EXTRACT(JSON_ARRAY(")
		v.doc.writeSQL(&b, &args)
		b.WriteString("), _utf8mb4'$[0]')")
		return b.String(), args
	}
	v.doc.writeSQL(&b, &args)
	return b.String(), args
}

// writeSQL writes the expression that builds n (markTyped done).
func (n *jsonNode) writeSQL(b *strings.Builder, args *[]any) {
	switch {
	case !n.typed:
		b.WriteString(jsonPlaceholder)
		*args = append(*args, []byte(n.textOf()))
	case n.kind == jkScalar:
		b.WriteString("CAST(? AS " + n.cast + ")")
		*args = append(*args, n.lit)
	default:
		b.WriteString(map[jsonKind]string{jkArray: "JSON_ARRAY(", jkObject: "JSON_OBJECT("}[n.kind])
		for i, e := range n.elems {
			if i > 0 {
				b.WriteString(", ")
			}
			if n.kind == jkObject {
				b.WriteString("CONVERT(? USING utf8mb4), ")
				*args = append(*args, n.keys[i])
			}
			e.writeSQL(b, args)
		}
		b.WriteString(")")
	}
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
