package binlogapply

import (
	"strings"
	"testing"
	"time"
)

// A warning raised inside a one-round-trip batch is not lost: the batch is applied again statement
// by statement, which names it and stops Run.
func TestOneTripWarningStopsRun(t *testing.T) {
	orig := `CREATE TABLE %s (id INT PRIMARY KEY, d DECIMAL(10,3))`
	ghost := `CREATE TABLE %s (id INT PRIMARY KEY, d DECIMAL(10,2))` // rounding is only a note in strict mode
	f := newFixture(t, "onetrip_warn", orig, fixtureOpts{ghostDDL: ghost, serverID: 71061})
	f.exec(`INSERT INTO {T} VALUES (1, 1.5)`)
	f.sentinel(20 * time.Second)
	f.exec(`INSERT INTO {T} VALUES (2, 1.234)`)
	err := f.runError(20 * time.Second)
	if err == nil || !strings.Contains(err.Error(), "1265") || !strings.Contains(err.Error(), "warnings") {
		t.Fatalf("want the run stopped naming note 1265, got %v", err)
	}
}

// The script reads one warning count per statement, in order, and commits last.
func TestScriptSQL(t *testing.T) {
	s := &script{stmts: []string{"DELETE FROM g WHERE id IN (?)", "INSERT INTO g (id) VALUES (?)"}}
	want := "START TRANSACTION; DELETE FROM g WHERE id IN (?); SELECT @@warning_count; " +
		"INSERT INTO g (id) VALUES (?); SELECT @@warning_count; COMMIT"
	if got := s.sql(); got != want {
		t.Errorf("script:\n got %s\nwant %s", got, want)
	}
}
