package localtests

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// recorder is a testing.TB that records failures instead of reporting them, so a test can assert
// that the comparison catches a difference.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errors) > 0
}

func (r *recorder) Logf(string, ...any) {}

// TestCompareCatchesDifferences migrates a small table with the server's own ALTER, then changes
// one value in the migrated table in ways HEX() alone could miss or a case-insensitive collation
// hides, and checks that compare reports each of them.
func TestCompareCatchesDifferences(t *testing.T) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	c := &testCase{
		Name: "selfcheck",
		Create: []string{
			"CREATE TABLE gl_test (id INT PRIMARY KEY, d DOUBLE, m DECIMAL(10,4), s VARCHAR(10) COLLATE utf8mb4_general_ci, b VARBINARY(8))",
			"INSERT INTO gl_test SELECT seq, seq / 3, seq / 7, CONCAT('s', seq), UNHEX('0000') FROM seq_1_to_100",
		},
		Alter:          "ADD COLUMN x INT NULL",
		CompareColumns: map[string]string{},
	}
	for _, change := range []string{
		"", // no change: must pass
		"UPDATE gl_test SET d = d + 0.0001 WHERE id = 50",
		"UPDATE gl_test SET m = m + 0.0001 WHERE id = 50",
		"UPDATE gl_test SET s = 'S50' WHERE id = 50",
		"UPDATE gl_test SET b = UNHEX('00') WHERE id = 50",
		"DELETE FROM gl_test WHERE id = 50",
		"INSERT INTO gl_test (id) VALUES (1000)",
	} {
		rec := &recorder{TB: t}
		r := &runner{t: rec, c: c, admin: admin, schema: "glt_selfcheck"}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.setup()
			r.runNative()
			if change != "" {
				r.exec(change)
			}
			r.compare()
		}()
		wg.Wait()
		switch {
		case change == "" && rec.Failed():
			t.Errorf("unchanged migration reported: %s", strings.Join(rec.errors, "; "))
		case change != "" && !rec.Failed():
			t.Errorf("compare missed %q", change)
		}
	}
	testenv.Exec(t, admin, "DROP DATABASE IF EXISTS glt_selfcheck")
}
