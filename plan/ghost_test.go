package plan

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

func testColumn(name, dataType string, nullable bool) table.Column {
	return table.Column{Name: name, DataType: dataType, ColumnType: dataType, Nullable: nullable}
}

func TestMapColumns(t *testing.T) {
	gen := testColumn("g", "int", true)
	gen.Generated = true
	orig := &table.Table{Name: "t", Columns: []table.Column{testColumn("id", "int", false), testColumn("a", "int", true), testColumn("b", "int", true), testColumn("x", "int", true), gen}}

	// CHANGE a b, DROP b (b's name now belongs to a), DROP x, ADD y.
	ghost := &table.Table{Name: "_t_gho", Columns: []table.Column{testColumn("id", "int", false), testColumn("B", "int", true), testColumn("y", "int", true), gen}}
	renames := []ColumnRename{{"A", "b"}}
	m, err := MapColumns(orig, ghost, renames, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	wantPairs := []ColumnPair{{Original: "id", Ghost: "id"}, {Original: "a", Ghost: "B"}}
	if !reflect.DeepEqual(m.Pairs, wantPairs) {
		t.Errorf("pairs = %v, want %v", m.Pairs, wantPairs)
	}
	if !reflect.DeepEqual(m.Dropped, []string{"b", "x"}) || !reflect.DeepEqual(m.Added, []string{"y"}) {
		t.Errorf("dropped %v added %v", m.Dropped, m.Added)
	}
	if !reflect.DeepEqual(m.Renames, map[string]string{"a": "b"}) || !reflect.DeepEqual(m.Generated, []string{"g"}) {
		t.Errorf("renames %v generated %v", m.Renames, m.Generated)
	}

	skipped, err := MapColumns(orig, ghost, renames, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(skipped.Pairs, []ColumnPair{{Original: "id", Ghost: "id"}}) || !reflect.DeepEqual(skipped.SkippedRenamed, []string{"a -> b"}) ||
		!reflect.DeepEqual(skipped.Added, []string{"B", "y"}) {
		t.Errorf("skip renamed: pairs %v skipped %v added %v", skipped.Pairs, skipped.SkippedRenamed, skipped.Added)
	}

	none := &table.Table{Name: "_t_gho", Columns: []table.Column{testColumn("z", "int", true)}}
	if _, err := MapColumns(orig, none, nil, nil, false); err == nil || !strings.Contains(err.Error(), "share no column") {
		t.Errorf("no shared column: %v", err)
	}
}

func TestChooseSharedKey(t *testing.T) {
	mk := func(cols []table.Column, keys ...table.Key) *table.Table {
		return &table.Table{Schema: "gl", Name: "t", Columns: cols, UniqueKeys: keys}
	}
	pk := table.Key{Name: "PRIMARY", Columns: []string{"id"}, Primary: true}
	uk := table.Key{Name: "uk_u", Columns: []string{"u"}}
	cols := []table.Column{testColumn("id", "bigint", false), testColumn("u", "varchar", false), testColumn("n", "int", true), testColumn("f", "double", false)}
	pairs := []ColumnPair{{Original: "id", Ghost: "id"}, {Original: "u", Ghost: "u"}, {Original: "n", Ghost: "n"}, {Original: "f", Ghost: "f"}}

	if o, g, err := chooseSharedKey(mk(cols, pk, uk), mk(cols, pk, uk), pairs); err != nil || o.Name != "PRIMARY" || g.Name != "PRIMARY" {
		t.Fatalf("PRIMARY preferred: %v %v %v", o, g, err)
	}
	if o, _, err := chooseSharedKey(mk(cols, pk, uk), mk(cols, uk), pairs); err != nil || o.Name != "uk_u" {
		t.Fatalf("falls back to a unique key: %v %v", o, err)
	}
	// The ghost's key follows a renamed column.
	renamedCols := []table.Column{testColumn("id", "bigint", false), testColumn("u2", "varchar", false)}
	renamedKey := table.Key{Name: "uk_u", Columns: []string{"u2"}}
	o, g, err := chooseSharedKey(mk(cols, uk), mk(renamedCols, renamedKey), []ColumnPair{{Original: "id", Ghost: "id"}, {Original: "u", Ghost: "u2"}})
	if err != nil || o.Columns[0] != "u" || g.Columns[0] != "u2" {
		t.Fatalf("renamed key column: %v %v %v", o, g, err)
	}

	refusals := []struct {
		orig, ghost *table.Table
		phrase      string
	}{
		{mk(cols), mk(cols), "no PRIMARY nor UNIQUE key found in table! Bailing out: gl.t needs a unique NOT NULL key"},
		{mk(cols, pk), mk(cols), "no PRIMARY nor UNIQUE key found in table t after the ALTER (the original's PRIMARY (id) is not in the altered table); keep a unique NOT NULL key in both"},
		{mk(cols, table.Key{Name: "uk_n", Columns: []string{"n"}}), mk(cols, table.Key{Name: "uk_n", Columns: []string{"n"}}), "uk_n (n) has nullable column n"},
		{mk(cols, table.Key{Name: "PRIMARY", Columns: []string{"f"}}), mk(cols, table.Key{Name: "PRIMARY", Columns: []string{"f"}}), "has FLOAT/DOUBLE column f"},
		{mk(cols, table.Key{Name: "uk_p", Columns: []string{"u"}, HasPrefix: true}), mk(cols, table.Key{Name: "uk_p", Columns: []string{"u"}, HasPrefix: true}), "indexes a column prefix"},
		{mk(cols, uk), mk([]table.Column{testColumn("id", "bigint", false), testColumn("u", "varchar", true)}, uk), "has nullable column u in the altered table"},
		{mk(cols, table.Key{Name: "uk_iu", Columns: []string{"id", "u", "n"}}), mk(cols, table.Key{Name: "uk_ui", Columns: []string{"u", "id"}}), "uk_iu (id, u, n) has nullable column n"},
	}
	for _, r := range refusals {
		t.Run(r.phrase, func(t *testing.T) {
			if _, _, err := chooseSharedKey(r.orig, r.ghost, pairs); err == nil || !strings.Contains(err.Error(), r.phrase) {
				t.Errorf("got %v, want %q", err, r.phrase)
			}
		})
	}
}

// A unique key of the ghost whose columns include an original unique key addresses rows when no
// key is in both tables (DROP PRIMARY KEY, ADD PRIMARY KEY (grp, id)); the copy walks the original's.
func TestChooseSharedKeyExtendingOriginal(t *testing.T) {
	mk := func(cols []table.Column, keys ...table.Key) *table.Table {
		return &table.Table{Schema: "gl", Name: "t", Columns: cols, UniqueKeys: keys}
	}
	pk := table.Key{Name: "PRIMARY", Columns: []string{"id"}, Primary: true}
	key := func(name string, cols ...string) table.Key {
		return table.Key{Name: name, Columns: cols, Primary: name == "PRIMARY"}
	}
	cols := []table.Column{testColumn("id", "bigint", false), testColumn("u", "varchar", false), testColumn("n", "int", true), testColumn("f", "double", false)}
	pairs := []ColumnPair{{Original: "id", Ghost: "id"}, {Original: "u", Ghost: "u"}, {Original: "n", Ghost: "n"}, {Original: "f", Ghost: "f"}}
	notNullN := append([]table.Column(nil), cols...)
	notNullN[2].Nullable = false
	ciU := append([]table.Column(nil), cols...)
	ciU[1].Collation, ciU[1].Charset = "utf8mb4_general_ci", "utf8mb4"
	withA := append(append([]table.Column(nil), cols...), testColumn("a", "int", false))

	accepted := []struct {
		name        string
		orig, ghost *table.Table
		okey, gkey  string
	}{
		{"primary key extended", mk(cols, pk), mk(cols, key("PRIMARY", "u", "id")), "PRIMARY (id)", "PRIMARY (u, id)"},
		{"key columns reordered", mk(cols, key("uk_iu", "id", "u")), mk(cols, key("uk_ui", "u", "id")), "uk_iu (id, u)", "uk_ui (u, id)"},
		{"a key in both is preferred", mk(cols, pk, key("uk_u", "u")), mk(cols, key("PRIMARY", "u", "id"), key("uk_u", "u")), "uk_u (u)", "uk_u (u)"},
		{"unique key extended", mk(cols, key("uk_u", "u")), mk(cols, key("uk_uid", "u", "id")), "uk_u (u)", "uk_uid (u, id)"},
	}
	for _, c := range accepted {
		t.Run(c.name, func(t *testing.T) {
			o, g, err := chooseSharedKey(c.orig, c.ghost, pairs)
			if err != nil || DescribeKey(o) != c.okey || DescribeKey(g) != c.gkey {
				t.Errorf("%s: got %s / %s / %v, want %s / %s", c.name, DescribeKey(o), DescribeKey(g), err, c.okey, c.gkey)
			}
		})
	}

	refused := []struct {
		name        string
		orig, ghost *table.Table
	}{
		{"column nullable in the original", mk(cols, pk), mk(notNullN, key("PRIMARY", "n", "id"))},
		{"FLOAT column", mk(cols, pk), mk(cols, key("PRIMARY", "f", "id"))},
		{"column not copied", mk(cols, pk), mk(withA, key("PRIMARY", "a", "id"))},
		{"column changes collation", mk(cols, pk), mk(ciU, key("PRIMARY", "u", "id"))},
		{"no original key included", mk(cols, key("uk_u", "u")), mk(cols, key("PRIMARY", "id", "f"))},
		{"column prefix", mk(cols, pk), mk(cols, table.Key{Name: "PRIMARY", Columns: []string{"u", "id"}, HasPrefix: true})},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			if o, g, err := chooseSharedKey(c.orig, c.ghost, pairs); err == nil || !strings.Contains(err.Error(), "no shared unique key") {
				t.Errorf("%s: got %s / %s / %v, want a refusal", c.name, DescribeKey(o), DescribeKey(g), err)
			}
		})
	}
}

// ZeroDateChecks: the zero date check counts only with a strict mode; the zero month or day check
// always (a non-strict ALTER changes such a value).
func TestZeroDateChecks(t *testing.T) {
	for _, c := range []struct {
		mode           string
		zero, zeroPart bool
	}{
		{"STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION", true, true},
		{"STRICT_ALL_TABLES,NO_ZERO_DATE", true, false},
		// Not strict: the ALTER keeps a zero date (with a warning) and turns a zero month or day
		// into the zero date, a change the writers refuse.
		{"NO_ZERO_DATE,NO_ZERO_IN_DATE", false, true},
		{"STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION", false, false},
	} {
		if z, p := ZeroDateChecks(c.mode); z != c.zero || p != c.zeroPart {
			t.Errorf("ZeroDateChecks(%q) = %v, %v; want %v, %v", c.mode, z, p, c.zero, c.zeroPart)
		}
	}
}
