package migrator

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// prepareDB is the database of the preparation tests (other packages use their own).
const prepareDB = "gl_prepare"

// logBuffer collects log output written from any goroutine.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *logBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *logBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testConfig is a dry-run configuration on the sandbox primary, logging to the test (and to logs).
func prepareConfig(t *testing.T, tbl, alter string, logs *logBuffer) Config {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Conn = testenv.PrimaryConfig()
	cfg.Database, cfg.Table, cfg.Alter = prepareDB, tbl, alter
	cfg.AllowOnMaster = true
	var w = zerolog.NewTestWriter(t)
	if logs != nil {
		cfg.Logger = zerolog.New(zerolog.MultiLevelWriter(w, logs))
	} else {
		cfg.Logger = zerolog.New(w)
	}
	return cfg
}

func mustNew(t *testing.T, cfg Config) *Migrator {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

// serverState is what a refused preparation must not change: the tables of the database and the
// data of each one.
type serverState struct {
	tables []string
	sums   map[string]string
}

func captureState(t *testing.T, db *sql.DB) serverState {
	t.Helper()
	st := serverState{tables: testenv.TableNames(t, db, prepareDB, ""), sums: map[string]string{}}
	for _, name := range st.tables {
		cols := tableColumnNames(t, db, name)
		rows, sum := testenv.Checksum(t, db, prepareDB, name, cols, "`"+cols[0]+"`")
		st.sums[name] = fmt.Sprintf("%d/%s", rows, sum)
	}
	return st
}

func tableColumnNames(t *testing.T, db *sql.DB, tbl string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, prepareDB, tbl)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
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
	if err := db.QueryRow("SELECT IS_FREE_LOCK(?)", mutexName(prepareDB, tbl)).Scan(&free); err != nil {
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
		_ = m.dropGhost(context.Background(), s)
		s.close()
	})
	return s
}

// finish drops the ghost and closes the session, as a dry run does.
func endSession(t *testing.T, m *Migrator, s *session) {
	t.Helper()
	if err := m.dropGhost(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	s.close()
}
