package migrator

import (
	"context"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const copyThreadsDB = "gl_copythreads"

// The migration logs the number of copy sessions once, with why: --copy-threads as given, or the
// automatic choice from the primary's @@thread_pool_size.
func TestCopyThreadsAreChosenAndLoggedOnce(t *testing.T) {
	t.Parallel() // a database of its own
	db, schema := testenv.OwnDatabase(t, copyThreadsDB)
	var pool string
	haveVar := db.QueryRow("SELECT @@thread_pool_size").Scan(&pool) == nil
	for _, c := range []struct {
		threads int
		want    string
	}{
		{3, `"copy_threads":3,"why":"--copy-threads"`},
		{0, `"copy_threads":`},
	} {
		testenv.Exec(t, db, "DROP TABLE IF EXISTS ct", "CREATE TABLE ct (id INT PRIMARY KEY, v INT NOT NULL)",
			"INSERT INTO ct SELECT seq, seq FROM seq_1_to_2000")
		var logs testenv.LogBuffer
		cfg := configtest.Config(t, schema, "ct", "ADD COLUMN c INT NULL", &logs)
		cfg.OkToDropTable, cfg.ChunkSize, cfg.CopyThreads = true, 100, c.threads
		if err := mustNew(t, cfg).Run(context.Background()); err != nil {
			t.Fatalf("--copy-threads=%d: %v", c.threads, err)
		}
		if n := strings.Count(logs.String(), "row copy sessions"); n != 1 || !logs.Contains(c.want) {
			t.Errorf("--copy-threads=%d: %d log lines on the copy sessions, want one with %s:\n%s", c.threads, n, c.want, logs.String())
		}
		if c.threads == 0 && haveVar && !logs.Contains("half of @@thread_pool_size="+pool) {
			t.Errorf("auto with @@thread_pool_size=%s: the log does not say so:\n%s", pool, logs.String())
		}
		if n := testenv.CountRows(t, db, schema, "ct"); n != 2000 || !testenv.HasColumn(t, db, schema, "ct", "c") {
			t.Errorf("--copy-threads=%d: %d rows after the migration, column c there: %v", c.threads, n, testenv.HasColumn(t, db, schema, "ct", "c"))
		}
	}
}
