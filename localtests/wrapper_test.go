package localtests

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// runWrapper runs scripts/gh-ost-wrapper.sh (a wrapper as gh-ost's users write them) with the
// binary as its GHOST, on table t of database db, and returns its exit code and output.
func runWrapper(t *testing.T, db, alter string) (int, string) {
	t.Helper()
	cmd := exec.Command("scripts/gh-ost-wrapper.sh", append(testenv.MigrationArgs(testenv.PrimaryConfig(), db, "t"),
		"--alter="+alter, "--chunk-size=100", "--serve-socket-file="+filepath.Join(testenv.ShortTempDir(t), "s.sock"),
		"--checkpoint-interval-millis=300")...) // --checkpoint-seconds is 10 at least
	cmd.Env = append(os.Environ(), "GHOST="+binary, "TIMEOUT=60")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("run the wrapper: %v\n%s", err, out)
	return -1, ""
}

// A wrapper written for gh-ost drives a migration to its end: it sees "Row copy complete" while
// the cut-over is postponed (not only at the cut-over), then a "checkpoint success at coords="
// line, then "Done migrating <db>.<table>"; and on a failure it finds the one FATAL line.
func TestGhostWrapperScript(t *testing.T) {
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	const dbName = "glt_wrapper"
	db := testenv.Database(t, dbName)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20) NOT NULL)",
		"INSERT INTO t SELECT seq, CONCAT('v', seq) FROM seq_1_to_5000")

	code, out := runWrapper(t, dbName, "ADD COLUMN c INT NOT NULL DEFAULT 7")
	if code != 0 {
		t.Fatalf("wrapper exited %d, want 0:\n%s", code, out)
	}
	want := regexp.MustCompile(`(?m)^row copy complete; cut-over postponed\n` +
		`checkpointed: checkpoint success at coords=[^ :]+:[0-9]+\n` +
		`Done migrating ` + dbName + `\.t\n\z`)
	if !want.MatchString(out) {
		t.Errorf("wrapper output does not match %s:\n%s", want, out)
	}
	if !testenv.HasColumn(t, db, dbName, "t", "c") || testenv.CountRows(t, db, dbName, "t") != 5000 {
		t.Errorf("t is not migrated: columns %v, %d rows", testenv.Columns(t, db, dbName, "t"), testenv.CountRows(t, db, dbName, "t"))
	}

	// The server refuses the ALTER on the ghost: the wrapper finds the FATAL line, which starts with
	// the server's own text as gh-ost's does ("FATAL Error 1067 ...").
	testenv.Exec(t, db, "DROP TABLE t", "DROP TABLE IF EXISTS _t_del, _t_ghk",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20) NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_100")
	code, out = runWrapper(t, dbName, "ADD COLUMN dt DATETIME NOT NULL DEFAULT 'nope'")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	const wantFatal = "migration failed: FATAL Error 1067 (42000): Invalid default value for 'dt' ("
	if code != 1 || len(lines) != 1 || !strings.HasPrefix(lines[0], wantFatal) {
		t.Errorf("wrapper exited %d, want 1 with one %q... line:\n%s", code, wantFatal, out)
	}
	if left := testenv.TableNames(t, db, dbName, "_t_"); len(left) != 0 {
		t.Errorf("helper tables left behind: %v", left)
	}
}
