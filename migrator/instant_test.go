package migrator

import (
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// instantRun migrates t of sameResultDB with --attempt-instant-ddl and
// --analyze-ghost-table-before-cutover, checks the result equals the server's own
// ALGORITHM=COPY ALTER of the same rows, and returns the run's logs.
func instantRun(t *testing.T, alter string) *testenv.LogBuffer {
	t.Helper()
	db := testenv.Table(t, sameResultDB, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL, s VARCHAR(20))",
		"INSERT INTO t SELECT seq, seq * 7, CONCAT('row ', seq) FROM seq_1_to_500",
		"CREATE TABLE o LIKE t", "INSERT INTO o SELECT * FROM t")
	var logs testenv.LogBuffer
	cfg := configtest.Config(t, sameResultDB, "t", alter, &logs)
	cfg.OkToDropTable = true
	cfg.AttemptInstantDDL, cfg.AnalyzeGhostTable = true, true
	if err := testenv.WaitResult(t, runMigration(t, cfg), 90*time.Second); err != nil {
		t.Fatalf("migration: %v", err)
	}
	assertSameAsServerAlter(t, db, "o", alter)
	for _, name := range []string{table.GhostName("t"), table.ChangelogName("t"), table.OldName("t", "")} {
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
			sameResultDB, name).Scan(&n); err != nil || n != 0 {
			t.Errorf("helper table %s left behind (%d, %v)", name, n, err)
		}
	}
	return &logs
}

// An ADD COLUMN is instant on MariaDB 10.11 and MySQL 8: no copy, no cut-over.
func TestAttemptInstantDDL(t *testing.T) {
	logs := instantRun(t, "ADD COLUMN extra INT NOT NULL DEFAULT 3")
	// gh-ost's words, which wrappers wait for.
	if missing := logs.InOrder("Attempting to execute alter with ALGORITHM=INSTANT", "Success! table `"+sameResultDB+"`.`t` migrated instantly"); missing != "" {
		t.Errorf("no instant ALTER logged (%q missing):\n%s", missing, logs)
	}
	if logs.Contains("Row copy complete") || logs.Contains("analyzed") {
		t.Errorf("an instant ALTER copied rows or analyzed a ghost:\n%s", logs)
	}
}

// A type change is refused with ALGORITHM=INSTANT: the full migration runs, and the ghost is
// analyzed before the cut-over.
func TestAttemptInstantDDLFallsBack(t *testing.T) {
	logs := instantRun(t, "MODIFY v VARCHAR(30) NOT NULL")
	for _, want := range []string{"Attempting to execute alter with ALGORITHM=INSTANT",
		"ALGORITHM=INSTANT not supported for this operation, proceeding with original algorithm: Error ", "Row copy complete", "analyzed", "cut-over complete"} {
		if !logs.Contains(want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if logs.Contains("migrated instantly") {
		t.Errorf("a type change reported instant")
	}
}
