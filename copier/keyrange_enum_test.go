package copier

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// copierDB is the database of the copier's tests.
const copierDB = "gl_copier"

// ENUM and SET key columns compare by number as IN lists, and by member text for equality.
func TestKeyRangeMemberTerms(t *testing.T) {
	orig := &table.Table{Schema: "s", Name: "t", Columns: []table.Column{
		{Name: "e", DataType: "enum", EnumValues: []string{"b", "c", "d"}, Charset: "latin1", Collation: "latin1_swedish_ci"},
		{Name: "s", DataType: "set", EnumValues: []string{"x", "y"}, Charset: "utf8mb4", Collation: "utf8mb4_bin"},
	}}
	k, err := newKeyRange(&Config{Original: orig, OriginalKey: table.Key{Name: "k", Columns: []string{"e", "s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if k.read != "`e`+0, `s`+0" {
		t.Errorf("key read as %s", k.read)
	}
	got, args := k.compare([]sql.RawBytes{sql.RawBytes("2"), sql.RawBytes("3")}, false, true)
	want := "(`e` IN (3)) OR (`e` = CONVERT(CONVERT(? USING utf8mb4) USING latin1) COLLATE latin1_swedish_ci AND `s` IN ())"
	want = strings.Replace(want, "`s` IN ()", "FALSE", 1)
	if got != want || !reflect.DeepEqual(args, []any{[]byte("c")}) {
		t.Errorf("greater:\n got %s %q\nwant %s", got, args, want)
	}
	got, args = k.compare([]sql.RawBytes{sql.RawBytes("0"), sql.RawBytes("3")}, true, false)
	want = "(FALSE) OR (`e` = ? AND `s` IN (0, 1, 2, 3))"
	if got != want || !reflect.DeepEqual(args, []any{uint64(0)}) {
		t.Errorf("error value, inclusive upper:\n got %s %v\nwant %s", got, args, want)
	}
	if text, ok := memberText(k.cols[1], 3); !ok || text != "x,y" {
		t.Errorf("SET 3 is %q", text)
	}
}

// Walking a key of ENUM (with the error value), SET and INT columns in chunks visits every row
// once, and each chunk's range is read through the index (not a scan from its start).
func TestKeyRangeWalksEnumAndSetKeys(t *testing.T) {
	db := testenv.Database(t, copierDB)
	members := make([]string, 300)
	for i := range members {
		members[i] = fmt.Sprintf("'m%03d'", i)
	}
	testenv.Exec(t, db,
		"CREATE TABLE ek (e ENUM('d','b','c') NOT NULL, s SET('z','x','y') NOT NULL, n INT NOT NULL, big ENUM("+strings.Join(members, ",")+") NOT NULL DEFAULT 'm000', PRIMARY KEY (e, s, n), UNIQUE KEY uk_big (big, n))",
		"INSERT INTO ek (e, s, n, big) SELECT ELT(1 + seq % 3, 'b', 'c', 'd'), ELT(1 + seq % 5, '', 'x', 'y', 'x,z', 'z,x,y'), seq, CONCAT('m', LPAD(seq % 300, 3, '0')) FROM seq_1_to_1500")
	testenv.ExecWithSQLMode(t, copierDB, "", "INSERT INTO ek (e, s, n) SELECT 'nosuch', 'x', seq FROM seq_1_to_40")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	orig, err := table.Inspect(ctx, db, copierDB, "ek")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, key := range []string{"PRIMARY", "uk_big"} {
		var k *keyRange
		for _, uk := range orig.UniqueKeys {
			if uk.Name == key {
				if k, err = newKeyRange(&Config{Original: orig, OriginalKey: uk}); err != nil {
					t.Fatal(err)
				}
			}
		}
		total, chunks := walkKeyRange(t, ctx, conn, k, 37)
		if total != 1540 {
			t.Errorf("%s: chunks hold %d rows in all, want 1540 (%d chunks)", key, total, chunks)
		}
	}
}

// walkKeyRange walks k in chunks of size rows as the copy does, counting the rows of each chunk
// and checking that the first chunk-end query after the first chunk reads a range of the index.
func walkKeyRange(t *testing.T, ctx context.Context, conn *sql.Conn, k *keyRange, size int) (total int64, chunks int) {
	t.Helper()
	min, max, err := k.bounds(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	lower, inclusive := min, true
	for ; ; chunks++ {
		upper, err := k.chunkEnd(ctx, conn, lower, inclusive, max, size)
		if err != nil {
			t.Fatal(err)
		}
		q, args := k.countSQL(lower, inclusive, upper)
		var n int64
		if err := conn.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		total += n
		if chunks == 1 {
			if typ := testenv.ExplainAccess(ctx, t, conn, q, args...); typ != "range" && typ != "ref" {
				t.Errorf("a chunk's count reads the index by %s, want a range: %s", typ, q)
			}
		}
		if k.equal(upper, max) || chunks > 1000 {
			return total, chunks + 1
		}
		lower, inclusive = upper, false
	}
}
