package binlogapply

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Conversions the server's own ALTER makes with only a Note (DECIMAL fractional rounding, Note
// 1265, even in strict mode) are applied the same way, on both apply paths: the run goes on and
// the ghost holds the rounded values. Fails on the applier that refused every Note.
func TestNoteRoundingAppliedAsServerALTER(t *testing.T) {
	for _, path := range []struct {
		name     string
		stmtOnly bool
	}{{"onetrip", false}, {"statements", true}} {
		t.Run(path.name, func(t *testing.T) {
			orig := `CREATE TABLE %s (id INT PRIMARY KEY, d DECIMAL(10,4) NULL, dt DATETIME NULL)`
			ghost := `CREATE TABLE %s (id INT PRIMARY KEY, d DECIMAL(10,2) NULL, dt DATE NULL)`
			f := newFixture(t, "note_round_"+path.name, orig, fixtureOpts{ghostDDL: ghost,
				statementByStatement: path.stmtOnly})
			f.exec(`INSERT INTO {T} VALUES (1, 0.0050, '2020-01-01 10:00:00'), (2, -0.0050, NULL), (3, 1.2350, '2021-02-03 23:59:59'), (4, 999999.9949, NULL)`,
				`INSERT INTO {T} SELECT seq, seq / 7 - 100, '2020-01-01' + INTERVAL seq HOUR FROM seq_10_to_200`,
				`UPDATE {T} SET d = 1.2450 WHERE id = 10`,
				`DELETE FROM {T} WHERE id = 11`)
			f.sentinel(20 * time.Second)
			var total, same int
			q := fmt.Sprintf("SELECT COUNT(*), SUM(CAST(o.d AS DECIMAL(10,2)) <=> g.d AND CAST(o.dt AS DATE) <=> g.dt) FROM `%s`.`%s` o LEFT JOIN `%s`.`%s` g USING (id)",
				testSchema, f.orig, testSchema, f.ghost)
			if err := f.db.QueryRow(q).Scan(&total, &same); err != nil {
				t.Fatal(err)
			}
			if total != 194 || same != total {
				t.Errorf("%d of %d rows (want 194) converted as the server does", same, total)
			}
		})
	}
}

// With PAD_CHAR_TO_FULL_LENGTH in the server's sql_mode, the server's own ALTER keeps a CHAR(n)
// value's padding when the column becomes VARCHAR; the binlog carries it unpadded, so the applier
// pads it (in characters, not bytes). A column staying CHAR is not padded. Fails on the applier
// that wrote the binlog's value as it is.
func TestPadCharAppliedAsServerALTER(t *testing.T) {
	orig := `CREATE TABLE %s (id INT PRIMARY KEY, c CHAR(8) CHARACTER SET utf8mb4 NULL, k CHAR(4) NULL)`
	ghost := `CREATE TABLE %s (id INT PRIMARY KEY, c VARCHAR(8) CHARACTER SET utf8mb4 NULL, k CHAR(6) NULL)`
	f := newFixture(t, "pad_char", orig, fixtureOpts{ghostDDL: ghost, noStart: true})
	f.cfg.PadChar = true
	f.start()
	f.exec(`INSERT INTO {T} VALUES (1, 'ab', 'x'), (2, 'é', NULL), (3, NULL, 'y'), (4, '', ''), (5, 'abcdefgh', 'abcd')`,
		`UPDATE {T} SET c = 'z ' WHERE id = 4`)
	f.sentinel(20 * time.Second)
	rows, err := f.db.Query(fmt.Sprintf("SELECT id, HEX(c), HEX(k) FROM `%s`.`%s` ORDER BY id", testSchema, f.ghost))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := []string{"1 6162202020202020 78", "2 C3A920202020202020 ", "3  79", "4 7A20202020202020 ", "5 6162636465666768 61626364"}
	var got []string
	for rows.Next() {
		var id int
		var c, k sql.NullString
		if err := rows.Scan(&id, &c, &k); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %s", id, c.String, k.String))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("ghost rows (id, hex c, hex k):\n got %q\nwant %q", got, want)
	}
}

// On MySQL the applier converts a JSON value, a TIME value and a number into JSON as the server's
// own ALTER does: the JSON's text with MySQL's spacing ({"k": [1, 2]}, go-mysql renders
// {"k":[1,2]}), a TIME into a YEAR or BIT as its number HHMMSS (the bound TIME alone became the
// current year, or its text into the BIT: Data too long), a DATETIME into a BIT as YYYYMMDDHHMMSS, a DECIMAL or FLOAT into JSON as its text
// parsed (2.500 is 2.5; a bound number is refused: not a JSON text). The ghost's rows must be the
// server's ALTER of the original's. Fails on the applier that bound go-mysql's JSON text, the
// typed TIME and the number.
func TestMySQLJSONAndTimeAppliedAsServerALTER(t *testing.T) {
	testenv.OnlyMySQL(t, "MariaDB's JSON is a LONGTEXT (its text is in the binlog) and its ALTER refuses a TIME into a YEAR")
	orig := `CREATE TABLE %s (id INT PRIMARY KEY, j JSON NULL, y TIME NULL, b TIME NULL, d DECIMAL(12,3) NULL, f FLOAT NULL, z DATETIME(6) NULL)`
	alter := `MODIFY j VARCHAR(200) CHARACTER SET utf8mb4 NULL, MODIFY y YEAR NULL, MODIFY b BIT(24) NULL, MODIFY d JSON NULL, MODIFY f JSON NULL, MODIFY z BIT(64) NULL`
	ghost := `CREATE TABLE %s (id INT PRIMARY KEY, j VARCHAR(200) CHARACTER SET utf8mb4 NULL, y YEAR NULL, b BIT(24) NULL, d JSON NULL, f JSON NULL, z BIT(64) NULL)`
	f := newFixture(t, "mysql_json_time", orig, fixtureOpts{ghostDDL: ghost})
	f.exec(`INSERT INTO {T} VALUES (1, _utf8mb4'{"k": [1, 2], "a": "Größe <&>"}', '00:00:00', '12:34:56', 2.500, 0.1, '2021-03-28 02:30:00.5'),
		(2, _utf8mb4'[1.0, -0.0, 1e3, 12345678901234567890]', '00:20:05', '838:59:59', -0.001, 3.4e38, '1000-01-01 00:00:00'),
		(3, _utf8mb4'"x"', '00:00:59', '00:00:05', 123456789.125, -1999, NULL), (4, _utf8mb4'null', NULL, NULL, NULL, NULL, NULL), (5, NULL, '00:21:55', '23:59:59', 0, 16777217, '9999-12-31 23:59:59.499999')`,
		`UPDATE {T} SET j = _utf8mb4'{"b": {"c": true}, "a": [null, false]}', y = '00:00:01', d = 1999, f = 1.0000001, z = '2000-01-01' WHERE id = 4`)
	f.sentinel(20 * time.Second)
	expected := f.ghost + "_expected"
	qe := table.Qualify(testSchema, expected)
	f.exec("CREATE TABLE "+qe+" LIKE {T}", "INSERT INTO "+qe+" SELECT * FROM {T}", "ALTER TABLE "+qe+" "+alter+", ALGORITHM=COPY")
	q := fmt.Sprintf("SELECT COUNT(*), SUM(g.j <=> e.j AND g.y <=> e.y AND g.b <=> e.b AND CAST(g.d AS CHAR) <=> CAST(e.d AS CHAR) AND CAST(g.f AS CHAR) <=> CAST(e.f AS CHAR) AND g.z <=> e.z) FROM `%s`.`%s` g JOIN `%s`.`%s` e USING (id)",
		testSchema, f.ghost, testSchema, expected)
	var total, same int
	if err := f.db.QueryRow(q).Scan(&total, &same); err != nil {
		t.Fatal(err)
	}
	if total != 5 || same != total {
		t.Errorf("%d of %d rows (want 5) are the server's ALTER of the original's", same, total)
	}
}
