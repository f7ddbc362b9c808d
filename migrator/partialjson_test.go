package migrator

import (
	"database/sql"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The JSON case of the server-globals matrix (MySQL): with binlog_row_value_options=PARTIAL_JSON
// set globally, a migration under a load of JSON_SET / JSON_REPLACE / JSON_REMOVE updates (logged
// as partial JSON changes) and inserts, DECIMALs everywhere, gives the server's own ALTER's rows,
// in a JSON column kept and in one the ALTER turns into text. The binlog must show partial update
// events, or the test proves nothing. Fails on the tool that refused PARTIAL_JSON.
func TestPartialJSONGlobalMigratesAsServerAlter(t *testing.T) {
	testenv.OnlyMySQL(t, "binlog_row_value_options is MySQL's")
	const (
		create = "CREATE TABLE t (id INT PRIMARY KEY, j JSON NOT NULL, t JSON NULL, n INT NOT NULL)"
		fill   = `INSERT INTO t SELECT seq, JSON_OBJECT(_utf8mb4'a', CAST(seq / 8 AS DECIMAL(12,3)), _utf8mb4'b', seq, _utf8mb4'arr', JSON_ARRAY(1.50, seq * 1.25, _utf8mb4'x'),
			_utf8mb4'n', JSON_OBJECT(_utf8mb4'x', -0.001, _utf8mb4'pad', REPEAT(_utf8mb4'p', 100))), JSON_ARRAY(seq / 3, CAST(2.50 AS JSON)), seq FROM seq_1_to_1500`
		alter = "MODIFY t LONGTEXT CHARACTER SET utf8mb4 NULL, ADD COLUMN z INT NOT NULL DEFAULT 7"
	)
	db, cfg, postponeFlag := sameResultSetup(t, create, alter, fill)
	testenv.SetGlobal(t, db, "binlog_row_value_options", "PARTIAL_JSON")
	var file string
	var pos int64
	if err := db.QueryRow("SHOW BINARY LOG STATUS").Scan(&file, &pos, new(any), new(any), new(any)); err != nil {
		t.Fatal(err)
	}
	loadDB := testenv.Open(t, testenv.PrimaryConfig(), cfg.Database) // sessions opened with the new global
	dec := func(r *rand.Rand) string { return fmt.Sprintf("%d.%03d", r.Intn(2000)-1000, r.Intn(1000)) }
	id := func(r *rand.Rand) int { return 1 + r.Intn(1500) }
	load := loadgen.Start(t.Context(), loadgen.Config{DB: loadDB, Rate: 300, Workers: 2, Ops: []loadgen.Op{
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET j = JSON_SET(j, _utf8mb4'$.a', CAST(? AS DECIMAL(12,3))) WHERE id = ?", []any{dec(r), id(r)}
		},
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET j = JSON_REPLACE(j, _utf8mb4'$.n.x', CAST(? AS DECIMAL(9,3)), _utf8mb4'$.arr[1]', ?) WHERE id = ?", []any{dec(r), r.Intn(100), id(r)}
		},
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET j = JSON_REMOVE(j, _utf8mb4'$.b'), n = n + 1 WHERE id = ?", []any{id(r)}
		},
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET j = JSON_SET(j, _utf8mb4'$.b', CAST(? AS DECIMAL(6,1)), _utf8mb4'$.arr[7]', 2.25) WHERE id = ?", []any{r.Intn(9999), id(r)}
		},
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET t = JSON_SET(t, _utf8mb4'$[0]', CAST(? AS DECIMAL(12,3))) WHERE id = ?", []any{dec(r), id(r)}
		},
		func(r *rand.Rand) (string, []any) {
			return "INSERT INTO t VALUES (?, JSON_OBJECT(_utf8mb4'a', CAST(? AS DECIMAL(12,3)), _utf8mb4'n', JSON_OBJECT(_utf8mb4'x', 0.000)), JSON_ARRAY(1.0, 1.00), 0) " +
				"ON DUPLICATE KEY UPDATE j = JSON_SET(j, _utf8mb4'$.a', 9.990)", []any{1500 + r.Intn(500), dec(r)}
		},
	}})
	defer load.Stop()
	done := runMigration(t, cfg)
	waitPostponed(t, db, done)
	if !load.WaitAcked(load.Acked()+300, 30*time.Second) {
		t.Fatalf("the load did not write: %v", load.Err())
	}
	if st := load.Stop(); st.Failed > 0 {
		t.Fatalf("the load failed: %v", st.FirstError)
	}
	partial := countBinlogEvents(t, db, file, pos, "Update_rows_partial")
	if partial == 0 {
		t.Fatal("no partial JSON update in the binlog: the test proves nothing")
	}
	t.Logf("%d partial update events in the binlog", partial)
	testenv.Exec(t, db, "CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t")
	finishRun(t, postponeFlag, done)
	assertSameAsServerAlter(t, db, "want", alter)
}

// countBinlogEvents counts the events of type typ in binlog file from pos.
func countBinlogEvents(t *testing.T, db *sql.DB, file string, pos int64, typ string) int {
	t.Helper()
	rows, err := db.Query(fmt.Sprintf("SHOW BINLOG EVENTS IN '%s' FROM %d", file, pos))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var f, et, info string
		var p, sid, end int64
		if err := rows.Scan(&f, &p, &et, &sid, &end, &info); err != nil {
			t.Fatal(err)
		}
		if et == typ {
			n++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}
