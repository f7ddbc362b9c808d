package binlogapply

import (
	"reflect"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// A record keeps, per shared key, the last state the applied changes left: the after image of an
// insert or update, "absent" for a delete and for the old key of a key change; none of a key
// outside its span.
func TestKeyRecordKeepsTheLastStateOfEachKey(t *testing.T) {
	k := func(id int64) []any { return []any{id} }
	r := &keyRecord{last: map[string]*change{}}
	r.add(&change{kind: chInsert, newKey: k(1), values: []any{int64(1), "a"}})
	r.add(&change{kind: chUpdate, oldKey: k(1), newKey: k(1), values: []any{int64(1), "b"}})
	r.add(&change{kind: chUpdate, oldKey: k(2), newKey: k(3), values: []any{int64(3), "moved"}})
	r.add(&change{kind: chDelete, oldKey: k(4)})
	r.add(&change{kind: chDelete, oldKey: k(3)})
	r.add(&change{kind: chInsert, newKey: k(4), values: []any{int64(4), "back"}})
	// a record whose span is the chunk (0, 4]: key 5 is outside it
	r.span, r.keyOf = table.KeySpan{Column: "id", Lower: "0", Upper: "4"}, "id"
	r.add(&change{kind: chUpdate, oldKey: k(4), newKey: k(5), values: []any{int64(5), "out"}})
	r.add(&change{kind: chInsert, newKey: k(4), values: []any{int64(4), "back"}})

	want := map[int64]*change{
		1: {kind: chInsert, newKey: k(1), values: []any{int64(1), "b"}},
		2: {kind: chDelete, oldKey: k(2)},
		3: {kind: chDelete, oldKey: k(3)},
		4: {kind: chInsert, newKey: k(4), values: []any{int64(4), "back"}},
	}
	if len(r.order) != len(want) || len(r.last) != len(want) {
		t.Fatalf("%d keys recorded (%d in order), want %d", len(r.last), len(r.order), len(want))
	}
	for id, w := range want {
		if got := r.last[keyString(k(id))]; !reflect.DeepEqual(got, w) {
			t.Errorf("key %d: %+v, want %+v", id, got, w)
		}
	}
	if r.order[0] != keyString(k(1)) || r.order[1] != keyString(k(2)) {
		t.Errorf("keys not in first-written order: %q", r.order)
	}
}
