package migrator

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config/configtest"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const nullableDB = "gl_mig_nullable"

// --allow-nullable-unique-key: refused with gh-ost's phrase without it; with it, refused when the
// key's columns hold a NULL (nothing changed), migrated when they hold none, and stopped at the
// cut-over when a NULL was written during the migration.
func TestAllowNullableUniqueKey(t *testing.T) {
	t.Parallel() // a database of its own
	db, schema := testenv.OwnDatabase(t, nullableDB)
	setup := func(null bool) {
		testenv.Exec(t, db, "DROP TABLE IF EXISTS t, _t_del", "CREATE TABLE t (id INT NULL, v INT NOT NULL, UNIQUE KEY uk_id (id))",
			"INSERT INTO t (id, v) SELECT seq, seq FROM seq_1_to_2000")
		if null {
			testenv.Exec(t, db, "INSERT INTO t (id, v) VALUES (NULL, 0)")
		}
	}
	refusals := []struct {
		allow, null bool
		want        string
	}{
		{false, false, "chosen key uk_id (id) has nullable columns. Bailing out. To force this operation to continue, supply --allow-nullable-unique-key flag"},
		{true, true, "chosen key uk_id (id) has nullable columns, and 1 rows of " + schema + ".t hold NULL in them"},
	}
	for _, c := range refusals {
		setup(c.null)
		before := captureState(t, db)
		cfg := configtest.Config(t, schema, "t", "ADD COLUMN c INT NULL", nil)
		cfg.AllowNullableUniqueKey = c.allow
		err := mustNew(t, cfg).Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("allow %v, NULL %v: %v; want %q", c.allow, c.null, err, c.want)
		}
		assertUnchanged(t, db, before, "t")
	}

	// No NULL: migrated, with writes during the copy.
	setup(false)
	cfg := configtest.Config(t, schema, "t", "ADD COLUMN c INT NULL", nil)
	cfg.AllowNullableUniqueKey = true
	flag := postpone(t, &cfg)
	done := runMigration(t, cfg)
	waitPostponed(t, db, done)
	testenv.Exec(t, db, "UPDATE t SET v = -v WHERE id <= 100", "DELETE FROM t WHERE id > 1990", "INSERT INTO t (id, v) VALUES (5000, 5)")
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 60*time.Second); err != nil {
		t.Fatalf("migration with a nullable key and no NULL: %v", err)
	}
	n1, s1 := testenv.Checksum(t, db, schema, "t", []string{"id", "v"}, "id")
	n2, s2 := testenv.Checksum(t, db, schema, "_t_del", []string{"id", "v"}, "id")
	if n1 != n2 || s1 != s2 || n1 != 1991 {
		t.Fatalf("new table %d rows (%s), original %d rows (%s); want equal, 1991 rows", n1, s1, n2, s2)
	}

	// A NULL written during the migration: the cut-over refuses it, once, and the original stays.
	setup(false)
	cfg = configtest.Config(t, schema, "t", "ADD COLUMN c INT NULL", nil)
	cfg.AllowNullableUniqueKey = true
	flag = postpone(t, &cfg)
	done = runMigration(t, cfg)
	waitPostponed(t, db, done)
	testenv.Exec(t, db, "INSERT INTO t (id, v) VALUES (NULL, 7)")
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	err := waitFailed(t, done, "with a NULL in its key")
	if !errors.Is(err, cutover.ErrUnsafe) || !strings.Contains(err.Error(), "rows written during the migration") || !strings.Contains(err.Error(), "_t_gho hold NULL") {
		t.Fatalf("NULL written during the migration: %v", err)
	}
	if got := testenv.CountRows(t, db, schema, "t"); got != 2001 {
		t.Fatalf("the original has %d rows, want 2001", got)
	}
}
