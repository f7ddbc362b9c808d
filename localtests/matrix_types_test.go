package localtests

import (
	"os"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// The conversion matrix's column types and the edge values of each (matrix_test.go). Each type is
// both a source (its values fill a table) and a target (MODIFY c <target>). Values are SQL
// literals valid in a utf8mb4 session under the sandbox's default sql_mode; zeroDate marks the
// ones a NO_ZERO_DATE server refuses to store (left out of the strict run).

// mxType is one column type of the matrix.
type mxType struct {
	label  string   // short name: column names, the doc's grid
	def    string   // the column type as written in CREATE TABLE / MODIFY
	values []string // edge values of the type, as SQL literals (NULL is added to every type)
}

var (
	intValues = func(min, max string) []string { return []string{"0", "1", "-1", min, max, "100"} }
	uintVals  = func(max string) []string { return []string{"0", "1", max, "100", "65"} }
	textVals  = []string{"''", "' '", "'a '", "'Größe'", "'😀x'", "'12'", "'-2.5'", "'1e3'", "'2000'", "'a,b'", "'b'", "'2021-03-28 02:30:00'", "'{\"k\": [1, 2]}'"}
	latinVals = []string{"''", "' '", "'a '", "'Größe'", "'12'", "'-2.5'", "'2000'", "'a,b'", "'b'", "'2021-03-28'"}
	byteVals  = []string{"''", "'ab'", "x'00ff'", "'12'", "'ab\\0'", "x'c3a9'", "'2000'", "'b'"}
)

var mxTypes = []mxType{
	{"ti", "TINYINT", intValues("-128", "127")},
	{"tiu", "TINYINT UNSIGNED", uintVals("255")},
	{"si", "SMALLINT", intValues("-32768", "32767")},
	{"mi", "MEDIUMINT", intValues("-8388608", "8388607")},
	{"i", "INT", intValues("-2147483648", "2147483647")},
	{"iu", "INT UNSIGNED", uintVals("4294967295")},
	{"bi", "BIGINT", intValues("-9223372036854775808", "9223372036854775807")},
	{"biu", "BIGINT UNSIGNED", uintVals("18446744073709551615")},
	{"dec", "DECIMAL(12,3)", []string{"0", "-0.500", "2.500", "-2.500", "0.001", "123456789.125", "-999999999.999", "1999"}},
	{"flt", "FLOAT", []string{"0", "-0.0", "0.1", "2.5", "-2.5", "0.5", "3.4e38", "16777217", "1.0000001", "1.17549435e-38", "-1999", "1.8446743e19"}},
	{"dbl", "DOUBLE", []string{"0", "-0.0", "0.1", "2.5", "-2.5", "4.5", "1.7976931348623157e308", "2.2250738585072014e-308", "123456789012.5", "2000"}},
	{"bit", "BIT(8)", []string{"b'0'", "b'1'", "b'11111111'", "b'10101010'", "b'110010'"}},
	{"yr", "YEAR", []string{"0", "1901", "1999", "2000", "2155"}},
	{"date", "DATE", []string{"'0000-00-00'", "'1000-01-01'", "'2000-02-29'", "'2021-03-28'", "'9999-12-31'"}},
	{"time", "TIME", []string{"'00:00:00'", "'-838:59:59'", "'838:59:59'", "'12:34:56'", "'-00:00:01'", "'23:59:59'"}},
	{"dt", "DATETIME", []string{"'0000-00-00 00:00:00'", "'1000-01-01 00:00:00'", "'2021-03-28 02:30:00'", "'2021-10-31 02:30:00'", "'9999-12-31 23:59:59'", "'2000-01-01 00:00:00'"}},
	{"dt6", "DATETIME(6)", []string{"'0000-00-00 00:00:00.000000'", "'1000-01-01 00:00:00.000001'", "'2021-03-28 02:30:00.500000'", "'9999-12-31 23:59:59.999999'", "'2000-01-01 12:00:00.123456'"}},
	{"ts", "TIMESTAMP", []string{"'0000-00-00 00:00:00'", "'1970-01-02 00:00:00'", "'2021-10-31 02:30:00'", "'2038-01-18 00:00:00'", "'2000-01-01 00:00:00'"}},
	{"ts6", "TIMESTAMP(6)", []string{"'0000-00-00 00:00:00.000000'", "'1970-01-02 00:00:00.000001'", "'2038-01-18 00:00:00.999999'", "'2000-01-01 12:00:00.123456'"}},
	{"ch", "CHAR(24) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci", textVals},
	{"vc", "VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci", textVals},
	{"vcl", "VARCHAR(40) CHARACTER SET latin1 COLLATE latin1_swedish_ci", latinVals},
	{"txt", "TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci", textVals},
	{"txl", "TEXT CHARACTER SET latin1 COLLATE latin1_swedish_ci", latinVals},
	{"bin", "BINARY(8)", byteVals},
	{"vb", "VARBINARY(40)", byteVals},
	{"blob", "BLOB", byteVals},
	{"enum", "ENUM('a','b','12','2000') CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci", []string{"'a'", "'b'", "'12'", "'2000'"}},
	{"set", "SET('a','b','c') CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci", []string{"''", "'a'", "'a,c'", "'a,b,c'"}},
	{"json", "JSON", []string{"'{}'", "'[1, 2]'", "'\"x\"'", "'null'", "'12'", "'{\"k\": \"Größe\"}'", "'12.5'", "'\"12\"'", "'true'", "'0'"}},
}

// valuesFor are the edge values of t used in a run: NULL added, zero dates dropped when the
// server's sql_mode refuses them.
func (t mxType) valuesFor(strict bool) []string {
	out := []string{"NULL"}
	for _, v := range t.values {
		if strict && strings.HasPrefix(v, "'0000-00-00") {
			continue
		}
		out = append(out, v)
	}
	return out
}

// mxVariant is one server set-up the matrix runs on. Its globals name the sql_mode, so that the
// server's verdicts (the probe) and every run of the binary see the same one on every flavor.
type mxVariant struct {
	name    string
	title   string // the doc's heading
	globals []global
	strict  bool                     // NO_ZERO_DATE: zero dates are not among the values
	onlyOn  func(dbconn.Flavor) bool // the flavors it runs on by default (nil: every one)
}

// runsOn says whether the variant runs on flavor f: GHOSTLITE_MATRIX_VARIANTS when set, else its
// onlyOn.
func (v mxVariant) runsOn(f dbconn.Flavor) bool {
	if os.Getenv("GHOSTLITE_MATRIX_VARIANTS") != "" {
		return selected("GHOSTLITE_MATRIX_VARIANTS", v.name)
	}
	return v.onlyOn == nil || v.onlyOn(f)
}

// mariaDB10 says f is MariaDB 10.x (the sandbox's default flavor).
func mariaDB10(f dbconn.Flavor) bool { return f.MariaDB && f.Major == 10 }

var mxVariants = []mxVariant{
	// The sandbox's own time zone, +05:30 (not UTC), and MariaDB's default sql_mode (on MySQL too,
	// as the cases run): zero dates are stored and converted.
	// It runs on MariaDB 10.11 only (the flavor the cases are written for, the first script/test
	// runs), and the strict one everywhere else: MariaDB's two set-ups are judged in every run of
	// script/test, one on each of its versions, within about 4 minutes per flavor (both set-ups
	// on 10.11 made it the suite's longest flavor). GHOSTLITE_MATRIX_VARIANTS=default,strict runs
	// both on any flavor (doc/testing.md).
	{name: "default", title: "The sandbox's settings: time_zone +05:30, MariaDB's default sql_mode",
		globals: []global{{"sql_mode", mariaDBSQLMode}},
		onlyOn:  mariaDB10},
	// A strict server on a zone with daylight saving time: MySQL's default sql_mode but for
	// ONLY_FULL_GROUP_BY, with STRICT_ALL_TABLES. Zero dates cannot be stored: not among the values.
	// Every flavor but MariaDB 10.11 runs it (on MySQL it is the server's own default, near enough).
	{name: "strict", strict: true, onlyOn: func(f dbconn.Flavor) bool { return !mariaDB10(f) }, globals: []global{
		{"sql_mode", "STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"},
		{"time_zone", "Europe/Berlin"},
	}},
}
