package migrator

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// The configuration builder and the run helpers of this package's tests. The configurations come
// from config/configtest, as every package's tests' do.

// testConfig is the configuration every migration of these tests starts from: a dry run of
// database.tbl with alter on the sandbox primary (configtest.Dry). A test sets what it needs on
// top (see live, postpone).
func testConfig(t *testing.T, database, tbl, alter string, logs *testenv.LogBuffer) config.Config {
	t.Helper()
	return configtest.Dry(t, database, tbl, alter, logs)
}

// live makes cfg migrate for real (configtest.Live): call it once per run.
func live(cfg *config.Config) { configtest.Live(cfg) }

// postpone makes cfg postpone its cut-over while a flag file exists (checked every 10 ms) and
// returns the file: removing it lets the cut-over go.
func postpone(t *testing.T, cfg *config.Config) string {
	t.Helper()
	flag := filepath.Join(t.TempDir(), "postpone")
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.PostponeCutOverFlagFile, cfg.FlagFileInterval = flag, 10*time.Millisecond
	return flag
}

func mustNew(t *testing.T, cfg config.Config) *Migrator {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

// newWithSeams is mustNew with the tests' seams s on the Migrator.
func newWithSeams(t *testing.T, cfg config.Config, s seams) *Migrator {
	t.Helper()
	m := mustNew(t, cfg)
	m.seams = s
	return m
}

// runMigration starts the migration cfg describes and delivers its result.
func runMigration(t *testing.T, cfg config.Config) <-chan error {
	t.Helper()
	return runWithSeams(t, cfg, seams{})
}

// runWithSeams is runMigration with the tests' seams s on the Migrator.
func runWithSeams(t *testing.T, cfg config.Config, s seams) <-chan error {
	t.Helper()
	m := newWithSeams(t, cfg, s)
	done := make(chan error, 1)
	go func() { done <- m.Run(context.Background()) }()
	return done
}

// waitFailed waits (at most 90 s) for a migration that must fail and returns its error. Success
// fails the test: wrong says what the migration must not have done.
func waitFailed(t *testing.T, done <-chan error, wrong string) error {
	t.Helper()
	err := testenv.WaitResult(t, done, 90*time.Second)
	if err == nil {
		t.Fatalf("the migration succeeded %s", wrong)
	}
	return err
}

// waitPostponed waits (at most 60 s) until the changelog state of the migration of t says
// "postponed" and also (when given) holds; the run ending first fails the test.
func waitPostponed(t *testing.T, db *sql.DB, done <-chan error, also ...func() bool) {
	t.Helper()
	q := "SELECT value FROM " + table.QuoteIdent(table.ChangelogName("t")) + " WHERE hint = ?"
	testenv.WaitFor(t, 60*time.Second, 20*time.Millisecond, "the cut-over postponed", func() (bool, error) {
		select {
		case err := <-done:
			return false, fmt.Errorf("run ended before postponing: %v", err)
		default:
		}
		// The other conditions first: one that names the changelog's table (waitPostponedOwn) must
		// hold before its state row is read, or the row read may be of the table it replaced.
		for _, cond := range also {
			if !cond() {
				return false, nil
			}
		}
		var state string
		err := db.QueryRow(q, changelog.HintState).Scan(&state)
		switch {
		case errors.Is(err, sql.ErrNoRows), loadgen.Errno(err) == 1146: // not written yet
			return false, nil
		case err != nil:
			return false, fmt.Errorf("read state: %w", err)
		}
		return state == "postponed", nil
	})
}
