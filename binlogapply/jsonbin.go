package binlogapply

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MySQL's binary JSON (sql-common/json_binary.cc), decoded by the tool itself: go-mysql renders it
// to text, and JSON text cannot say that a number is a DECIMAL (CAST(1.50 AS JSON) prints 1.50 but
// parses back as the DOUBLE 1.5). A decoded document keeps every scalar's type; jsonValue
// (jsonwrite.go) writes it back with the types that text loses.

// Type tags of the binary format.
const (
	jbSmallObject = 0x00
	jbLargeObject = 0x01
	jbSmallArray  = 0x02
	jbLargeArray  = 0x03
	jbLiteral     = 0x04
	jbInt16       = 0x05
	jbUint16      = 0x06
	jbInt32       = 0x07
	jbUint32      = 0x08
	jbInt64       = 0x09
	jbUint64      = 0x0a
	jbDouble      = 0x0b
	jbString      = 0x0c
	jbOpaque      = 0x0f
)

// Field types of opaque values that the tool restores with their type (MySQL's enum_field_types).
const (
	fieldNewDecimal = 246
	fieldDate       = 10
	fieldTime       = 11
	fieldDatetime   = 12
	fieldTimestamp  = 7
	fieldVarchar    = 15
)

type jsonKind uint8

const (
	jkObject jsonKind = iota
	jkArray
	jkScalar // text is the JSON text of the value (a number, true, false, null, a quoted string)
)

// jsonNode is one value of a decoded document. A scalar whose type its JSON text loses carries
// cast: the SQL type that gives it back (DECIMAL(p,s), UNSIGNED, DATE, TIME(6), DATETIME(6)), and
// lit, the text that CAST turns into it.
type jsonNode struct {
	kind  jsonKind
	keys  []string    // object member names, in document order
	elems []*jsonNode // object member values or array elements
	text  string
	cast  string
	lit   string
	typed bool // n or a value in it has a cast (markTyped)
}

var errJSONShort = errors.New("binary JSON value is truncated")

// parseBinaryJSON decodes one binary JSON document (its type tag first).
func parseBinaryJSON(doc []byte) (*jsonNode, error) {
	if len(doc) == 0 {
		return nil, errJSONShort
	}
	return parseJSONValue(doc[0], doc[1:], 0)
}

const maxJSONDepth = 150 // MySQL's JSON_DOCUMENT_MAX_DEPTH is 100

func parseJSONValue(tag byte, data []byte, depth int) (*jsonNode, error) {
	if depth > maxJSONDepth {
		return nil, errors.New("binary JSON nested too deep")
	}
	switch tag {
	case jbSmallObject, jbLargeObject, jbSmallArray, jbLargeArray:
		return parseJSONContainer(tag, data, depth)
	case jbLiteral:
		if len(data) < 1 {
			return nil, errJSONShort
		}
		switch data[0] {
		case 0:
			return scalar("null"), nil
		case 1:
			return scalar("true"), nil
		case 2:
			return scalar("false"), nil
		}
		return nil, fmt.Errorf("binary JSON literal %d unknown", data[0])
	case jbInt16, jbUint16, jbInt32, jbUint32, jbInt64, jbUint64, jbDouble:
		return parseJSONNumber(tag, data)
	case jbString:
		n, k, err := jsonVarLen(data)
		if err != nil {
			return nil, err
		}
		if len(data) < k+n {
			return nil, errJSONShort
		}
		return scalar(quoteJSON(data[k : k+n])), nil
	case jbOpaque:
		return parseJSONOpaque(data)
	}
	return nil, fmt.Errorf("binary JSON type %d unknown", tag)
}

func scalar(text string) *jsonNode { return &jsonNode{kind: jkScalar, text: text} }

func parseJSONNumber(tag byte, data []byte) (*jsonNode, error) {
	size := map[byte]int{jbInt16: 2, jbUint16: 2, jbInt32: 4, jbUint32: 4, jbInt64: 8, jbUint64: 8, jbDouble: 8}[tag]
	if len(data) < size {
		return nil, errJSONShort
	}
	var u uint64
	switch size {
	case 2:
		u = uint64(binary.LittleEndian.Uint16(data))
	case 4:
		u = uint64(binary.LittleEndian.Uint32(data))
	default:
		u = binary.LittleEndian.Uint64(data)
	}
	// MySQL's JSON parser reads an integer above 2^32-1 as UNSIGNED, any other as signed
	// (measured on MySQL 9.7): the others are cast.
	var i int64
	switch tag {
	case jbInt16:
		i = int64(int16(u))
	case jbInt32:
		i = int64(int32(u))
	case jbInt64:
		i = int64(u)
	case jbDouble:
		return scalar(formatJSONDouble(math.Float64frombits(u))), nil
	default:
		n := scalar(strconv.FormatUint(u, 10))
		if u <= math.MaxUint32 {
			n.cast, n.lit = "UNSIGNED", n.text
		}
		return n, nil
	}
	n := scalar(strconv.FormatInt(i, 10))
	if i > math.MaxUint32 {
		n.cast, n.lit = "SIGNED", n.text
	}
	return n, nil
}

// formatJSONDouble is a DOUBLE's text that MySQL's JSON parser reads back as the same DOUBLE: the
// shortest exact digits, with ".0" or an exponent so that it is never read as an integer.
func formatJSONDouble(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "null" // MySQL never stores these
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// parseJSONContainer decodes an object or an array. Offsets count from the start of data (its
// element count); small containers use 2-byte offsets and sizes, large ones 4-byte.
func parseJSONContainer(tag byte, data []byte, depth int) (*jsonNode, error) {
	large := tag == jbLargeObject || tag == jbLargeArray
	object := tag == jbSmallObject || tag == jbLargeObject
	osz := 2
	if large {
		osz = 4
	}
	word := func(at int) (int, error) {
		if at < 0 || at+osz > len(data) {
			return 0, errJSONShort
		}
		if large {
			return int(binary.LittleEndian.Uint32(data[at:])), nil
		}
		return int(binary.LittleEndian.Uint16(data[at:])), nil
	}
	count, err := word(0)
	if err != nil {
		return nil, err
	}
	size, err := word(osz)
	if err != nil {
		return nil, err
	}
	if size > len(data) {
		return nil, errJSONShort
	}
	data = data[:size]
	n := &jsonNode{kind: jkArray, elems: make([]*jsonNode, count)}
	keyEntries := 0
	if object {
		n.kind, n.keys, keyEntries = jkObject, make([]string, count), count*(osz+2)
	}
	for i := range count {
		if object {
			at := 2*osz + i*(osz+2)
			off, err := word(at)
			if err != nil || at+osz+2 > len(data) {
				return nil, errJSONShort
			}
			kl := int(binary.LittleEndian.Uint16(data[at+osz:]))
			if off+kl > len(data) {
				return nil, errJSONShort
			}
			n.keys[i] = string(data[off : off+kl])
		}
		at := 2*osz + keyEntries + i*(1+osz)
		if at+1+osz > len(data) {
			return nil, errJSONShort
		}
		vt := data[at]
		var v *jsonNode
		if inlined(vt, large) {
			v, err = parseJSONValue(vt, data[at+1:at+1+osz], depth+1)
		} else {
			var off int
			if off, err = word(at + 1); err == nil {
				if off >= len(data) {
					return nil, errJSONShort
				}
				v, err = parseJSONValue(vt, data[off:], depth+1)
			}
		}
		if err != nil {
			return nil, err
		}
		n.elems[i] = v
	}
	return n, nil
}

// inlined says a value of type vt sits in its value entry rather than at an offset.
func inlined(vt byte, large bool) bool {
	switch vt {
	case jbLiteral, jbInt16, jbUint16:
		return true
	case jbInt32, jbUint32:
		return large
	}
	return false
}

// jsonVarLen reads the format's variable-length integer: the length and the bytes it took.
func jsonVarLen(data []byte) (int, int, error) {
	var n uint64
	for i := 0; i < len(data) && i < 5; i++ {
		n |= uint64(data[i]&0x7f) << (7 * i)
		if data[i]&0x80 == 0 {
			if n > math.MaxUint32 {
				break
			}
			return int(n), i + 1, nil
		}
	}
	return 0, 0, errors.New("binary JSON length is malformed")
}

// parseJSONOpaque decodes an opaque value: a DECIMAL, a temporal value, a binary string, or other
// bytes (a BIT, BINARY(n), BLOB or GEOMETRY value), which MySQL prints as "base64:typeN:..." and
// which stay that string: no cast gives their field type back.
func parseJSONOpaque(data []byte) (*jsonNode, error) {
	if len(data) < 1 {
		return nil, errJSONShort
	}
	ft := data[0]
	n, k, err := jsonVarLen(data[1:])
	if err != nil {
		return nil, err
	}
	if len(data) < 1+k+n {
		return nil, errJSONShort
	}
	v := data[1+k : 1+k+n]
	switch ft {
	case fieldNewDecimal:
		if len(v) < 2 {
			return nil, errJSONShort
		}
		s, err := decodeBinaryDecimal(v[2:], int(v[0]), int(v[1]))
		if err != nil {
			return nil, err
		}
		return &jsonNode{kind: jkScalar, text: s, cast: decimalCast(s), lit: s}, nil
	case fieldDate, fieldTime, fieldDatetime, fieldTimestamp:
		if len(v) < 8 {
			return nil, errJSONShort
		}
		s, cast := packedTemporal(ft, int64(binary.LittleEndian.Uint64(v)))
		return &jsonNode{kind: jkScalar, text: `"` + s + `"`, cast: cast, lit: s}, nil
	}
	node := scalar(`"base64:type` + strconv.Itoa(int(ft)) + ":" + base64Std(v) + `"`)
	if ft == fieldVarchar { // a binary string: CAST(? AS BINARY) makes the same opaque value
		node.cast, node.lit = "BINARY", string(v)
	}
	return node, nil
}

// decimalCast is the DECIMAL type that holds text s exactly ("-12.340" -> DECIMAL(5,3)).
func decimalCast(s string) string {
	s = strings.TrimPrefix(s, "-")
	intDigits, scale := len(s), 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intDigits, scale = i, len(s)-i-1
	}
	return fmt.Sprintf("DECIMAL(%d,%d)", max(intDigits, 1)+scale, scale)
}
