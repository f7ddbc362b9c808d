package migrator

import (
	"context"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const mdlDB = "gl_mdlcheck"

// setMDLInstrument turns the metadata lock instrument on the sandbox primary on or off: every
// session sees it, so a test that calls it runs alone on the sandbox (testenv.Serial).
func setMDLInstrument(t *testing.T, on bool) {
	t.Helper()
	v := "NO"
	if on {
		v = "YES"
	}
	db := testenv.Open(t, testenv.PrimaryConfig(), "")
	testenv.Exec(t, db, "UPDATE performance_schema.setup_instruments SET ENABLED = '"+v+"' WHERE NAME = 'wait/lock/metadata/sql/mdl'")
}

func mdlVisible(t *testing.T) bool {
	t.Helper()
	db := testenv.Open(t, testenv.PrimaryConfig(), "")
	ok, _ := dbconn.MetadataLocksVisible(context.Background(), db)
	return ok
}

// TestMetadataLockPreflight: without visible metadata locks a run is refused with gh-ost's fixes
// named, and nothing changes; --skip-metadata-lock-check goes on (not with atomic); a dry run with
// --allow-setup-metadata-lock-instruments changes nothing, a real run turns the instrument on.
func TestMetadataLockPreflight(t *testing.T) {
	testenv.Serial(t) // it turns the metadata lock instrument off for every session
	db := testenv.Database(t, mdlDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_100")
	t.Cleanup(func() { setMDLInstrument(t, true) })
	setMDLInstrument(t, false)
	if mdlVisible(t) {
		t.Fatal("metadata locks still visible with the instrument off")
	}
	run := func(t *testing.T, set func(*config.Config)) error {
		cfg := testConfig(t, mdlDB, "t", "ADD COLUMN c INT NULL", nil)
		set(&cfg)
		return mustNew(t, cfg).Run(context.Background())
	}
	for _, c := range []struct {
		name    string
		set     func(*config.Config)
		wantErr string // "" = success
	}{
		{"refused", func(*config.Config) {}, "metadata lock instrument not enabled"},
		{"skip", func(c *config.Config) { c.SkipMetadataLockCheck = true }, ""},
		{"atomic even with skip", func(c *config.Config) { c.SkipMetadataLockCheck, c.CutOver = true, config.CutOverAtomic }, "--cut-over=atomic "},
		{"dry run with allow", func(c *config.Config) { c.AllowSetupMetadataLockInstruments = true }, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := captureState(t, db)
			err := run(t, c.set)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("run: %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("run: got %v, want an error with %q", err, c.wantErr)
			}
			if c.wantErr != "" && !strings.Contains(err.Error(), "--skip-metadata-lock-check") && c.name == "refused" {
				t.Errorf("the refusal does not name --skip-metadata-lock-check: %v", err)
			}
			assertUnchanged(t, db, before, "t")
			if mdlVisible(t) {
				t.Error("the run turned the instrument on")
			}
		})
	}
	t.Run("execute with allow", func(t *testing.T) {
		err := run(t, func(c *config.Config) {
			live(c)
			c.AllowSetupMetadataLockInstruments = true
		})
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if !mdlVisible(t) {
			t.Error("--allow-setup-metadata-lock-instruments did not turn the instrument on")
		}
		if !testenv.HasColumn(t, db, mdlDB, "t", "c") {
			t.Error("the migration did not add the column")
		}
	})
}
