package migrator

import (
	"context"
	"database/sql"
	"errors"
	"math/rand"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const triggersDB = "gl_mig_triggers"

// The original's triggers: every timing and event, two BEFORE INSERT whose order matters
// ((v+1000)*2, not v*2+1000), one whose name already ends with the suffix. The AFTER and BEFORE
// DELETE ones write to an audit table, so every firing is counted.
var triggerDDL = []string{
	"CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL DEFAULT 0, note VARCHAR(20) NOT NULL DEFAULT '')",
	"CREATE TABLE audit (n INT NOT NULL AUTO_INCREMENT PRIMARY KEY, what VARCHAR(4) NOT NULL, row_id INT NOT NULL)",
	"CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW SET NEW.v = NEW.v + 1000",
	"CREATE TRIGGER t_bi2 BEFORE INSERT ON t FOR EACH ROW FOLLOWS t_bi SET NEW.v = NEW.v * 2",
	"CREATE TRIGGER t_bu BEFORE UPDATE ON t FOR EACH ROW SET NEW.note = CONCAT('é', LEFT(NEW.note, 10))",
	"CREATE TRIGGER t_bd BEFORE DELETE ON t FOR EACH ROW INSERT INTO audit (what, row_id) VALUES ('bd', OLD.id)",
	"CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW INSERT INTO audit (what, row_id) VALUES ('ai', NEW.id)",
	"CREATE TRIGGER t_au AFTER UPDATE ON t FOR EACH ROW BEGIN INSERT INTO audit (what, row_id) VALUES ('au', NEW.id); END",
	"CREATE TRIGGER t_ad_gl AFTER DELETE ON t FOR EACH ROW INSERT INTO audit (what, row_id) VALUES ('ad', OLD.id)",
	"INSERT INTO t (v) SELECT seq FROM seq_1_to_3000",
}

// --include-triggers under a write load: the triggers fire on the original only during the
// migration (the audit counts exactly the application's writes), the data equals the original's,
// and after the cut-over the new table has them, in order, under their new names, and they fire.
// The first cut-over attempt fails after the triggers were created on the ghost: they must be
// dropped before the original is unlocked (else the second attempt finds their names taken, and
// the applier's writes after the failure fire them). (lock-rename refuses --include-triggers.)
func TestIncludeTriggersUnderLoad(t *testing.T) {
	for _, c := range []struct {
		algorithm string
		failAt    cutover.Step // the first attempt fails before this step, with the triggers on the ghost
	}{
		{config.CutOverThreeStep, cutover.StepRename1},
		{"atomic", cutover.StepAtomicRename},
		{"two-step", cutover.StepRenameAway},
	} {
		t.Run(c.algorithm, func(t *testing.T) {
			if err := cutover.RefuseOn(c.algorithm, testenv.Flavor(t)); err != nil {
				t.Skipf("flavor limit: %v", err)
			}
			includeTriggersUnderLoad(t, c.algorithm, c.failAt)
		})
	}
}

func includeTriggersUnderLoad(t *testing.T, algorithm string, failAt cutover.Step) {
	db := testenv.Database(t, triggersDB)
	testenv.Exec(t, db, triggerDDL...)

	var logs testenv.LogBuffer
	cfg := testConfig(t, triggersDB, "t", "ADD COLUMN extra INT NULL", &logs)
	live(&cfg)
	cfg.CutOver = algorithm
	flag := postpone(t, &cfg)
	cfg.IncludeTriggers, cfg.TriggerSuffix, cfg.RemoveTriggerSuffix = true, "_gl", true
	var running atomic.Pointer[loadgen.Load]
	cutOver := cutover.TestSeams{BeforeStep: func(_ context.Context, s cutover.Step, info cutover.StepInfo) error {
		switch {
		case s == failAt && info.Attempt == 1:
			return errors.New("test: fail the first attempt once the triggers are on the ghost")
		case s == cutover.StepLock && info.Attempt == 2:
			running.Load().Stop() // the original and the new table must end equal
		}
		return nil
	}}
	done := runWithSeams(t, cfg, seams{cutOver: cutOver})

	load := loadgen.Start(context.Background(), loadgen.Config{DB: db, Rate: 300, Workers: 3, Ops: []loadgen.Op{
		func(r *rand.Rand) (string, []any) {
			return "INSERT INTO t (v, note) VALUES (?, 'x')", []any{r.Intn(1000)}
		},
		func(r *rand.Rand) (string, []any) {
			return "UPDATE t SET v = v + 1, note = 'u' WHERE id = ?", []any{1 + r.Intn(3500)}
		},
		func(r *rand.Rand) (string, []any) { return "DELETE FROM t WHERE id = ?", []any{1 + r.Intn(3500)} },
	}})
	running.Store(load)
	waitPostponed(t, db, done)
	if !load.WaitAcked(300, 30*time.Second) {
		t.Fatalf("the load did not write: %v", load.Err())
	}
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	// The load goes on through the failed attempt (and the backoff after it, when the applier
	// writes to the ghost again), then stops before the second.
	if err := testenv.WaitResult(t, done, 90*time.Second); err != nil {
		t.Fatalf("migration: %v\n%s", err, logs.String())
	}
	load.Stop()
	if !logs.Contains("test: fail the first attempt") {
		t.Fatal("the first cut-over attempt did not fail as the test asked")
	}

	// Every firing during the migration was for an application write on the original: 3000
	// seed inserts, then one audit row per insert and update, two per delete.
	want := 3000
	for _, w := range load.Writes() {
		if w.Acked() {
			want += int(w.RowsAffected) * []int{1, 1, 2}[w.Op]
		}
	}
	if got := testenv.CountRows(t, db, triggersDB, "audit"); got != int64(want) {
		t.Errorf("audit has %d rows after the migration; the application's writes account for %d", got, want)
	}
	assertTriggers(t, db, "t", "t_bi_gl t_bi2_gl t_bu_gl t_bd_gl t_ai_gl t_au_gl t_ad")
	assertTriggers(t, db, "_t_del", "t_bi t_bi2 t_bu t_bd t_ai t_au t_ad_gl")
	cols := []string{"id", "v", "note"}
	n1, s1 := testenv.Checksum(t, db, triggersDB, "t", cols, "id")
	n2, s2 := testenv.Checksum(t, db, triggersDB, "_t_del", cols, "id")
	if n1 != n2 || s1 != s2 {
		t.Fatalf("new table (%d rows, %s) differs from the original (%d rows, %s)", n1, s1, n2, s2)
	}

	// After the cut-over they fire on the new table, in order.
	testenv.Exec(t, db, "DELETE FROM audit", "INSERT INTO t (id, v) VALUES (100000, 1)",
		"UPDATE t SET note = 'x' WHERE id = 100000", "DELETE FROM t WHERE id = 100000", "INSERT INTO t (id, v) VALUES (100001, 5)")
	var v int
	var note string
	if err := db.QueryRow("SELECT v FROM t WHERE id = 100001").Scan(&v); err != nil || v != 2010 {
		t.Errorf("BEFORE INSERT triggers on the new table: v = %d (%v), want (5+1000)*2 = 2010", v, err)
	}
	testenv.Exec(t, db, "UPDATE t SET note = 'y' WHERE id = 100001")
	if err := db.QueryRow("SELECT note FROM t WHERE id = 100001").Scan(&note); err != nil || note != "éy" {
		t.Errorf("BEFORE UPDATE trigger on the new table: note = %q (%v), want \"éy\"", note, err)
	}
	got := strings.Join(testenv.RowsText(t, db, triggersDB, "audit", "n"), " ")
	for _, w := range []string{"ai", "au", "bd", "ad"} {
		if !strings.Contains(got, w) {
			t.Errorf("after the cut-over the %s trigger did not fire on the new table: audit %q", w, got)
		}
	}
}

// assertTriggers checks the names of the triggers on tbl (any order).
func assertTriggers(t *testing.T, db *sql.DB, tbl, names string) {
	t.Helper()
	got, err := dbconn.QueryStrings(context.Background(), db, `SELECT TRIGGER_NAME FROM information_schema.TRIGGERS
		WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ? ORDER BY TRIGGER_NAME`, triggersDB, tbl)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(names)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("triggers on %s: %q, want %q", tbl, got, want)
	}
}

// Without --include-triggers a table with triggers is refused with gh-ost's phrase; with it, a
// new name already taken is refused ("Please use a different suffix or drop them"); nothing is changed either way.
func TestTriggerRefusals(t *testing.T) {
	db := testenv.Database(t, triggersDB)
	testenv.Exec(t, db, triggerDDL[0], triggerDDL[1], triggerDDL[2],
		"CREATE TABLE other (id INT PRIMARY KEY)", "CREATE TRIGGER t_bi_gl BEFORE INSERT ON other FOR EACH ROW SET NEW.id = NEW.id")
	for _, c := range []struct {
		include bool
		want    string
	}{
		{false, `found triggers on gl_mig_triggers.t. Tables with triggers are supported only when using "include-triggers" flag`},
		{true, "found gh-ost triggers (t_bi_gl). Please use a different suffix or drop them. Bailing out"},
	} {
		before := captureState(t, db)
		cfg := testConfig(t, triggersDB, "t", "ADD COLUMN extra INT NULL", nil)
		live(&cfg)
		if c.include {
			cfg.IncludeTriggers, cfg.TriggerSuffix = true, "_gl"
		}
		err := mustNew(t, cfg).Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("include-triggers %v: %v; want %q", c.include, err, c.want)
		}
		assertUnchanged(t, db, before, "t")
	}
	for _, c := range []struct {
		cfg  func(*config.Config)
		want string
	}{
		{func(c *config.Config) { c.IncludeTriggers = true }, "--include-triggers needs --trigger-suffix"},
		{func(c *config.Config) { c.IncludeTriggers, c.TriggerSuffix = true, "a-b" }, "--trigger-suffix must contain only alpha numeric characters and underscore"},
		{func(c *config.Config) { c.TriggerSuffix = "_gl" }, "only apply with --include-triggers"},
	} {
		cfg := testConfig(t, triggersDB, "t", "ADD COLUMN extra INT NULL", nil)
		c.cfg(&cfg)
		if _, err := New(cfg); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New: %v; want a usage error containing %q", err, c.want)
		}
	}

	// A trigger dropped from the original during the migration is not recreated: the cut-over stops.
	testenv.Exec(t, db, "DROP TRIGGER t_bi_gl")
	cfg := testConfig(t, triggersDB, "t", "ADD COLUMN extra INT NULL", nil)
	live(&cfg)
	cfg.IncludeTriggers, cfg.TriggerSuffix = true, "_gl"
	flag := postpone(t, &cfg)
	done := runMigration(t, cfg)
	waitPostponed(t, db, done)
	testenv.Exec(t, db, "DROP TRIGGER t_bi")
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	err := waitFailed(t, done, "after a trigger of the original was dropped")
	if !errors.Is(err, cutover.ErrUnsafe) || !strings.Contains(err.Error(), "changed during the migration (now: ; at the start: t_bi)") {
		t.Fatalf("trigger dropped during the migration: %v", err)
	}
	assertTriggers(t, db, "_t_gho", "")
	assertTriggers(t, db, "t", "")
}
