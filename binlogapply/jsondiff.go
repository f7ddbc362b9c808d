package binlogapply

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Partial JSON updates (binlog_row_value_options=PARTIAL_JSON, MySQL): the after image of a JSON
// column may hold a list of changes to the before image's document instead of the document
// (mysql-server sql/json_diff.cc). The applier rebuilds the whole document from the before image,
// which binlog_row_image=FULL always carries, so it writes full rows as for any other update.

// jsonDiffOp is a change's operation: REPLACE, INSERT or REMOVE at a path.
type jsonDiffOp byte

const (
	diffReplace jsonDiffOp = 0
	diffInsert  jsonDiffOp = 1
	diffRemove  jsonDiffOp = 2
)

type jsonDiff struct {
	op    jsonDiffOp
	path  []pathLeg
	value *jsonNode // nil for REMOVE
}

// pathLeg is one step of a path: an object member (key) or an array cell (index).
type pathLeg struct {
	member bool
	key    string
	index  int
}

// partialJSON is the raw list of changes of a JSON column in an after image (jsonrows.go).
type partialJSON []byte

// parseJSONDiffs decodes a list of changes: per change its operation, a length-encoded path and,
// unless it removes, a length-encoded binary JSON value.
func parseJSONDiffs(b []byte) ([]jsonDiff, error) {
	var diffs []jsonDiff
	for len(b) > 0 {
		d := jsonDiff{op: jsonDiffOp(b[0])}
		if d.op > diffRemove {
			return nil, fmt.Errorf("%w: operation %d", errJSONDiff, b[0])
		}
		raw, rest, err := lengthEncoded(b[1:])
		if err != nil {
			return nil, err
		}
		if d.path, err = parseJSONPath(string(raw)); err != nil {
			return nil, err
		}
		b = rest
		if d.op != diffRemove {
			if raw, b, err = lengthEncoded(b); err != nil {
				return nil, err
			}
			if d.value, err = parseBinaryJSON(raw); err != nil {
				return nil, err
			}
		}
		diffs = append(diffs, d)
	}
	return diffs, nil
}

// lengthEncoded reads a MySQL length-encoded string: its bytes and what follows.
func lengthEncoded(b []byte) ([]byte, []byte, error) {
	if len(b) == 0 {
		return nil, nil, errJSONDiff
	}
	var n uint64
	k := 1
	switch b[0] {
	case 0xfc:
		k = 3
	case 0xfd:
		k = 4
	case 0xfe:
		k = 9
	case 0xfb, 0xff:
		return nil, nil, errJSONDiff
	default:
		n = uint64(b[0])
	}
	if len(b) < k {
		return nil, nil, errJSONDiff
	}
	if k > 1 {
		n = fixedUint(b[1:k])
	}
	if n > uint64(len(b)-k) {
		return nil, nil, errJSONDiff
	}
	return b[k : k+int(n)], b[k+int(n):], nil
}

// parseJSONPath parses the paths MySQL writes into partial updates: $ followed by members (.key or
// ."quoted key") and array cells ([n]); no wildcards.
func parseJSONPath(p string) ([]pathLeg, error) {
	bad := func() ([]pathLeg, error) { return nil, fmt.Errorf("%w: path %q", errJSONDiff, p) }
	if !strings.HasPrefix(p, "$") {
		return bad()
	}
	var legs []pathLeg
	s := strings.TrimLeft(p[1:], " ")
	for s != "" {
		switch s[0] {
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return bad()
			}
			i, err := strconv.Atoi(strings.TrimSpace(s[1:end]))
			if err != nil || i < 0 {
				return bad()
			}
			legs = append(legs, pathLeg{index: i})
			s = s[end+1:]
		case '.':
			s = strings.TrimLeft(s[1:], " ")
			key, rest, ok := pathMember(s)
			if !ok {
				return bad()
			}
			legs = append(legs, pathLeg{member: true, key: key})
			s = rest
		default:
			return bad()
		}
		s = strings.TrimLeft(s, " ")
	}
	return legs, nil
}

// pathMember reads a member name at the start of s: a quoted JSON string, or a bare name up to
// the next leg.
func pathMember(s string) (string, string, bool) {
	if s == "" {
		return "", "", false
	}
	if s[0] != '"' {
		end := strings.IndexAny(s, ".[ ")
		if end < 0 {
			end = len(s)
		}
		return s[:end], s[end:], end > 0 && s[0] != '*'
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			var key string
			if err := json.Unmarshal([]byte(s[:i+1]), &key); err != nil {
				return "", "", false
			}
			return key, s[i+1:], true
		}
	}
	return "", "", false
}

// applyJSONDiffs applies diffs in order to doc (changed in place) and returns the new document.
func applyJSONDiffs(doc *jsonNode, diffs []jsonDiff) (*jsonNode, error) {
	for _, d := range diffs {
		if len(d.path) == 0 {
			if d.op != diffReplace {
				return nil, fmt.Errorf("%w: %d at the document's root", errJSONDiff, d.op)
			}
			doc = d.value
			continue
		}
		parent := doc
		for _, leg := range d.path[:len(d.path)-1] {
			if parent = parent.child(leg); parent == nil {
				return nil, fmt.Errorf("partial JSON update: its path is not in the before image")
			}
		}
		if err := parent.change(d.op, d.path[len(d.path)-1], d.value); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// child is n's value at leg, or nil.
func (n *jsonNode) child(leg pathLeg) *jsonNode {
	if i := n.find(leg); i >= 0 {
		return n.elems[i]
	}
	return nil
}

// find is the position of leg in n's elements, or -1.
func (n *jsonNode) find(leg pathLeg) int {
	switch {
	case leg.member && n.kind == jkObject:
		for i, k := range n.keys {
			if k == leg.key {
				return i
			}
		}
	case !leg.member && n.kind == jkArray && leg.index < len(n.elems):
		return leg.index
	}
	return -1
}

// change applies one operation at leg of container n, as JSON_REPLACE, JSON_INSERT (an array:
// JSON_ARRAY_INSERT) and JSON_REMOVE do.
func (n *jsonNode) change(op jsonDiffOp, leg pathLeg, v *jsonNode) error {
	i := n.find(leg)
	switch {
	case op == diffReplace && i >= 0:
		n.elems[i] = v
	case op == diffRemove && i >= 0:
		n.elems = append(n.elems[:i], n.elems[i+1:]...)
		if n.kind == jkObject {
			n.keys = append(n.keys[:i], n.keys[i+1:]...)
		}
	case op == diffInsert && leg.member && n.kind == jkObject:
		if i >= 0 {
			n.elems[i] = v
			break
		}
		n.keys = append(n.keys, leg.key)
		n.elems = append(n.elems, v)
	case op == diffInsert && !leg.member && n.kind == jkArray:
		at := min(leg.index, len(n.elems))
		n.elems = append(n.elems[:at], append([]*jsonNode{v}, n.elems[at:]...)...)
	default:
		return fmt.Errorf("partial JSON update: operation %d does not apply to the before image at its path", op)
	}
	return nil
}
