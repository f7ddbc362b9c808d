package binlogapply

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// jsonGen writes SQL expressions of random JSON documents: DECIMALs of many precisions and scales
// (negative, zero, with and without fractions), DOUBLEs, signed and unsigned integers, strings
// with characters to escape, literals, DATE/TIME/DATETIME values, in objects and arrays nested a
// few levels deep, under keys that need quoting in a path.
type jsonGen struct {
	r *rand.Rand
	// mariaDB leaves non-ASCII text out (MariaDB's JSON functions turn it into latin1 in a binary
	// session) and binary strings (MySQL's opaque JSON values).
	mariaDB bool
}

func (g jsonGen) text(list []string) string {
	s := list[g.r.Intn(len(list))]
	if g.mariaDB && strings.ContainsAny(s, "éö€") {
		return "_utf8mb4'ascii'"
	}
	return s
}

func (g jsonGen) decimal() string {
	p := 1 + g.r.Intn(65)
	s := g.r.Intn(min(30, p) + 1)
	var b strings.Builder
	if g.r.Intn(3) == 0 {
		b.WriteByte('-')
	}
	ints := g.r.Intn(p - s + 1)
	if ints == 0 {
		b.WriteByte('0')
	}
	for range ints {
		b.WriteByte(byte('0' + g.r.Intn(10)))
	}
	if s > 0 {
		b.WriteByte('.')
		for range s {
			b.WriteByte(byte('0' + g.r.Intn(10)))
		}
	}
	if g.r.Intn(8) == 0 {
		return fmt.Sprintf("CAST('0' AS DECIMAL(%d,%d))", p, s)
	}
	return fmt.Sprintf("CAST('%s' AS DECIMAL(%d,%d))", b.String(), p, s)
}

var jsonGenStrings = []string{"_utf8mb4'plain'", `_utf8mb4'quote " inside'`, `_utf8mb4'back\\slash'`, "_utf8mb4'Größe €'", "_utf8mb4''",
	"CONCAT(_utf8mb4'tab', CHAR(9 USING utf8mb4), _utf8mb4'nl', CHAR(10 USING utf8mb4))", "_utf8mb4'1.50'"}
var jsonGenKeys = []string{"_utf8mb4'a'", "_utf8mb4'b c'", "_utf8mb4'é'", `_utf8mb4'q"k'`, "_utf8mb4''", "_utf8mb4'1'", "_utf8mb4'x.y'", "_utf8mb4'k'"}

func (g jsonGen) scalar() string {
	switch g.r.Intn(12) {
	case 0, 1, 2, 3:
		return g.decimal()
	case 4:
		f := []string{"1.5", "3.0", "-0.1", "1e300", "123456789.123", "0.000001", "2.5e-7"}
		return fmt.Sprintf("CAST('%s' AS DOUBLE)", f[g.r.Intn(len(f))])
	case 5:
		return strconv.FormatInt(g.r.Int63n(1<<40)-(1<<39), 10)
	case 6:
		if g.r.Intn(2) == 0 {
			return fmt.Sprintf("CAST(%d AS UNSIGNED)", g.r.Int63n(100000))
		}
		return fmt.Sprintf("CAST(%d AS UNSIGNED)", uint64(1<<63)+uint64(g.r.Int63n(1000)))
	case 7:
		return g.text(jsonGenStrings)
	case 10:
		if !g.mariaDB {
			return []string{"CAST(x'01ff00' AS BINARY)", "CAST(_utf8mb4'' AS BINARY)", "x'41'"}[g.r.Intn(3)]
		}
	case 8:
		return []string{"NULL", "TRUE", "FALSE", "JSON_EXTRACT(_utf8mb4'[null]', _utf8mb4'$[0]')"}[g.r.Intn(4)]
	case 9:
		return []string{"CAST('2020-02-29' AS DATE)", "CAST('12:34:56.5' AS TIME(6))", "CAST('-01:02:03' AS TIME)",
			"CAST('2021-03-28 02:30:00.123456' AS DATETIME(6))", "CAST('1000-01-01 00:00:00' AS DATETIME)"}[g.r.Intn(5)]
	}
	return g.decimal()
}

func (g jsonGen) value(depth int) string {
	if depth <= 0 || g.r.Intn(3) == 0 {
		return g.scalar()
	}
	n := g.r.Intn(5)
	parts := make([]string, 0, 2*n)
	if g.r.Intn(2) == 0 {
		for range n {
			parts = append(parts, g.value(depth-1))
		}
		return "JSON_ARRAY(" + strings.Join(parts, ", ") + ")"
	}
	for range n {
		parts = append(parts, g.text(jsonGenKeys), g.value(depth-1))
	}
	return "JSON_OBJECT(" + strings.Join(parts, ", ") + ")"
}

// document is a whole column value: a container, or a scalar (a DECIMAL at the root), as JSON.
func (g jsonGen) document() string {
	return "JSON_EXTRACT(JSON_ARRAY(" + g.value(4) + "), _utf8mb4'$[0]')"
}

// jsonTypesCase is a table whose JSON columns stay JSON (j), become text (t, v) and stay JSON beside
// a changed column (k), and the ALTER that the server's own ALTER judges.
const (
	jsonTypesOrig  = `CREATE TABLE %s (id INT PRIMARY KEY, j JSON NULL, t JSON NULL, v JSON NULL, k JSON NULL, n INT NULL)`
	jsonTypesGhost = `CREATE TABLE %s (id INT PRIMARY KEY, j JSON NULL, t LONGTEXT CHARACTER SET utf8mb4 NULL, v VARCHAR(4000) CHARACTER SET utf8mb4 NULL, k JSON NULL, n BIGINT NULL)`
	jsonTypesAlter = `MODIFY t LONGTEXT CHARACTER SET utf8mb4 NULL, MODIFY v VARCHAR(4000) CHARACTER SET utf8mb4 NULL, MODIFY n BIGINT NULL`
)

// Generated JSON documents written by inserts and updates reach the ghost exactly as the server's
// own ALTER copies them: the same text in JSON and in text columns (a DECIMAL keeps its digits,
// 1.50 and not the DOUBLE 1.5), and on MySQL the same JSON type at every leaf (DECIMAL, UNSIGNED
// INTEGER, DATE, TIME, DATETIME, which JSON text turns into DOUBLE, INTEGER and STRING). On
// MariaDB JSON is a LONGTEXT and the same documents are text. Fails on the applier that wrote
// go-mysql's JSON text.
func TestJSONTypesAppliedAsServerALTER(t *testing.T) {
	f := newFixture(t, "json_types", jsonTypesOrig, fixtureOpts{ghostDDL: jsonTypesGhost})
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	g := jsonGen{r: rand.New(rand.NewSource(seed)), mariaDB: f.flavor.MariaDB}
	for id := 1; id <= 60; id++ {
		f.exec(fmt.Sprintf("INSERT INTO {T} VALUES (%d, %s, %s, %s, %s, %d)", id, g.document(), g.document(), g.document(), g.document(), id))
	}
	f.exec(`INSERT INTO {T} VALUES (61, JSON_EXTRACT(JSON_ARRAY(CAST('1.50' AS DECIMAL(3,2))), _utf8mb4'$[0]'), JSON_OBJECT(_utf8mb4'a', 1.50), JSON_ARRAY(-0.000, 12345678901234567890.123456789), JSON_EXTRACT(JSON_ARRAY(1.50), _utf8mb4'$[0]'), 0)`)
	for id := 1; id <= 61; id += 2 {
		f.exec(fmt.Sprintf("UPDATE {T} SET j = %s, t = %s, v = %s WHERE id = %d", g.document(), g.document(), g.document(), id))
	}
	f.exec("DELETE FROM {T} WHERE id = 4")
	f.sentinel(30 * time.Second)
	compareJSONWithServerALTER(t, f, jsonTypesAlter, []string{"j", "t", "v", "k", "n"}, 60)
}

// compareJSONWithServerALTER runs the server's own ALTER on a copy of the original and checks the
// ghost's rows equal its rows: the text of every column and, on MySQL, the JSON type of every leaf
// of the JSON columns.
func compareJSONWithServerALTER(t *testing.T, f *fixture, alter string, cols []string, wantRows int) {
	t.Helper()
	expected := f.ghost + "_expected"
	qe := table.Qualify(testSchema, expected)
	f.exec("DROP TABLE IF EXISTS "+qe, "CREATE TABLE "+qe+" LIKE {T}", "INSERT INTO "+qe+" SELECT * FROM {T}", "ALTER TABLE "+qe+" "+alter+", ALGORITHM=COPY")
	var same []string
	for _, c := range cols {
		same = append(same, fmt.Sprintf("CAST(g.`%s` AS CHAR) <=> CAST(e.`%s` AS CHAR)", c, c))
	}
	q := fmt.Sprintf("SELECT COUNT(*), COALESCE(SUM(%s), 0) FROM %s g JOIN %s e USING (id)", strings.Join(same, " AND "),
		table.Qualify(testSchema, f.ghost), qe)
	var total, equal int
	if err := f.db.QueryRow(q).Scan(&total, &equal); err != nil {
		t.Fatal(err)
	}
	if n := testenv.CountRows(t, f.db, testSchema, f.ghost); total != wantRows || equal != total || n != int64(wantRows) {
		t.Errorf("%d of %d joined rows (ghost %d, want %d) are the server's ALTER of the original's", equal, total, n, wantRows)
		reportJSONDifferences(t, f, qe, cols)
	}
	if f.flavor.MariaDB {
		return
	}
	for _, c := range cols {
		if f.cfg.Ghost.Columns[columnIndex(f.cfg.Ghost, c)].DataType == "json" {
			compareJSONLeafTypes(t, f, qe, c)
		}
	}
}

func columnIndex(tb *table.Table, name string) int {
	for i, c := range tb.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func reportJSONDifferences(t *testing.T, f *fixture, qe string, cols []string) {
	for _, c := range cols {
		q := fmt.Sprintf("SELECT id, CAST(g.`%s` AS CHAR), CAST(e.`%s` AS CHAR) FROM %s g JOIN %s e USING (id) WHERE NOT CAST(g.`%s` AS CHAR) <=> CAST(e.`%s` AS CHAR) LIMIT 3",
			c, c, table.Qualify(testSchema, f.ghost), qe, c, c)
		for id, pair := range queryTexts(t, f, q) {
			t.Logf("id %d column %s:\n ghost    %s\n expected %s", id, c, pair[0], pair[1])
		}
	}
}

// queryTexts runs q (an id and one or two texts per row) and returns the texts by id.
func queryTexts(t *testing.T, f *fixture, q string) map[int][2]string {
	t.Helper()
	rows, err := f.db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][2]string{}
	for rows.Next() {
		var id int
		var a, b *string
		dest := []any{&id, &a, &b}[:len(cols)]
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		out[id] = [2]string{deref(a), deref(b)}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}

// compareJSONLeafTypes checks JSON_TYPE at every leaf of column c, ghost against expected.
func compareJSONLeafTypes(t *testing.T, f *fixture, qe, c string) {
	t.Helper()
	docs := map[int]string{}
	for id, d := range queryTexts(t, f, fmt.Sprintf("SELECT id, CAST(`%s` AS CHAR) FROM %s WHERE `%s` IS NOT NULL", c, qe, c)) {
		docs[id] = d[0]
	}
	checked := 0
	for id, doc := range docs {
		var v any
		dec := json.NewDecoder(strings.NewReader(doc))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("row %d: %v", id, err)
		}
		var paths []string
		leafPaths(v, "$", &paths)
		var types []string
		for _, p := range paths {
			types = append(types, fmt.Sprintf("JSON_TYPE(JSON_EXTRACT(`%s`, %s))", c, sqlString(p)))
		}
		sel := "JSON_ARRAY(" + strings.Join(types, ", ") + ")"
		var got, want string
		if err := f.db.QueryRow(fmt.Sprintf("SELECT CAST(%s AS CHAR) FROM %s WHERE id = %d", sel, table.Qualify(testSchema, f.ghost), id)).Scan(&got); err != nil {
			t.Fatalf("row %d: %v", id, err)
		}
		if err := f.db.QueryRow(fmt.Sprintf("SELECT CAST(%s AS CHAR) FROM %s WHERE id = %d", sel, qe, id)).Scan(&want); err != nil {
			t.Fatalf("row %d: %v", id, err)
		}
		if got != want {
			t.Errorf("row %d column %s: leaf JSON types %s, the server's ALTER has %s (paths %v)", id, c, got, want, paths)
		}
		checked += len(paths)
	}
	if checked == 0 {
		t.Errorf("column %s: no JSON leaf compared", c)
	}
}

func leafPaths(v any, path string, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			leafPaths(e, path+"."+quoteJSON([]byte(k)), out)
		}
	case []any:
		for i, e := range x {
			leafPaths(e, path+"["+strconv.Itoa(i)+"]", out)
		}
	default:
		*out = append(*out, path)
	}
}

// sqlString is s as a utf8mb4 SQL string literal (quotes doubled, backslashes escaped).
func sqlString(s string) string {
	return "_utf8mb4'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
}

// With binlog_row_value_options=PARTIAL_JSON (MySQL) updates through JSON_SET, JSON_REPLACE and
// JSON_REMOVE of a column reach the binlog as changes of the document (PARTIAL_UPDATE_ROWS_EVENT,
// even under binlog_row_image=FULL): the applier rebuilds each document from the before image and
// the ghost equals the server's ALTER, text and leaf types, in JSON columns and in JSON columns
// converted to text. Several paths per statement, members added and removed, array cells replaced,
// appended and removed, DECIMALs set in place. Fails on the applier that refused partial updates.
func TestMySQLPartialJSONAppliedAsServerALTER(t *testing.T) {
	testenv.OnlyMySQL(t, "binlog_row_value_options is MySQL's")
	var partial atomic.Int64
	// Columns of every binlog type beside the JSON ones: the partial-update bitmap is found by
	// walking the row images (jsonlayout.go).
	const others = `, d DECIMAL(20,6) NULL, dt DATETIME(6) NULL, ts TIMESTAMP(3) NULL, tm TIME(2) NULL, y YEAR NULL,
		b BIT(10) NULL, e ENUM('a','b') NULL, st SET('x','y') NULL, c CHAR(10) NULL, vc VARCHAR(300) NULL, bl BLOB NULL,
		fl FLOAT NULL, db DOUBLE NULL, ti TINYINT NULL, mi MEDIUMINT NULL, bi BIGINT NULL, da DATE NULL, vb VARBINARY(20) NULL,
		bn BINARY(3) NULL, g POINT NULL, d0 DATETIME NULL)`
	orig := strings.TrimSuffix(jsonTypesOrig, ")") + others
	ghost := strings.TrimSuffix(jsonTypesGhost, ")") + others
	f := newFixture(t, "json_partial", orig, fixtureOpts{ghostDDL: ghost, noStart: true})
	f.afterEvent = func(ev *replication.BinlogEvent) error {
		if ev.Header.EventType == replication.PARTIAL_UPDATE_ROWS_EVENT {
			partial.Add(1)
		}
		return nil
	}
	f.start()
	g := jsonGen{r: rand.New(rand.NewSource(time.Now().UnixNano()))}
	shape := func() string {
		return fmt.Sprintf("JSON_OBJECT(_utf8mb4'a', %s, _utf8mb4'b', %s, _utf8mb4'arr', JSON_ARRAY(%s, %s, %s), _utf8mb4'n', JSON_OBJECT(_utf8mb4'x', %s, _utf8mb4'pad', REPEAT(_utf8mb4'p', 200)))",
			g.scalar(), g.value(2), g.scalar(), g.decimal(), g.scalar(), g.decimal())
	}
	const rows = 30
	for id := 1; id <= rows; id++ {
		f.exec(fmt.Sprintf("INSERT INTO {T} VALUES (%d, %s, %s, %s, %s, %d, %s)", id, shape(), shape(), shape(), shape(), id, otherValues(id)))
	}
	ops := []func(c string) string{
		func(c string) string { return fmt.Sprintf("JSON_SET(%s, _utf8mb4'$.a', %s)", c, g.decimal()) },
		func(c string) string {
			return fmt.Sprintf("JSON_REPLACE(%s, _utf8mb4'$.n.x', %s, _utf8mb4'$.arr[1]', %s)", c, g.scalar(), g.decimal())
		},
		func(c string) string { return fmt.Sprintf("JSON_REMOVE(%s, _utf8mb4'$.b')", c) },
		func(c string) string {
			return fmt.Sprintf("JSON_SET(%s, _utf8mb4'$.b', %s, _utf8mb4'$.new', %s)", c, g.value(2), g.decimal())
		},
		func(c string) string { return fmt.Sprintf("JSON_REMOVE(%s, _utf8mb4'$.arr[0]')", c) },
		func(c string) string { return fmt.Sprintf("JSON_SET(%s, _utf8mb4'$.arr[9]', %s)", c, g.scalar()) },
		func(c string) string {
			return fmt.Sprintf(`JSON_SET(%s, _utf8mb4'$."b c"', %s, _utf8mb4'$.n.x', 7)`, c, g.decimal())
		},
		func(c string) string { return fmt.Sprintf("JSON_REPLACE(%s, _utf8mb4'$.a', %s)", c, g.scalar()) },
	}
	stmts := []string{"SET SESSION binlog_row_value_options = 'PARTIAL_JSON'"}
	for range 150 {
		id := 1 + g.r.Intn(rows)
		c := []string{"j", "t", "v", "k"}[g.r.Intn(4)]
		set := fmt.Sprintf("%s = %s", c, ops[g.r.Intn(len(ops))](c))
		if g.r.Intn(4) == 0 { // two columns in one statement, one of them maybe not JSON
			set += ", n = n + 1, vc = CONCAT(COALESCE(vc, ''), 'w')"
		}
		stmts = append(stmts, fmt.Sprintf("UPDATE {T} SET %s WHERE id = %d", set, id))
	}
	stmts = append(stmts, "BEGIN", "UPDATE {T} SET j = JSON_SET(j, _utf8mb4'$.a', 1.25) WHERE id <= 10",
		"UPDATE {T} SET k = JSON_REMOVE(k, _utf8mb4'$.n') WHERE id <= 5", "COMMIT")
	f.onOneConn(stmts...)
	f.sentinel(30 * time.Second)
	if partial.Load() == 0 {
		t.Fatal("no PARTIAL_UPDATE_ROWS_EVENT was read: the test proves nothing")
	}
	t.Logf("%d partial update events applied", partial.Load())
	compareJSONWithServerALTER(t, f, jsonTypesAlter, []string{"j", "t", "v", "k", "n", "d", "dt", "ts", "tm", "y", "b", "e", "st",
		"c", "vc", "bl", "fl", "db", "ti", "mi", "bi", "da", "vb", "bn", "g", "d0"}, rows)
}

// otherValues are values of the partial test's other columns, NULL in every third row.
func otherValues(id int) string {
	if id%3 == 0 {
		return strings.TrimSuffix(strings.Repeat("NULL, ", 21), ", ")
	}
	return fmt.Sprintf("%d.123456, '2020-01-02 03:04:05.123456', '2021-01-01 00:00:00.5', '-12:34:56.78', 2001, b'1010101010', 'b', 'x,y', "+
		"'chars', REPEAT('v', %d), REPEAT(x'00ff', %d), 1.5, -2.25e100, -7, 8388607, -9223372036854775808, '2000-02-29', x'0001', 'ab', "+
		"ST_GeomFromText('POINT(1 2)'), '1999-12-31 23:59:59'", id, 250+id, id*10)
}
