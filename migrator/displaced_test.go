package migrator

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// displacedDB names the databases of the displaced-rows tests (one per test).
const displacedDB = "gl_displaced"

// A genuine duplicate on the unique key the ALTER adds, written after the copy: the applier keeps
// the clashing row displaced, and the migration fails before the cut-over with the key and the
// value, the original untouched.
func TestDisplacedRowFailsBeforeCutOver(t *testing.T) {
	db, cfg := displacedSetup(t)
	flag := postpone(t, &cfg)
	saved := displacedPatience
	displacedPatience = time.Second
	t.Cleanup(func() { displacedPatience = saved })
	var attempts atomic.Int32
	cutOver := cutover.TestSeams{BeforeStep: func(_ context.Context, step cutover.Step, _ cutover.StepInfo) error {
		if step == cutover.StepLock {
			attempts.Add(1)
		}
		return nil
	}}
	done := runWithSeams(t, cfg, seams{cutOver: cutOver})
	waitPostponed(t, db, done)
	testenv.Exec(t, db, "INSERT INTO t VALUES (5001, 5)") // row 5 holds u=5 too
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	err := waitFailed(t, done, "over a duplicate of its new unique key")
	assertDisplacedFailure(t, db, err)
	if strings.Contains(err.Error(), "cut-over") || attempts.Load() != 0 {
		t.Errorf("failed in the cut-over (%d attempts), want before it: %v", attempts.Load(), err)
	}
}

// The same duplicate written just before the cut-over locks the original: the check under the
// lock refuses the swap as unsafe, in one attempt (no retries).
func TestDisplacedRowFailsCutOverOnce(t *testing.T) {
	t.Parallel() // a database of its own
	db, cfg := displacedSetup(t)
	var attempts atomic.Int32
	cutOver := cutover.TestSeams{BeforeStep: func(_ context.Context, step cutover.Step, _ cutover.StepInfo) error {
		if step == cutover.StepLock && attempts.Add(1) == 1 {
			_, err := db.Exec("INSERT INTO t VALUES (5001, 5)")
			return err
		}
		return nil
	}}
	err := waitFailed(t, runWithSeams(t, cfg, seams{cutOver: cutOver}), "over a duplicate of its new unique key")
	assertDisplacedFailure(t, db, err)
	if !errors.Is(err, cutover.ErrUnsafe) || attempts.Load() != 1 {
		t.Errorf("want one cut-over attempt refused as unsafe, got %d attempts: %v", attempts.Load(), err)
	}
}

// displacedSetup creates t(id, u) with distinct u, and want: t as it must end, with the duplicate
// (5001, 5) the test writes. The configuration adds UNIQUE KEY u (u).
func displacedSetup(t *testing.T) (*sql.DB, config.Config) {
	t.Helper()
	db, schema := testenv.OwnTable(t, displacedDB, "CREATE TABLE t (id INT PRIMARY KEY, u INT)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_2000",
		"CREATE TABLE want LIKE t", "INSERT INTO want SELECT * FROM t", "INSERT INTO want VALUES (5001, 5)")
	cfg := configtest.Config(t, schema, "t", "ADD UNIQUE KEY u (u)", nil)
	cfg.DefaultRetries = 5
	cfg.Logger = cfg.Logger.Level(zerolog.InfoLevel)
	return db, cfg
}

// assertDisplacedFailure checks the error names the key and the value, and the original is in
// place with its data (the duplicate included) and alone.
func assertDisplacedFailure(t *testing.T, db *sql.DB, err error) {
	t.Helper()
	t.Logf("the migration failed: %v", err)
	// gh-ost's words for --panic-on-warnings, with the server's duplicate-key warning.
	key := "'u'"
	if !testenv.Flavor(t).MariaDB {
		key = "'_t_gho.u'"
	}
	ghost := "warnings detected in statement 1 of 1: [Warning: Duplicate entry '5' for key " + key + " (1062)]"
	for _, want := range []string{ghost, "unique key `u` would drop rows", "1 row of the original", "duplicate entry '5'"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	schema := testenv.DatabaseOf(t, db)
	_, got := testenv.Checksum(t, db, schema, "t", []string{"id", "u"}, "id")
	_, want := testenv.Checksum(t, db, schema, "want", []string{"id", "u"}, "id")
	if got != want {
		t.Error("the original table does not hold its data")
	}
	if left := testenv.TableNames(t, db, schema, "_t_"); len(left) != 0 {
		t.Errorf("helper tables left: %v", left)
	}
}
