package binlogapply

import (
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

const allTypesDDL = `CREATE TABLE %s (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, biu BIGINT UNSIGNED,
  d65 DECIMAL(65,30), d52 DECIMAL(5,2), d0 DECIMAL(10,0) UNSIGNED, f FLOAT, db DOUBLE,
  b1 BIT(1), b64 BIT(64), b9 BIT(9),
  e ENUM('a','b','c d','é'), st SET('x','y','z','ü'),
  c_latin1 CHAR(10) CHARACTER SET latin1, v_latin1 VARCHAR(300) CHARACTER SET latin1,
  t_latin1 TEXT CHARACTER SET latin1,
  v_utf8 VARCHAR(100) CHARACTER SET utf8mb3, c_utf8mb4 CHAR(5) CHARACTER SET utf8mb4,
  v_utf8mb4 VARCHAR(100) CHARACTER SET utf8mb4, t_utf8mb4 MEDIUMTEXT CHARACTER SET utf8mb4,
  v_gbk VARCHAR(100) CHARACTER SET gbk,
  bin BINARY(8), vbin VARBINARY(300), bl BLOB, lbl LONGBLOB,
  dt DATE, tm TIME, tm3 TIME(3), tm6 TIME(6), dtm DATETIME(6), dtm0 DATETIME, dtm2 DATETIME(2),
  ts TIMESTAMP(6) NULL DEFAULT NULL, ts0 TIMESTAMP NULL DEFAULT NULL, ts3 TIMESTAMP(3) NULL DEFAULT NULL,
  yr YEAR, j JSON, pt POINT, g GEOMETRY,
  gv BIGINT AS (i + 1) VIRTUAL, gs VARCHAR(210) AS (CONCAT(v_utf8mb4, 'x')) STORED
) DEFAULT CHARSET=utf8mb4`

const allCols = `(ti, tiu, si, siu, mi, miu, i, iu, bi, biu, d65, d52, d0, f, db, b1, b64, b9, e, st,
  c_latin1, v_latin1, t_latin1, v_utf8, c_utf8mb4, v_utf8mb4, t_utf8mb4, v_gbk, bin, vbin, bl, lbl,
  dt, tm, tm3, tm6, dtm, dtm0, dtm2, ts, ts0, ts3, yr, j, pt, g)`

var allTypesRows = []string{
	// minimum values, zero dates, trailing zero bytes
	`INSERT INTO {T} ` + allCols + ` VALUES (-128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0,
	  '-99999999999999999999999999999999999.999999999999999999999999999999', -999.99, 0, -3.40282e38, -1.7976931348623157e308,
	  b'0', b'0', b'0', 'a', '',
	  _utf8mb4'', _utf8mb4'', _utf8mb4'', _utf8mb4'', _utf8mb4'', _utf8mb4'', _utf8mb4'', _utf8mb4'',
	  X'0100000000000000', X'00', X'', X'',
	  '0000-00-00', '-838:59:59', '-838:59:58.999', '-00:00:00.000001', '0000-00-00 00:00:00.000000', '1000-01-01 00:00:00',
	  '0000-00-00 00:00:00.00', '0000-00-00 00:00:00', '1970-01-01 00:00:01', '0000-00-00 00:00:00.000',
	  1901, _utf8mb4'{}', ST_GeomFromText('POINT(0 0)'), ST_GeomFromText('LINESTRING(0 0, 1 1, 2 -3)'))`,
	// maximum values
	`INSERT INTO {T} ` + allCols + ` VALUES (127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,
	  9223372036854775807, 18446744073709551615,
	  '99999999999999999999999999999999999.999999999999999999999999999999', 999.99, 9999999999, 3.40282e38, 1.7976931348623157e308,
	  b'1', b'1111111111111111111111111111111111111111111111111111111111111111', b'111111111', 'é', 'x,y,z,ü',
	  _utf8mb4'héllo ÿ', _utf8mb4'Ça va? «latin1» ''quote'' \\ back', _utf8mb4'tèxt',
	  _utf8mb4'utf8 ☃ €', _utf8mb4'😀ab', _utf8mb4'emoji 😀🎉 and 中文', _utf8mb4'long 😀 text',
	  _utf8mb4'中文汉字 gbk',
	  X'0102', X'00FF00FF27225C00', X'000102030405060708090A0B0C0D0E0F10FF', REPEAT(X'00FF', 5000),
	  '9999-12-31', '838:59:59', '838:59:58.999', '838:59:58.999999', '9999-12-31 23:59:59.999999', '9999-12-31 23:59:59',
	  '9999-12-31 23:59:59.99', '2038-01-19 03:14:07.999999', '2038-01-19 03:14:07', '2038-01-19 03:14:07.999',
	  2155, _utf8mb4'{"a": [1, 2.5, "x", true, null], "b": {"c": "😀"}}', ST_GeomFromText('POINT(1.5 -2.5)'),
	  ST_GeomFromText('POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (1 1, 2 1, 2 2, 1 1))', 4326))`,
	// NULLs everywhere
	`INSERT INTO {T} (id) VALUES (NULL)`,
	// in-between values, fractional seconds, zero-in-date
	`INSERT INTO {T} ` + allCols + ` VALUES (-1, 1, -1, 1, -1, 1, -1, 1, -1, 1,
	  '-0.000000000000000000000000000001', -0.5, 1, 0.1, 0.1,
	  b'1', b'1000000000000000000000000000000000000000000000000000000000000000', b'100000000', 'c d', 'y',
	  _utf8mb4'a ', _utf8mb4'trailing   ', _utf8mb4'x', _utf8mb4'y', _utf8mb4'z', _utf8mb4'', _utf8mb4'', _utf8mb4'a',
	  X'0000000000000000', X'0000', X'00', X'FF',
	  '2020-00-00', '00:00:00', '12:34:56.7', '-12:34:56.000789', '2024-02-29 12:34:56.000001', '2024-02-29 12:34:56',
	  '2024-02-29 12:34:56.5', '2024-02-29 12:34:56.123456', '1999-12-31 23:59:59', '2024-02-29 12:34:56.001',
	  2000, _utf8mb4'[]', ST_GeomFromText('POINT(-180 90)'), ST_GeomFromText('MULTIPOINT(1 1, 2 2)'))`,
}

func TestApplyAllTypes(t *testing.T) {
	f := newFixture(t, "alltypes", allTypesDDL, fixtureOpts{batch: 7})
	f.exec(allTypesRows...)
	f.exec(
		// updates: values, NULL <-> value, a shared-key change, deletes, re-inserts under an old key
		`UPDATE {T} SET ti = 5, v_utf8mb4 = _utf8mb4'updated 😀', e = 'b', st = 'x,z', bin = X'AB', j = _utf8mb4'{"u": 1}' WHERE id = 4`,
		`UPDATE {T} SET tiu = 200, dt = '2001-02-03', pt = ST_GeomFromText('POINT(3 4)') WHERE id = 3`,
		`UPDATE {T} SET ti = NULL, g = NULL WHERE id = 2`,
		`UPDATE {T} SET id = 100 WHERE id = 2`,
		`DELETE FROM {T} WHERE id = 1`,
		`INSERT INTO {T} (id, ti, v_gbk) VALUES (1, 9, _utf8mb4'又是中文')`,
		`UPDATE {T} SET id = id + 1000`, // every key changes in one statement
		`UPDATE {T} SET id = id - 1000`,
		`BEGIN`,
		`INSERT INTO {T} (id, i) VALUES (50, 1)`,
		`UPDATE {T} SET i = 2 WHERE id = 50`,
		`DELETE FROM {T} WHERE id = 50`,
		`INSERT INTO {T} (id, i) VALUES (50, 3)`,
		`COMMIT`,
	)
	f.sentinel(20 * time.Second)
	oc, gc := f.mappedColumns()
	f.compare(oc, gc, "id", "id")
	// Generated columns were computed by the ghost itself.
	var bad int
	if err := f.db.QueryRow(`SELECT COUNT(*) FROM glr_binlogapply._alltypes_gho WHERE NOT (gv <=> i + 1) OR NOT (gs <=> CONCAT(v_utf8mb4, 'x'))`).Scan(&bad); err != nil {
		t.Fatal(err)
	}
	if bad != 0 {
		t.Errorf("%d ghost rows with wrong generated columns", bad)
	}
	s := f.app.Stats()
	if s.EventsApplied < 15 || s.Backlog != 0 || s.Applied.Pos == 0 || s.Applied.File == "" {
		t.Errorf("stats after the sentinel: %+v", s)
	}
}

// ENUM and SET members that differ only by case are distinct under a case-sensitive collation:
// the member names must keep their case from the table definition to the ghost.
func TestCaseSensitiveEnumMembers(t *testing.T) {
	ddl := `CREATE TABLE %s (id INT PRIMARY KEY, e ENUM('a','A','Red') COLLATE latin1_bin, s SET('x','X') COLLATE latin1_bin) DEFAULT CHARSET=latin1`
	f := newFixture(t, "enum_case", ddl, fixtureOpts{})
	f.exec(`INSERT INTO {T} VALUES (1, 'A', 'X'), (2, 'a', 'x,X'), (3, 'Red', 'x')`, `UPDATE {T} SET e = 'A' WHERE id = 2`)
	f.sentinel(20 * time.Second)
	f.compare([]string{"id", "e", "s"}, []string{"id", "e", "s"}, "id", "id")
	var n int
	if err := f.db.QueryRow("SELECT COUNT(*) FROM glr_binlogapply._enum_case_gho WHERE BINARY e = 'A'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d ghost rows hold member 'A', want 2", n)
	}
}

// ENUM's error value (index 0, stored by a non-strict session) is carried exactly when its row is
// inserted or updated during the migration, although the applier's session is strict: into the
// same ENUM, and into an ENUM with a member added.
func TestEnumErrorValueApplied(t *testing.T) {
	ghosts := map[string]string{
		"same":  "",
		"added": `CREATE TABLE %s (id INT PRIMARY KEY, e ENUM('a','b','c') NOT NULL, n ENUM('x','y'), v INT)`,
	}
	i := 0
	for name, ghostDDL := range ghosts {
		i++
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, "enum_zero_"+name,
				`CREATE TABLE %s (id INT PRIMARY KEY, e ENUM('a','b') NOT NULL, n ENUM('x','y'), v INT)`,
				fixtureOpts{ghostDDL: ghostDDL})
			f.onOneConn(`SET SESSION sql_mode = ''`,
				`INSERT INTO {T} VALUES (1, 'zz', 'x', 0), (2, 'a', 'bad', 0), (3, 'b', 'y', 0), (4, '', '', 0)`,
				`UPDATE {T} SET e = 'nope' WHERE id = 3`)
			f.exec(`UPDATE {T} SET v = v + 1`, `INSERT INTO {T} VALUES (5, 'a', NULL, 5)`)
			f.sentinel(20 * time.Second)
			cols := []string{"id", "e", "n", "v"}
			f.compare(cols, cols, "id", "id")
			var zeros int
			q := "SELECT COUNT(*) FROM " + table.Qualify(testSchema, f.ghost) + " WHERE e+0 = 0 OR n+0 = 0"
			if err := f.db.QueryRow(q).Scan(&zeros); err != nil {
				t.Fatal(err)
			}
			if zeros != 4 {
				t.Errorf("ghost has %d rows with an ENUM error value, want 4", zeros)
			}
		})
	}
}

// Columns of a character set MySQL deprecates (utf8mb3, also written utf8), in the shared key and
// out of it, are applied: MySQL warns (1287) for the CONVERT ... USING utf8mb3 and COLLATE the
// applier writes for them, which changes no value.
func TestDeprecatedCharsetApplied(t *testing.T) {
	ddl := `CREATE TABLE %s (k VARCHAR(20) CHARACTER SET utf8mb3 COLLATE utf8mb3_general_ci PRIMARY KEY,
	  v VARCHAR(20) CHARACTER SET utf8mb3, w TEXT CHARACTER SET utf8) DEFAULT CHARSET=utf8mb4`
	f := newFixture(t, "utf8mb3", ddl, fixtureOpts{sharedKey: []string{"k"}})
	f.exec(`INSERT INTO {T} VALUES (_utf8mb4'a', _utf8mb4'é', _utf8mb4'x'), (_utf8mb4'b', _utf8mb4'ü', NULL), (_utf8mb4'c', NULL, _utf8mb4'€')`,
		`UPDATE {T} SET v = _utf8mb4'ça' WHERE k = _utf8mb4'a'`, `UPDATE {T} SET k = _utf8mb4'bé' WHERE k = _utf8mb4'b'`,
		`DELETE FROM {T} WHERE k = _utf8mb4'c'`)
	f.sentinel(20 * time.Second)
	f.compare([]string{"k", "v", "w"}, []string{"k", "v", "w"}, "k", "k")
}
