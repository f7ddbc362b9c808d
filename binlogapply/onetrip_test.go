package binlogapply

import (
	"strings"
	"testing"
	"time"
)

// A warning raised inside a one-round-trip batch is not lost: the batch is applied again statement
// by statement, which names it and stops Run. (Out of range is an error in the strict session.)
func TestOneTripWarningStopsRun(t *testing.T) {
	orig := `CREATE TABLE %s (id INT PRIMARY KEY, d DECIMAL(10,3))`
	ghost := `CREATE TABLE %s (id INT PRIMARY KEY, d DECIMAL(4,2))`
	f := newFixture(t, "onetrip_warn", orig, fixtureOpts{ghostDDL: ghost})
	f.exec(`INSERT INTO {T} VALUES (1, 1.5)`)
	f.sentinel(20 * time.Second)
	f.exec(`INSERT INTO {T} VALUES (2, 123.456)`)
	err := f.runError(20 * time.Second)
	if err == nil || !strings.Contains(err.Error(), "1264") {
		t.Fatalf("want the run stopped naming 1264 (out of range), got %v", err)
	}
}

// The script reads one warning count and list per statement, in order, and commits last.
func TestScriptSQL(t *testing.T) {
	s := &script{stmts: []string{"DELETE FROM g WHERE id IN (?)", "INSERT INTO g (id) VALUES (?)"}}
	want := "START TRANSACTION; DELETE FROM g WHERE id IN (?); SHOW COUNT(*) WARNINGS; SHOW WARNINGS; " +
		"INSERT INTO g (id) VALUES (?); SHOW COUNT(*) WARNINGS; SHOW WARNINGS; COMMIT"
	if got := s.sql(); got != want {
		t.Errorf("script:\n got %s\nwant %s", got, want)
	}
}
