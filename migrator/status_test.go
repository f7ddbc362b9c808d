package migrator

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// --exact-rowcount with --concurrent-rowcount: the count runs beside the copy and becomes the
// estimate; the summary line's durations carry their units.
func TestConcurrentRowcount(t *testing.T) {
	db := testenv.Database(t, controlsDB)
	testenv.Exec(t, db, "CREATE TABLE r (id INT PRIMARY KEY, v INT NOT NULL)",
		"INSERT INTO r SELECT seq, seq FROM seq_1_to_7777")
	var logs testenv.LogBuffer
	cfg := liveConfig(t, controlsDB, "r", "ADD COLUMN c INT NULL", &logs)
	cfg.ExactRowcount = true
	m := mustNew(t, cfg)
	m.Throttle(true) // the copy waits: the count has the time to finish
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	testenv.WaitFor(t, 60*time.Second, 10*time.Millisecond, "the exact count as the estimate", func() (bool, error) {
		st := m.Status()
		return st.Phase == PhaseCopy && st.RowsCopied == 0 && logs.Contains(`"rows":7777,`) && st.RowsEstimate == 7777, nil
	})
	m.Throttle(false)
	if err := testenv.WaitResult(t, done, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	var summary struct{ Copy, CutOver, Total string }
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, `"message":"Done migrating gl_controls.r"`) {
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
