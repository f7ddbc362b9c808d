package throttle

import (
	"strings"
	"testing"
)

// TestCheckQuery: one read-only SELECT passes; anything that writes, locks, or runs a second
// statement is refused in one line.
func TestCheckQuery(t *testing.T) {
	for _, q := range []string{"", "SELECT 0", "select count(*) > 10 from information_schema.processlist;",
		"SELECT (SELECT 1) + 1 AS `into`", "SELECT 'DROP TABLE x; INTO' = 'y'", "SELECT 1 -- ; DROP TABLE x"} {
		if err := CheckQuery(q); err != nil {
			t.Errorf("CheckQuery(%q): %v", q, err)
		}
	}
	for q, why := range map[string]string{
		"DROP TABLE victim":                  "does not start with SELECT",
		"  update t set v = 1":               "does not start with SELECT",
		"SELECT 1; DROP TABLE victim":        "more than one statement",
		"SELECT 1 INTO @x":                   "INTO",
		"SELECT * FROM t INTO OUTFILE '/x'":  "INTO",
		"SELECT * FROM t FOR UPDATE":         "locks rows",
		"SELECT * FROM t LOCK IN SHARE MODE": "locks rows",
		"SELECT get_lock('m', 10)":           "GET_LOCK()",
		"SELECT NEXTVAL(s)":                  "NEXTVAL()",
		"SELECT 1 /*! ; DROP TABLE t */":     "executable comment",
		"SELECT 'unterminated":               "unterminated",
	} {
		err := CheckQuery(q)
		if err == nil || !strings.Contains(err.Error(), why) || !strings.HasPrefix(err.Error(), "must be one read-only SELECT") {
			t.Errorf("CheckQuery(%q) = %v, want a refusal saying %q", q, err, why)
		}
	}
}
