package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/tablelock"
)

// prepareDB names the databases of the preparation tests (one per test: testenv.OwnDatabase).
const prepareDB = "glr_prepare"

// prepareConfig is a dry-run configuration of prepareDB.tbl (see testConfig).
func prepareConfig(t *testing.T, tbl, alter string, logs *testenv.LogBuffer) config.Config {
	t.Helper()
	return testConfig(t, prepareDB, tbl, alter, logs)
}

// serverState is what a refused preparation must not change: the tables of the database and the
// data of each one.
type serverState struct {
	tables []string
	sums   map[string]string
}

func captureState(t *testing.T, db *sql.DB) serverState {
	t.Helper()
	schema := testenv.DatabaseOf(t, db)
	st := serverState{tables: testenv.TableNames(t, db, schema, ""), sums: map[string]string{}}
	for _, name := range st.tables {
		cols := tableColumnNames(t, db, name)
		rows, sum := testenv.Checksum(t, db, schema, name, cols, "`"+cols[0]+"`")
		st.sums[name] = fmt.Sprintf("%d/%s", rows, sum)
	}
	return st
}

func tableColumnNames(t *testing.T, db *sql.DB, tbl string) []string {
	t.Helper()
	cols := testenv.Columns(t, db, testenv.DatabaseOf(t, db), tbl)
	if len(cols) == 0 {
		t.Fatalf("table %s has no columns", tbl)
	}
	return cols
}

// assertUnchanged checks the database is as captured and the migration lock of tbl is free.
func assertUnchanged(t *testing.T, db *sql.DB, before serverState, tbl string) {
	t.Helper()
	after := captureState(t, db)
	if !reflect.DeepEqual(before.tables, after.tables) {
		t.Errorf("tables changed: before %v, after %v", before.tables, after.tables)
	}
	if !reflect.DeepEqual(before.sums, after.sums) {
		t.Errorf("table data changed: before %v, after %v", before.sums, after.sums)
	}
	for _, name := range after.tables {
		if strings.HasSuffix(name, "_gho") || strings.HasSuffix(name, "_ghc") || strings.HasSuffix(name, "_del") {
			if !hasString(before.tables, name) {
				t.Errorf("helper table %s left behind", name)
			}
		}
	}
	assertLockFree(t, db, tbl)
}

func assertLockFree(t *testing.T, db *sql.DB, tbl string) {
	t.Helper()
	var free sql.NullInt64
	if err := db.QueryRow("SELECT IS_FREE_LOCK(?)", tablelock.Name(prepareDB, tbl)).Scan(&free); err != nil {
		t.Fatal(err)
	}
	if !free.Valid || free.Int64 != 1 {
		t.Errorf("the migration lock of %s is still held", tbl)
	}
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// prepareOK runs prepare and fails the test on a refusal; the session is closed at cleanup.
func prepareOK(t *testing.T, m *Migrator) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := m.prepare(ctx)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	t.Cleanup(func() {
		_ = s.dropGhost(context.Background())
		s.close()
	})
	return s
}

// finish drops the ghost and closes the session, as a dry run does.
func endSession(t *testing.T, m *Migrator, s *session) {
	t.Helper()
	if err := s.dropGhost(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.close()
}
