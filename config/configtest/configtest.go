// Package configtest builds the config.Config of a migration on the sandbox for tests (as
// net/http/httptest serves net/http's tests): the one every package's tests start from, each then
// setting what it needs on top.
//
// Invariants: only _test.go files import it; it imports config and internal/testenv only, so the
// tests of every package (migrator's included) can use it. The shared values come from testenv:
// the sandbox primary, the test's logger and a replica server id of the run's own
// (testenv.NextServerID).
package configtest

import (
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Dry is a dry run of database.tbl with alter on the sandbox primary (--allow-on-master), logging
// to the test and, when logs is not nil, to logs. Every other field has gh-ost's default
// (config.Default).
func Dry(t testing.TB, database, tbl, alter string, logs *testenv.LogBuffer) config.Config {
	t.Helper()
	cfg := config.Default()
	cfg.Conn = testenv.PrimaryConfig()
	cfg.Database, cfg.Table, cfg.Alter = database, tbl, alter
	cfg.AllowOnMaster = true
	cfg.Logger = testenv.Logger(t, logs)
	return cfg
}

// Config is Dry migrating for real: a live migration (--execute) of database.tbl (see Live). Call
// it once per run: each call hands out a new server id.
func Config(t testing.TB, database, tbl, alter string, logs *testenv.LogBuffer) config.Config {
	t.Helper()
	cfg := Dry(t, database, tbl, alter, logs)
	Live(&cfg)
	return cfg
}

// Live makes cfg migrate for real (--execute), reading the binlog under a replica server id no
// other stream uses (testenv.NextServerID): call it once per run.
func Live(cfg *config.Config) {
	cfg.Execute = true
	cfg.ReplicaServerID = testenv.NextServerID()
}
