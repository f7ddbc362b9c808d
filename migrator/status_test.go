package migrator

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// --exact-rowcount with --concurrent-rowcount: the count runs beside the copy and becomes the
// estimate; the summary line's durations carry their units.
func TestConcurrentRowcount(t *testing.T) {
	t.Parallel() // a database of its own
	db, schema := testenv.OwnDatabase(t, controlsDB)
	testenv.Exec(t, db, "CREATE TABLE r (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO r SELECT seq, seq FROM seq_1_to_7777")
	var logs testenv.LogBuffer
	cfg := configtest.Config(t, schema, "r", "ADD COLUMN c INT NULL", &logs)
	cfg.ExactRowcount = true
	m := mustNew(t, cfg)
	m.Throttle(true) // the copy waits: the count has the time to finish
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	testenv.WaitFor(t, 60*time.Second, 10*time.Millisecond, "the exact count as the estimate", func() (bool, error) {
		st := m.Status()
		return st.Phase == status.PhaseCopy && st.RowsCopied == 0 && logs.Contains(`"rows":7777,`) && st.RowsEstimate == 7777, nil
	})
	m.Throttle(false)
	if err := testenv.WaitResult(t, done, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	var summary struct{ Copy, CutOver, Total string }
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"message":"Done migrating `+schema+`.r"`) {
			var raw map[string]any
			if err := json.Unmarshal([]byte(line), &raw); err != nil {
				t.Fatal(err)
			}
			summary.Copy, _ = raw["copy"].(string)
			summary.CutOver, _ = raw["cut_over"].(string)
			summary.Total, _ = raw["total"].(string)
		}
	}
	unit := regexp.MustCompile(`^[0-9.]+(ms|s)$|^[0-9hm.]+s$`)
	for name, v := range map[string]string{"copy": summary.Copy, "cut_over": summary.CutOver, "total": summary.Total} {
		if !unit.MatchString(v) {
			t.Errorf("summary %s=%q: not a duration with its unit", name, v)
		}
	}
}

// gh-ost's first line, names backquoted, opens the run before anything else it logs; then come
// "Row copy complete" and "Done migrating", in that order.
func TestGhostStartLine(t *testing.T) {
	const startDB = "gl_start_line"
	testenv.Table(t, startDB, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_300")
	var logs testenv.LogBuffer
	if err := testenv.WaitResult(t, runMigration(t, configtest.Config(t, startDB, "t", "ADD COLUMN c INT NULL", &logs)), 90*time.Second); err != nil {
		t.Fatalf("migration: %v", err)
	}
	var messages []string
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var l struct{ Message string }
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		messages = append(messages, l.Message)
	}
	want := []string{"Migrating `" + startDB + "`.`t`", "Row copy complete", "Done migrating " + startDB + ".t"}
	if len(messages) == 0 || messages[0] != want[0] {
		t.Errorf("the run's first line is not %q:\n%s", want[0], logs.String())
	}
	at := 0
	for _, msg := range messages {
		if at < len(want) && msg == want[at] {
			at++
		}
	}
	if at != len(want) {
		t.Errorf("the log lacks %q (in the order %q):\n%s", want[at], want, logs.String())
	}
}
