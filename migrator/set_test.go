package migrator

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
	"github.com/go-ghostlite/go-ghostlite/observe"
)

// setDB names the databases of the tests of sets (several tables, one cut-over).
const setDB = "gl_set"

// setTables creates tables a and b (2,000 rows each) in a database of the test's own and returns
// its pool and name.
func setTables(t *testing.T) (*sql.DB, string) {
	t.Helper()
	db, schema := testenv.OwnDatabase(t, setDB)
	fill := "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 1000) "
	testenv.Exec(t, db,
		"CREATE TABLE a (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT NOT NULL, s VARCHAR(40) NOT NULL)",
		"CREATE TABLE b (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, a_id BIGINT NOT NULL, w VARCHAR(40) NOT NULL)",
		"INSERT INTO a (id, v, s) "+fill+"SELECT n, n % 97, CONCAT('s', n) FROM s UNION ALL SELECT n + 1000, n % 97, CONCAT('t', n) FROM s",
		"INSERT INTO b (id, a_id, w) "+fill+"SELECT n, n % 500 + 1, CONCAT('w', n) FROM s UNION ALL SELECT n + 1000, n % 500 + 1, CONCAT('v', n) FROM s")
	return db, schema
}

// setConfigs are executing configurations of one migration per (table, alter), sharing a postpone
// flag file (returned) and a log.
func setConfigs(t *testing.T, schema string, logs *testenv.LogBuffer, alters ...[2]string) ([]config.Config, string) {
	t.Helper()
	var cfgs []config.Config
	var flag string
	for i, ta := range alters {
		cfg := testConfig(t, schema, ta[0], ta[1], logs)
		live(&cfg)
		if i == 0 {
			flag = postpone(t, &cfg)
		} else {
			cfg.PostponeCutOverFlagFile, cfg.FlagFileInterval = flag, 10*time.Millisecond
		}
		cfgs = append(cfgs, cfg)
	}
	return cfgs, flag
}

// setLoad writes inserts, updates and deletes to a and b until stopped.
func setLoad(t *testing.T, db *sql.DB) *loadgen.Load {
	t.Helper()
	ops := []loadgen.Op{
		func(r *rand.Rand) (string, []any) {
			return "INSERT INTO a (v, s) VALUES (?, 'new')", []any{r.Intn(1000)}
		},
		func(r *rand.Rand) (string, []any) {
			return "UPDATE a SET v = v + 1 WHERE id = ?", []any{r.Intn(2000) + 1}
		},
		func(r *rand.Rand) (string, []any) { return "DELETE FROM a WHERE id = ?", []any{r.Intn(2000) + 1} },
		func(r *rand.Rand) (string, []any) {
			return "INSERT INTO b (a_id, w) VALUES (?, 'new')", []any{r.Intn(500) + 1}
		},
		func(r *rand.Rand) (string, []any) {
			return "UPDATE b SET w = CONCAT(w, 'x') WHERE id = ?", []any{r.Intn(2000) + 1}
		},
		func(r *rand.Rand) (string, []any) { return "DELETE FROM b WHERE id = ?", []any{r.Intn(2000) + 1} },
	}
	l := loadgen.Start(context.Background(), loadgen.Config{DB: db, Ops: ops, Rate: 400, Workers: 2, SkipMissed: true})
	t.Cleanup(func() { l.Stop() })
	return l
}

// Two tables altered together under a write load: each equals the server's own ALTER of its rows,
// and one RENAME statement moved both (one cut-over).
func TestSetTwoTablesCutOverTogether(t *testing.T) {
	db, schema := setTables(t)
	logs := &testenv.LogBuffer{}
	alterA, alterB := "ADD COLUMN c INT NOT NULL DEFAULT 7", "ADD INDEX a_id (a_id), MODIFY w VARCHAR(60) NOT NULL"
	cfgs, flag := setConfigs(t, schema, logs, [2]string{"a", alterA}, [2]string{"b", alterB})
	set, err := NewSet(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	load := setLoad(t, db)
	done := make(chan error, 1)
	go func() { done <- set.Run(context.Background()) }()
	for _, tbl := range []string{"a", "b"} {
		q := "SELECT value FROM " + table.QuoteIdent(table.ChangelogName(tbl)) + " WHERE hint = 'state'"
		testenv.WaitFor(t, 90*time.Second, 20*time.Millisecond, tbl+" postponed", func() (bool, error) {
			var state string
			if err := db.QueryRow(q).Scan(&state); err != nil {
				return false, nil //nolint:nilerr // not written yet
			}
			return state == "postponed", nil
		})
	}
	load.Stop()
	if load.Acked() == 0 {
		t.Fatal("the load wrote nothing")
	}
	oracle, _ := testenv.OwnDatabase(t, setDB+"_oracle")
	for _, tbl := range []string{"a", "b"} {
		testenv.Exec(t, oracle, fmt.Sprintf("CREATE TABLE %s LIKE %s", tbl, table.Qualify(schema, tbl)),
			fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", tbl, table.Qualify(schema, tbl)))
	}
	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	if err := testenv.WaitResult(t, done, 90*time.Second); err != nil {
		t.Fatalf("set: %v", err)
	}
	oracleName := testenv.DatabaseOf(t, oracle)
	for tbl, alter := range map[string]string{"a": alterA, "b": alterB} {
		assertSetMemberSame(t, db, schema, oracleName, tbl, alter)
	}
	if n := strings.Count(logs.String(), "Lock & rename duration"); n != 1 {
		t.Errorf("%d cut-overs logged, want 1", n)
	}
	if !logs.Contains("queries on `a`, `b` were blocked") {
		t.Error("the cut-over did not lock both tables")
	}
}

// assertSetMemberSame runs the server's own ALTER of oracle.tbl and compares schema.tbl with it.
func assertSetMemberSame(t *testing.T, db *sql.DB, schema, oracle, tbl, alter string) {
	t.Helper()
	conn := serverSession(t, db)
	if _, err := conn.ExecContext(t.Context(), "ALTER TABLE "+table.Qualify(oracle, tbl)+" "+alter+", ALGORITHM=COPY"); err != nil {
		t.Fatalf("the server's own ALTER of %s: %v", tbl, err)
	}
	show := func(in string) string {
		var n, def string
		if err := db.QueryRow("SHOW CREATE TABLE "+table.Qualify(in, tbl)).Scan(&n, &def); err != nil {
			t.Fatal(err)
		}
		return def
	}
	if got, want := show(schema), show(oracle); got != want {
		t.Errorf("%s: definitions differ:\n%s\nthe server's ALTER:\n%s", tbl, got, want)
	}
	got, want := testenv.RowsText(t, db, schema, tbl, "1"), testenv.RowsText(t, db, oracle, tbl, "1")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s: rows differ: %d rows, the server's ALTER %d", tbl, len(got), len(want))
	}
}

// A member that fails before the cut-over ends the set: nothing is swapped, both originals stay
// in place with their rows, and the error names the table that failed.
func TestSetMemberFailureEndsTheSet(t *testing.T) {
	db, schema := setTables(t)
	testenv.Exec(t, db, "INSERT INTO b (id, a_id, w) VALUES (3001, 1, 'w1')") // a duplicate w for the new unique key
	cfgs, flag := setConfigs(t, schema, nil, [2]string{"a", "ADD COLUMN c INT"}, [2]string{"b", "ADD UNIQUE KEY uw (w)"})
	_ = flag
	set, err := NewSet(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	err = set.Run(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), "table b: ") || !strings.Contains(err.Error(), "the migration of a stopped with it, nothing swapped") {
		t.Fatalf("got %v", err)
	}
	have := testenv.Existing(t, db, schema, "a", "b", "_a_gho", "_b_gho", "_a_del", "_b_del")
	if !have["a"] || !have["b"] || have["_a_gho"] || have["_b_gho"] || have["_a_del"] || have["_b_del"] {
		t.Fatalf("tables after the failure: %v", have)
	}
	if testenv.HasColumn(t, db, schema, "a", "c") {
		t.Fatal("a was swapped")
	}
}

// No member of a set goes past its checks before every member passed them: a member failing
// early stops the others before they stream or copy (the ghost one created is dropped), and
// without cutting their checks short: b fails late (a waits at the barrier), or at once (a's
// checks, here a gate at its start, go on uncancelled to the barrier).
func TestSetMembersWaitForEveryCheck(t *testing.T) {
	for _, bFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("b fails first %v", bFirst), func(t *testing.T) {
			db, schema := setTables(t)
			cfgs, _ := setConfigs(t, schema, nil, [2]string{"a", "ADD COLUMN c INT"}, [2]string{"b", "ADD COLUMN d INT"})
			set, err := NewSet(cfgs)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var reached []observe.Step
			var cancelled error
			set.Members()[0].GateStep(func(ctx context.Context, at observe.Step) error {
				if at == observe.StepStartup && bFirst {
					time.Sleep(time.Second) // b fails meanwhile
					cancelled = ctx.Err()
				}
				mu.Lock()
				defer mu.Unlock()
				reached = append(reached, at)
				return nil
			})
			refused := errors.New("refused by the test")
			set.Members()[1].GateStep(func(_ context.Context, at observe.Step) error {
				if at == observe.StepStartup {
					if !bFirst {
						time.Sleep(time.Second) // a's checks pass meanwhile
					}
					return refused
				}
				return nil
			})
			if err := set.Run(context.Background()); !errors.Is(err, refused) || !strings.HasPrefix(err.Error(), "table b: ") {
				t.Fatalf("got %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if slices.Contains(reached, observe.StepBeforeRowCopy) {
				t.Errorf("a went on to its copy (steps %v) while b had not passed its checks", reached)
			}
			if cancelled != nil {
				t.Errorf("a's checks were cancelled when b failed: %v", cancelled)
			}
			if have := testenv.Existing(t, db, schema, "_a_gho", "_a_ghc", "_b_gho"); have["_a_gho"] || have["_a_ghc"] || have["_b_gho"] {
				t.Errorf("helper tables left: %v", have)
			}
		})
	}
}

// What a set cannot do is refused before anything runs.
func TestSetRefusals(t *testing.T) {
	cfgs, _ := setConfigs(t, "s", nil, [2]string{"a", "ADD COLUMN c INT"}, [2]string{"b", "ADD COLUMN c INT"})
	for name, change := range map[string]func(*config.Config){
		"--cut-over=atomic cannot cut 2 tables over at once": func(c *config.Config) { c.CutOver = config.CutOverAtomic },
	} {
		bad := append([]config.Config{}, cfgs...)
		change(&bad[0])
		if _, err := NewSet(bad); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: got %v", name, err)
		}
	}
	set, err := NewSet(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range set.Members() {
		if fmt.Sprint(m.cfg.SetTables) != "[a b]" {
			t.Errorf("%s: SetTables %v, want [a b] (its checkpoints record the set)", m.cfg.Table, m.cfg.SetTables)
		}
	}
	if a, b := set.Members()[0].cfg.ReplicaServerID, set.Members()[1].cfg.ReplicaServerID; a == b {
		t.Errorf("server ids %d and %d: each stream needs its own", a, b)
	}
	same := append([]config.Config{}, cfgs...)
	same[1].ReplicaServerID = same[0].ReplicaServerID // as the command line gives them
	set, err = NewSet(same)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := set.Members()[0].cfg.ReplicaServerID, set.Members()[1].cfg.ReplicaServerID; b != a+1 {
		t.Errorf("one --replica-server-id %d: the second table's stream took %d, want %d", a, b, a+1)
	}
}

// A set's error says "nothing swapped" only while its cut-over had not begun; needs no server.
func TestSetErrorWording(t *testing.T) {
	member := func(name string) *Migrator {
		var cfg config.Config
		cfg.Table = name
		return &Migrator{cfg: cfg}
	}
	members := []*Migrator{member("a"), member("b")}
	errs := []error{errors.New("boom"), context.Canceled}
	before := setError(members, errs, false).Error()
	if want := "table a: boom (the migration of b stopped with it, nothing swapped)"; before != want {
		t.Errorf("before the cut-over: %q, want %q", before, want)
	}
	during := setError(members, errs, true).Error()
	if strings.Contains(during, "nothing swapped") || !strings.Contains(during, "in the set's cut-over") {
		t.Errorf("during the cut-over: %q", during)
	}
	if err := setError(members, []error{nil, nil}, true); err != nil {
		t.Errorf("every member succeeded: %v", err)
	}
}
