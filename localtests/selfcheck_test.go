package localtests

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

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
// hides, or its definition (the AUTO_INCREMENT counter included), and checks that compare reports
// each of them.
func TestCompareCatchesDifferences(t *testing.T) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	c := &testCase{
		Name: "selfcheck",
		Create: []string{
			"CREATE TABLE gl_test (id INT AUTO_INCREMENT PRIMARY KEY, d DOUBLE, m DECIMAL(10,4), s VARCHAR(10) COLLATE utf8mb4_general_ci, b VARBINARY(8))",
			"INSERT INTO gl_test SELECT seq, seq / 3, seq / 7, CONCAT('s', seq), UNHEX('0000') FROM seq_1_to_100",
			"DELETE FROM gl_test WHERE id > 90",
		},
		Alter: "ADD COLUMN x INT NULL",
	}
	for _, change := range []string{
		"", // no change: must pass
		"UPDATE gl_test SET d = d + 0.0001 WHERE id = 50",
		"UPDATE gl_test SET m = m + 0.0001 WHERE id = 50",
		"UPDATE gl_test SET s = 'S50' WHERE id = 50",
		"UPDATE gl_test SET b = UNHEX('00') WHERE id = 50",
		"DELETE FROM gl_test WHERE id = 50",
		"INSERT INTO gl_test (id) VALUES (1000)",
		"ALTER TABLE gl_test AUTO_INCREMENT = 91",    // the original's counter (101) not continued
		"ALTER TABLE gl_test MODIFY x BIGINT NULL",   // another definition
		"ALTER TABLE gl_test COMMENT 'not the same'", // a table option
	} {
		name := change
		if name == "" {
			name = "no change"
		}
		t.Run(name, func(t *testing.T) {
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
		})
	}
	testenv.Exec(t, admin, "DROP DATABASE IF EXISTS glt_selfcheck")
}

// TestLoadReportsIdleStatements: a load statement that never changes a row (here a key that no
// row has) is reported as idle, and the derived-table form of a random row used by the cases is
// not. (The subquery form `WHERE id = (SELECT FLOOR(1 + RAND() * N))` is why the cases use the
// derived table: whether the server evaluates that RAND() once per statement (MySQL) or once per
// row (MariaDB, where a statement changes 0, 1 or several rows) differs by flavor and version, so
// it is not a statement a test can predict.)
func TestLoadReportsIdleStatements(t *testing.T) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	r := &runner{t: t, c: &testCase{Create: []string{
		"CREATE TABLE gl_test (id INT PRIMARY KEY, v INT NOT NULL DEFAULT 0)",
		"INSERT INTO gl_test (id) SELECT seq FROM seq_1_to_2000",
	}}, admin: admin, schema: "glt_loadcheck"}
	r.setup()
	defer testenv.Exec(t, admin, "DROP DATABASE IF EXISTS glt_loadcheck")
	for _, tc := range []struct {
		name, stmt string
		idle       bool
	}{
		{"a key no row has", "UPDATE gl_test SET v = v + 1 WHERE id = 2001 + FLOOR(RAND() * 10)", true},
		{"rand in a derived table", "UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * 2000) AS r1) x ON gl_test.id = x.r1 SET v = v + 1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := startLoad(r.db, []string{tc.stmt})
			ran := l.waitMore(idleRuns+10, 30*time.Second)
			l.Stop()
			if err := l.Err(); err != nil || !ran {
				t.Fatalf("%s: ran %v, %v (%s)", tc.stmt, ran, err, l)
			}
			if idle := len(l.Idle()) > 0; idle != tc.idle {
				t.Errorf("%s: reported idle %v, want %v (%s)", tc.stmt, idle, tc.idle, l)
			}
		})
	}
}
