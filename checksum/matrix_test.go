package checksum

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// matrixSource is a source column type and its values: edge values (extremes, precision limits)
// and plain ones (that more targets can hold); NULL is always added.
type matrixSource struct {
	typ         string
	edge, plain []string
}

var matrixSources = []matrixSource{
	{"TINYINT", []string{"-128", "127"}, []string{"0", "1", "-1", "12"}},
	{"INT", []string{"-2147483648", "2147483647"}, []string{"0", "7", "-7", "1999"}},
	{"BIGINT", []string{"-9223372036854775808", "9223372036854775807", "9007199254740993"}, []string{"0", "42", "-42"}},
	{"BIGINT UNSIGNED", []string{"18446744073709551615"}, []string{"0", "42", "2000"}},
	{"DECIMAL(12,4)", []string{"99999999.9999", "-12.5", "0.0001"}, []string{"0", "2.5", "-2.5", "0.5", "12"}},
	{"FLOAT", []string{"3.4e38", "-1.17549435e-38", "16777217", "1.0000001"}, []string{"0", "0.1", "2.5", "-2.5", "0.5", "12"}},
	{"DOUBLE", []string{"1.7976931348623157e308", "5e-324", "1.0000000000000002", "0.1"}, []string{"0", "2.5", "-2.5", "0.5", "4.5", "12"}},
	{"DATE", []string{"'1000-01-01'", "'9999-12-31'"}, []string{"'2024-02-29'", "'2026-01-02'"}},
	{"DATETIME(3)", []string{"'1000-01-01 00:00:00.000'", "'9999-12-31 23:59:59.999'"}, []string{"'2024-02-29 12:34:56.789'", "'2026-01-02 00:00:00.000'", "'2026-01-02 00:00:00.500'"}},
	{"TIME(2)", []string{"'-838:59:59.00'", "'838:59:58.99'"}, []string{"'00:00:00.01'", "'-00:00:00.01'", "'12:34:56.50'"}},
	{"YEAR", []string{"0", "1901", "2155"}, []string{"2000", "1999"}},
	{"VARCHAR(40) CHARACTER SET utf8mb4", []string{"''", "'x,y|'", "'é '", "'ü'"}, []string{"'12'", "'-7'", "'2.5'", "'0'", "'-2.5'", "'0.5'", "'1e3'", "'0.1'", "'-0.05'"}},
	{"CHAR(10) CHARACTER SET latin1", []string{"'é'", "'a b'"}, []string{"'12'", "'1'"}},
	{"ENUM('a','b','c,')", []string{"'c,'"}, []string{"'a'", "'b'"}},
	{"SET('a','b','c')", []string{"''", "'a,b,c'"}, []string{"'a'", "'b,c'"}},
	{"VARBINARY(20)", []string{"0x00ff", "''"}, []string{"'12'", "'abc'"}},
}

var matrixTargets = []string{
	"TINYINT", "SMALLINT UNSIGNED", "INT", "BIGINT", "BIGINT UNSIGNED", "DECIMAL(30,6)", "DECIMAL(6,1)",
	"FLOAT", "DOUBLE", "VARCHAR(60) CHARACTER SET utf8mb4", "CHAR(60) CHARACTER SET latin1",
	"TEXT CHARACTER SET utf8mb4", "VARBINARY(60)", "DATE", "DATETIME(6)", "TIME(3)", "YEAR",
	"ENUM('a','b','c,')",
}

// TestChecksumMatrix is generated over the families of column types: for every source type of
// matrixSources and target of matrixTargets, the server's own ALTER ... ALGORITHM=COPY of a
// column holding the source's values (all of them, or the plain ones, or those of them the server
// converts one by one), and the checksum's plan for the pair: where it compares the pair, its
// expression over the original must give, for every row, exactly the bytes the ALTER stored.
// Where it does not, the pair is left out (and would be named in the run's summary). The counts
// are logged; no pair may compare falsely.
func TestChecksumMatrix(t *testing.T) {
	ctx := context.Background()
	// One session, temporary tables: the server's conversions are the same, the DDL far cheaper.
	db, err := testenv.Database(t, testDB).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(stmts ...string) {
		for _, q := range stmts {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	srcTypes := make([]string, len(matrixSources))
	for i, src := range matrixSources {
		srcTypes[i] = src.typ
	}
	srcCols, dstCols := matrixColumns(t, srcTypes), matrixColumns(t, matrixTargets)
	flavor := testenv.Flavor(t)
	var compared, leftOut, refused int
	var out []string
	for si, src := range matrixSources {
		rows := matrixRows(src)
		exec("DROP TEMPORARY TABLE IF EXISTS t", fmt.Sprintf("CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, c %s NULL)", src.typ),
			"INSERT INTO t VALUES "+strings.Join(rows, ", "))
		orig := &table.Table{Columns: []table.Column{srcCols[si]}}
		for di, dst := range matrixTargets {
			ok := matrixAlter(ctx, db, dst, len(src.edge), len(rows))
			if !ok {
				refused++
				continue
			}
			ghost := &table.Table{Columns: []table.Column{dstCols[di]}}
			cols, skip, err := plan(orig, ghost, []Pair{{Original: "c", Ghost: "c"}}, flavor)
			if err != nil {
				t.Fatal(err)
			}
			if len(skip) > 0 {
				leftOut++
				out = append(out, src.typ+" -> "+dst)
				continue
			}
			compared++
			for _, d := range matrixDiffs(t, db, cols[0]) {
				t.Errorf("%s -> %s: %s", src.typ, dst, d)
			}
		}
	}
	sort.Strings(out)
	t.Logf("%d type pairs: %d compared exactly, %d left out, %d refused by the server for every value", compared+leftOut+refused, compared, leftOut, refused)
	t.Logf("left out: %s", strings.Join(out, "; "))
	if compared < 150 {
		t.Errorf("only %d pairs compared", compared)
	}
}

// matrixRows are the VALUES of a source: the edge values first (ids 1..), then the plain ones, then NULL.
func matrixRows(src matrixSource) []string {
	var rows []string
	for i, v := range append(append([]string{}, src.edge...), src.plain...) {
		rows = append(rows, fmt.Sprintf("(%d, %s)", i+1, v))
	}
	return append(rows, fmt.Sprintf("(%d, NULL)", len(rows)+1))
}

// matrixAlter makes g the server's ALTER of t to dst: of every row, or, when the server refuses
// that, of the plain rows (ids above edge), or of the plain rows it converts one by one. It
// returns false when the server refuses them all.
func matrixAlter(ctx context.Context, db *sql.Conn, dst string, edge, rows int) bool {
	alter := func(keep string) bool {
		stmts := []string{"DROP TEMPORARY TABLE IF EXISTS g", "CREATE TEMPORARY TABLE g LIKE t", "INSERT INTO g SELECT * FROM t WHERE " + keep,
			"ALTER TABLE g ALGORITHM=COPY, MODIFY c " + dst + " NULL"}
		for _, q := range stmts {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return false
			}
		}
		return true
	}
	if alter("TRUE") || alter(fmt.Sprintf("id > %d", edge)) {
		return true
	}
	var ids []string
	for id := edge + 1; id < rows; id++ { // the last row is the NULL
		if alter(fmt.Sprintf("id = %d", id)) {
			ids = append(ids, fmt.Sprint(id))
		}
	}
	return len(ids) > 0 && alter(fmt.Sprintf("id IN (%s, %d)", strings.Join(ids, ", "), rows))
}

// matrixDiffs compares, row by row, the checksum's expressions over t and g as the bytes it hashes.
func matrixDiffs(t *testing.T, db *sql.Conn, c compared) []string {
	t.Helper()
	// Only the rows the ALTER kept are read in t: a value the ALTER refuses may make the
	// expression fail (MySQL: CAST(ROUND(3.4e38) AS SIGNED) is an error, not a warning), as the copy
	// of such a row would.
	read := func(expr, from string) map[int][]byte {
		q := fmt.Sprintf("SELECT id, CAST(%s AS BINARY) FROM %s", expr, from)
		rows, err := db.QueryContext(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		m := map[int][]byte{}
		for rows.Next() {
			var id int
			var v []byte
			if err := rows.Scan(&id, &v); err != nil {
				t.Fatal(err)
			}
			m[id] = v
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return m
	}
	want := read(c.ghost, "g")
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, fmt.Sprint(id))
	}
	got := read(c.orig, "t WHERE id IN ("+strings.Join(ids, ", ")+")")
	if len(got) != len(want) {
		return []string{fmt.Sprintf("%d rows in t, %d in the ALTER's result", len(got), len(want))}
	}
	var diffs []string
	for id, w := range want {
		if g := got[id]; !bytes.Equal(g, w) || (g == nil) != (w == nil) {
			diffs = append(diffs, fmt.Sprintf("row %d: the checksum reads %q, the ALTER stored %q (via %s)", id, g, w, c.orig))
		}
	}
	return diffs
}

// matrixColumns inspects columns of the given types (named c), as the ALTER makes them: one real
// table holds them all (information_schema does not show temporary tables).
func matrixColumns(t *testing.T, types []string) []table.Column {
	t.Helper()
	defs := make([]string, len(types))
	for i, typ := range types {
		defs[i] = fmt.Sprintf("c%d %s NULL", i, typ)
	}
	db := testenv.Open(t, testenv.PrimaryConfig(), testDB)
	testenv.Exec(t, db, "DROP TABLE IF EXISTS types", "CREATE TABLE types ("+strings.Join(defs, ", ")+")")
	tbl, err := table.Inspect(context.Background(), db, testDB, "types")
	if err != nil {
		t.Fatal(err)
	}
	cols := make([]table.Column, len(types))
	for i := range types {
		cols[i] = tbl.Columns[i]
		cols[i].Name = "c"
	}
	return cols
}
