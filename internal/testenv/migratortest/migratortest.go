// Package migratortest builds the config.Config of a live migration on the sandbox: the one the
// tests of the observers (hooks, metrics, control) and the chaos tests start from, each then
// setting what it needs on top.
//
// Invariants: only _test.go files import it. It is not part of internal/testenv because it
// imports migrator, and migrator's own tests import testenv: testenv importing migrator would be
// a cycle. For the same reason migrator's own tests cannot import it; they keep its twin
// (testConfig, liveConfig in migrator/testrun_test.go), which sets the same fields. Both take the
// shared values from testenv: the sandbox primary, the test's logger and a replica server id of
// the run's own (testenv.NextServerID).
package migratortest

import (
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Config is a live migration (--execute) of database.tbl with alter on the sandbox primary
// (--allow-on-master), reading the binlog under a replica server id no other stream uses, logging
// to the test and, when logs is not nil, to logs. Every other field has gh-ost's default
// (config.Default). Call it once per run: each call hands out a new server id.
func Config(t testing.TB, database, tbl, alter string, logs *testenv.LogBuffer) config.Config {
	t.Helper()
	cfg := config.Default()
	cfg.Conn = testenv.PrimaryConfig()
	cfg.Database, cfg.Table, cfg.Alter = database, tbl, alter
	cfg.AllowOnMaster, cfg.Execute = true, true
	cfg.ReplicaServerID = testenv.NextServerID()
	cfg.Logger = testenv.Logger(t, logs)
	return cfg
}
