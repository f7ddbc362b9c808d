package migrator

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/plan"
	"github.com/go-ghostlite/go-ghostlite/preflight"
)

// fill100k fills t (id, a, b) with 100,000 rows.
const fill100k = `INSERT INTO t (id, a, b)
	SELECT d0.n + 10*d1.n + 100*d2.n + 1000*d3.n + 10000*d4.n + 1, d0.n, CONCAT('row', d1.n)
	FROM (SELECT 0 n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d0,
	(SELECT 0 n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d1,
	(SELECT 0 n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d2,
	(SELECT 0 n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d3,
	(SELECT 0 n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d4`

func TestDryRunLeavesNoTrace(t *testing.T) {
	t.Parallel() // a database of its own
	db, schema := testenv.OwnDatabase(t, prepareDB)
	testenv.Exec(t, db, plainTable, fill100k, "ANALYZE TABLE t")
	before := captureState(t, db)
	if before.sums["t"][:7] != "100000/" {
		t.Fatalf("setup: %v", before.sums)
	}
	logs := &testenv.LogBuffer{}
	cfg := testConfig(t, schema, "t", "ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 0, DROP COLUMN b, ADD KEY (a)", logs)
	m := mustNew(t, cfg)
	start := time.Now()
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("dry run of 100k rows took %v (more than 2 s)", took)
	}
	assertUnchanged(t, db, before, "t")
	out := logs.String()
	for _, want := range []string{
		`"message":"plan: migrate ` + schema + `.t on ` + testenv.Flavor(t).String(),
		"topology: binlog read and tables written on 127.0.0.1:",
		"shared key: PRIMARY (id)",
		"columns copied (2): id, a",
		"columns dropped (their data is not copied): b",
		"columns added (filled with their defaults): c",
		"rows: ", "(optimizer estimate",
		"helper tables: ghost _t_gho, changelog _t_ghc, old table after cut-over _t_del",
		`"component":"migrator"`,
		"dry run: the ALTER works on the ghost table",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan print-out lacks %q:\n%s", want, out)
		}
	}
}

// The dry run reviews the ALTER as a DBA would, one warning line each, and leaves nothing behind
// (its probe of ALGORITHM=INSTANT/INPLACE on an empty copy is dropped): a new unique key with the
// original's duplicates counted, narrowed columns with the values that do not fit, added FLOAT and
// TIMESTAMP columns, a visible index dropped, the table's size; and an ALTER the server does
// instantly is called so.
func TestDryRunReview(t *testing.T) {
	t.Parallel() // a database of its own
	db, schema := testenv.OwnDatabase(t, prepareDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL, s VARCHAR(30), big BIGINT, KEY vk (v))",
		"INSERT INTO t SELECT seq, seq % 100, REPEAT('x', seq % 30), seq * 1000 FROM seq_1_to_3000")
	before := captureState(t, db)
	review := func(alter string) string {
		t.Helper()
		logs := &testenv.LogBuffer{}
		if err := mustNew(t, testConfig(t, schema, "t", alter, logs)).Run(context.Background()); err != nil {
			t.Fatalf("dry run of %s: %v", alter, err)
		}
		assertUnchanged(t, db, before, "t")
		return logs.String()
	}
	out := review("ADD UNIQUE KEY uv (v), MODIFY s VARCHAR(10), MODIFY big SMALLINT, ADD COLUMN f FLOAT, ADD COLUMN ts TIMESTAMP NULL, DROP KEY vk")
	for _, want := range []string{
		"review: the new unique key `uv` would drop rows: 100 values appear more than once in the original today",
		"review: column `s` is narrowed (varchar(30) -> varchar(10)): 1900 values of the original do not fit",
		"review: column `big` is narrowed (bigint", // MySQL shows no display width
		"): 2968 values of the original do not fit",
		"review: the added column `f` is FLOAT",
		"review: the added column `ts` is a TIMESTAMP: it cannot hold a moment after 2038-01-19",
		"review: the index `vk` is dropped while queries may use it: make it invisible first",
		"review: the table holds about ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the review lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ALGORITHM=INSTANT, metadata only") {
		t.Errorf("a type change called instant:\n%s", out)
	}
	out = review("ADD COLUMN c INT")
	if !strings.Contains(out, "review: the server can do this ALTER instantly (ALGORITHM=INSTANT") {
		t.Errorf("an instant ADD COLUMN not called so:\n%s", out)
	}
	// The dry run lists every check it ran, those of each moment up to the ghost, in order.
	var names []string
	for _, scope := range []preflight.Scope{preflight.Connected, preflight.BeforeCreate, preflight.AfterGhost} {
		for _, c := range preflight.Checks(scope) {
			names = append(names, c.Name)
		}
	}
	if want := fmt.Sprintf("checks passed (%d): %s", len(names), strings.Join(names, ", ")); !strings.Contains(out, want) {
		t.Errorf("the dry run does not list the checks it ran, want %q:\n%s", want, out)
	}
}

func TestPrepareFromReplicaWritesToPrimary(t *testing.T) {
	db := testenv.Database(t, prepareDB)
	testenv.Exec(t, db, plainTable, plainRows)
	testenv.WaitReplica(t)
	replica := testenv.Open(t, testenv.ReplicaConfig(), prepareDB)
	before := captureState(t, db)

	cfg := prepareConfig(t, "t", "ADD COLUMN c INT", nil)
	cfg.Conn = testenv.ReplicaConfig()
	cfg.AllowOnMaster = false
	m := mustNew(t, cfg)
	s := prepareOK(t, m)
	p := s.plan
	if !p.InspectedIsReplica || p.Primary.Port != testenv.PrimaryConfig().Port || p.Inspected.Port != testenv.ReplicaConfig().Port {
		t.Fatalf("topology: replica=%v inspected %s primary %s", p.InspectedIsReplica, p.Inspected.Addr(), p.Primary.Addr())
	}
	if s.primary == s.inspected {
		t.Fatal("the primary pool is the replica's")
	}
	if names := testenv.TableNames(t, db, prepareDB, "_t_gho"); len(names) != 1 {
		t.Fatalf("ghost not created on the primary: %v", names)
	}
	var server int
	if err := s.primary.QueryRow("SELECT @@port").Scan(&server); err != nil || server != testenv.PrimaryConfig().Port {
		t.Fatalf("writes go to port %d (%v)", server, err)
	}
	endSession(t, m, s)
	assertUnchanged(t, db, before, "t")

	// The whole dry run from the replica leaves no trace on either server.
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("dry run from the replica: %v", err)
	}
	assertUnchanged(t, db, before, "t")
	testenv.WaitReplica(t)
	if names := testenv.TableNames(t, replica, prepareDB, "_t_"); len(names) != 0 {
		t.Fatalf("helper tables on the replica: %v", names)
	}
}

func TestRenamedColumns(t *testing.T) {
	t.Parallel() // a database of its own
	const alter = "CHANGE COLUMN a a_renamed INT COMMENT 'was a, RENAME TO nothing'"
	for _, approve := range []bool{true, false} {
		t.Run(fmt.Sprintf("approve=%v", approve), func(t *testing.T) {
			db, schema := testenv.OwnDatabase(t, prepareDB)
			testenv.Exec(t, db, plainTable, plainRows)
			cfg := testConfig(t, schema, "t", alter, nil)
			cfg.ApproveRenamedColumns, cfg.SkipRenamedColumns = approve, !approve
			m := mustNew(t, cfg)
			s := prepareOK(t, m)
			p := s.plan
			if !reflect.DeepEqual(p.Renames, map[string]string{"a": "a_renamed"}) {
				t.Errorf("approve=%v: renames %v", approve, p.Renames)
			}
			want := []plan.ColumnPair{{Original: "id", Ghost: "id"}, {Original: "a", Ghost: "a_renamed"}, {Original: "b", Ghost: "b"}}
			if !approve {
				want = []plan.ColumnPair{{Original: "id", Ghost: "id"}, {Original: "b", Ghost: "b"}}
				if !reflect.DeepEqual(s.plan.Mapping.SkippedRenamed, []string{"a -> a_renamed"}) || !reflect.DeepEqual(s.plan.Mapping.Added, []string{"a_renamed"}) {
					t.Errorf("skip: skipped %v added %v", s.plan.Mapping.SkippedRenamed, s.plan.Mapping.Added)
				}
			}
			if !reflect.DeepEqual(p.Columns, want) {
				t.Errorf("approve=%v: columns %v, want %v", approve, p.Columns, want)
			}
			endSession(t, m, s)
		})
	}
}

func TestInitiallyDropHelperTables(t *testing.T) {
	db := testenv.Database(t, prepareDB)
	testenv.Exec(t, db, plainTable, plainRows,
		"CREATE TABLE _t_gho (stale INT PRIMARY KEY)", "CREATE TABLE _t_ghc (stale INT PRIMARY KEY)",
		"CREATE TABLE _t_del (stale INT PRIMARY KEY)")
	_, sumBefore := testenv.Checksum(t, db, prepareDB, "t", []string{"id", "a", "b"}, "id")
	cfg := prepareConfig(t, "t", "ADD COLUMN c INT", nil)
	cfg.InitiallyDropGhostTable, cfg.InitiallyDropOldTable = true, true
	m := mustNew(t, cfg)
	s := prepareOK(t, m)
	if _, ok := s.plan.Ghost.Column("stale"); ok {
		t.Fatal("the stale ghost was kept")
	}
	if _, ok := s.plan.Ghost.Column("c"); !ok {
		t.Fatal("the new ghost lacks the added column")
	}
	if got := testenv.TableNames(t, db, prepareDB, "_t_"); !reflect.DeepEqual(got, []string{"_t_gho"}) {
		t.Fatalf("helper tables during the run: %v", got)
	}
	endSession(t, m, s)
	if got := testenv.TableNames(t, db, prepareDB, "_t_"); len(got) != 0 {
		t.Fatalf("helper tables after the run: %v", got)
	}
	if _, sum := testenv.Checksum(t, db, prepareDB, "t", []string{"id", "a", "b"}, "id"); sum != sumBefore {
		t.Fatal("the original changed")
	}
}

func TestPreparePlanDetails(t *testing.T) {
	db := testenv.Database(t, prepareDB)
	testenv.Exec(t, db,
		"CREATE TABLE p (id INT PRIMARY KEY)", "INSERT INTO p VALUES (1)",
		`CREATE TABLE t (id INT NOT NULL, code VARCHAR(10) NOT NULL, pid INT, g INT AS (id * 2) VIRTUAL,
			PRIMARY KEY (id), UNIQUE KEY uk_code (code), CONSTRAINT fk_t_p FOREIGN KEY (pid) REFERENCES p (id))`,
		"INSERT INTO t (id, code, pid) VALUES (1, 'a', 1), (2, 'b', NULL)")
	cfg := prepareConfig(t, "t", "DROP PRIMARY KEY, ADD COLUMN n INT", nil)
	cfg.DiscardForeignKeys, cfg.ExactRowcount, cfg.TimestampOldTable = true, true, true
	m := mustNew(t, cfg)
	s := prepareOK(t, m)
	p := s.plan
	if p.OriginalKey.Name != "uk_code" || p.GhostKey.Name != "uk_code" {
		t.Errorf("shared key %v / %v, want uk_code", p.OriginalKey, p.GhostKey)
	}
	if want := []plan.ColumnPair{{Original: "id", Ghost: "id"}, {Original: "code", Ghost: "code"}, {Original: "pid", Ghost: "pid"}}; !reflect.DeepEqual(p.Columns, want) {
		t.Errorf("columns %v, want %v (generated g is never copied)", p.Columns, want)
	}
	if p.EstimatedRows != 2 {
		t.Errorf("exact row count %d, want 2", p.EstimatedRows)
	}
	if len(p.OldTable) != len("_t_20060102150405_del") || !strings.HasPrefix(p.OldTable, "_t_") || !strings.HasSuffix(p.OldTable, "_del") {
		t.Errorf("timestamped old table %q", p.OldTable)
	}
	if p.Flavor != testenv.Flavor(t) || p.Ghost.Name != "_t_gho" || p.ChangelogTable != "_t_ghc" {
		t.Errorf("plan: flavor %s ghost %s changelog %s", p.Flavor, p.Ghost.Name, p.ChangelogTable)
	}
	var fks int
	if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = '_t_gho'`, prepareDB).Scan(&fks); err != nil || fks != 0 {
		t.Errorf("the ghost has %d foreign keys (%v), want none", fks, err)
	}
	lines := strings.Join(s.plan.Lines(s.pre.Config.Alter, s.pre.Config.ReplicaMode(), true), "\n") // as with --exact-rowcount
	for _, want := range []string{"shared key: uk_code (code)", "foreign keys of the original NOT carried to the new table: fk_t_p -> p",
		"generated columns (computed by the server, never copied): g", "rows: 2 (exact count)"} {
		if !strings.Contains(lines, want) {
			t.Errorf("plan lacks %q:\n%s", want, lines)
		}
	}
	if err := s.checkMutex(context.Background()); err != nil {
		t.Errorf("the session does not hold its lock: %v", err)
	}
	endSession(t, m, s)
	assertLockFree(t, db, "t")
}
