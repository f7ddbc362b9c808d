package binlogapply

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// The binary decimal format, on the vector of MySQL's decimal2bin comment and its negation; the
// server tests (TestJSONTypesAppliedAsServerALTER) cover precisions up to 65 and scales up to 30.
func TestDecodeBinaryDecimal(t *testing.T) {
	for _, c := range []struct {
		hex         string
		prec, scale int
		want        string
	}{
		{"810dfb38d204d2", 14, 4, "1234567890.1234"},
		{"7ef204c72dfb2d", 14, 4, "-1234567890.1234"},
		{"80", 1, 0, "0"},
		{"8000", 3, 2, "0.00"},
		{"80000000", 5, 2, "0.00"},
		{"809632", 5, 2, "150.50"},
	} {
		b, _ := hex.DecodeString(c.hex)
		got, err := decodeBinaryDecimal(b, c.prec, c.scale)
		if err != nil || got != c.want {
			t.Errorf("DECIMAL(%d,%d) %s: got %q, %v; want %q", c.prec, c.scale, c.hex, got, err, c.want)
		}
	}
	if _, err := decodeBinaryDecimal([]byte{0x81}, 14, 4); err == nil {
		t.Error("a truncated DECIMAL decoded")
	}
}

// A document seen in MySQL 9.7's binlog ([5, 115438237852, -3]): its text, and the integer that
// MySQL's JSON parser would read as UNSIGNED cast back to signed at its path.
func TestBinaryJSONDocument(t *testing.T) {
	b, _ := hex.DecodeString("0203001500050500090d0005fdff9cb8a7e01a000000")
	doc, err := parseBinaryJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := jsonWriteValue(doc).(jsonValue)
	if !ok || doc.textOf() != "[5,115438237852,-3]" {
		t.Fatalf("got %#v", jsonWriteValue(doc))
	}
	expr, args := v.sqlExpr()
	if want := "JSON_ARRAY(" + jsonPlaceholder + ", CAST(? AS SIGNED), " + jsonPlaceholder + ")"; expr != want || fmt.Sprintf("%s", args) != "[5 115438237852 -3]" {
		t.Errorf("got %s %s, want %s", expr, args, want)
	}
	for cut := range len(b) - 1 {
		if _, err := parseBinaryJSON(b[:cut]); err == nil {
			t.Errorf("document cut to %d bytes decoded", cut)
		}
	}
}

// Paths of partial updates, and the three operations on objects and arrays.
func TestJSONDiffsApplied(t *testing.T) {
	legs, err := parseJSONPath(`$.a[2]."q\"k".b`)
	if err != nil || fmt.Sprint(legs) != `[{true a 0} {false  2} {true q"k 0} {true b 0}]` {
		t.Fatalf("got %v, %v", legs, err)
	}
	for _, bad := range []string{"a", "$.*", "$[last]", "$**.a", `$."open`, "$[1"} {
		if _, err := parseJSONPath(bad); err == nil {
			t.Errorf("path %q parsed", bad)
		}
	}
	doc := &jsonNode{kind: jkObject, keys: []string{"a", "arr"}, elems: []*jsonNode{scalar("1"),
		{kind: jkArray, elems: []*jsonNode{scalar("10"), scalar("11")}}}}
	path := func(p string) []pathLeg {
		l, err := parseJSONPath(p)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	dec := &jsonNode{kind: jkScalar, text: "1.50", cast: "DECIMAL(3,2)", lit: "1.50"}
	doc, err = applyJSONDiffs(doc, []jsonDiff{
		{op: diffReplace, path: path("$.a"), value: dec},
		{op: diffInsert, path: path("$.arr[1]"), value: scalar(`"x"`)},
		{op: diffInsert, path: path("$.arr[9]"), value: scalar("12")},
		{op: diffRemove, path: path("$.arr[0]")},
		{op: diffInsert, path: path(`$."b c"`), value: scalar("true")},
	})
	if err != nil {
		t.Fatal(err)
	}
	expr, args := jsonWriteValue(doc).(jsonValue).sqlExpr()
	want := "JSON_OBJECT(CONVERT(? USING utf8mb4), CAST(? AS DECIMAL(3,2)), CONVERT(? USING utf8mb4), " + jsonPlaceholder +
		", CONVERT(? USING utf8mb4), " + jsonPlaceholder + ")"
	if doc.textOf() != `{"a":1.50,"arr":["x",11,12],"b c":true}` || expr != want || fmt.Sprintf("%s", args) != `[a 1.50 arr ["x",11,12] b c true]` {
		t.Errorf("got %s\n%s %s", doc.textOf(), expr, args)
	}
	root, _ := jsonWriteValue(dec).(jsonValue)
	if expr, _ := root.sqlExpr(); expr != "JSON_EXTRACT(JSON_ARRAY(CAST(? AS DECIMAL(3,2))), _utf8mb4'$[0]')" {
		t.Errorf("a DECIMAL document: %s", expr)
	}
	if _, err := applyJSONDiffs(doc, []jsonDiff{{op: diffReplace, path: path("$.missing.x"), value: scalar("1")}}); err == nil {
		t.Error("a change at a path missing from the document applied")
	}
}

// A jsonValue's placeholder becomes the expression that builds it, with its arguments in place; other values and
// placeholders are left alone.
func TestExpandJSONArgs(t *testing.T) {
	v := jsonWriteValue(&jsonNode{kind: jkArray, elems: []*jsonNode{{kind: jkScalar, text: "1.50", cast: "DECIMAL(3,2)", lit: "1.50"}}}).(jsonValue)
	q := "INSERT INTO g VALUES (?, " + jsonPlaceholder + ", ?), (?, " + jsonPlaceholder + ", ?)"
	got, args, err := expandJSONArgs(q, []any{1, v, "x", 2, []byte("[1]"), "y"})
	want := "INSERT INTO g VALUES (?, JSON_ARRAY(CAST(? AS DECIMAL(3,2))), ?), (?, " + jsonPlaceholder + ", ?)"
	if err != nil || got != want || fmt.Sprint(args) != fmt.Sprint([]any{1, "1.50", "x", 2, []byte("[1]"), "y"}) {
		t.Errorf("got %s %v %v", got, args, err)
	}
	if _, _, err := expandJSONArgs("UPDATE g SET a = ?", []any{v}); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("a jsonValue outside a JSON expression: %v", err)
	}
}
