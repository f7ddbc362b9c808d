package localtests

// The conversion matrix: every pair of column types of matrix_types_test.go, judged by the server.
//
// For each source type, a probe table holding the type's edge values is ALTERed by the server
// (ALGORITHM=COPY, an application's session) into each target type, one target at a time: the
// server accepts the pair or refuses it. Then one migration per source type: a table with one
// column per accepted target, every column holding the edge values, migrated by the binary with
// every MODIFY at once under a load that inserts every edge value again and updates rows to them
// while the copy runs and after it (rows copied and rows applied). The runner judges it by the
// server's own ALTER of the same rows (oracle_test.go); on a difference each column is compared
// alone to name the pair. Each pair the server refuses is one refusal run of the binary: it must
// refuse too, leaving the original intact. The matrix runs on the sandbox's settings (time zone
// +05:30, default sql_mode) and on a strict server in Europe/Berlin (mxVariants).
//
// GHOSTLITE_MATRIX_SOURCES (labels, comma-separated) and GHOSTLITE_MATRIX_VARIANTS limit a run;
// GHOSTLITE_MATRIX_DOC=1 rewrites the generated part of ../doc/conversions.md from the results.

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Cell results.
const (
	mxSame       = "="      // copied and applied rows are what the server's ALTER gives
	mxBothRefuse = "R"      // the server refuses (these values), and so does the tool
	mxToolOnly   = "T"      // the tool refuses a pair the server accepts (documented refusal)
	mxDiffers    = "X"      // the tool's rows differ from the server's, or it accepts what the server refuses
	mxIdentity   = "\u00b7" // the same type: not a conversion
)

const mxServerIDBase = 73000

// mxRun holds the results of one matrix run.
type mxRun struct {
	cells    map[string]map[string]string // variant -> "src>dst" -> result
	refusals map[string]string            // "src>dst" -> the server's error (default variant), "" for a tool-only refusal
	toolWhy  map[string]string            // "src>dst" -> the tool's error line for a pair the server accepts
	values   int                          // edge values migrated (per variant, summed over pairs)
	pairs    int
	serverID int
}

func TestConversionMatrix(t *testing.T) {
	if mode() != "full" {
		t.Skip("the matrix runs the binary (full mode)")
	}
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	start := time.Now()
	run := &mxRun{cells: map[string]map[string]string{}, refusals: map[string]string{}, toolWhy: map[string]string{}, serverID: mxServerIDBase}
	for _, v := range mxVariants {
		if !selected("GHOSTLITE_MATRIX_VARIANTS", v.name) {
			continue
		}
		run.cells[v.name] = map[string]string{}
		t.Run(v.name, func(t *testing.T) {
			mxSetGlobals(t, admin, v.globals)
			for _, src := range mxTypes {
				if selected("GHOSTLITE_MATRIX_SOURCES", src.label) {
					t.Run(src.label, func(t *testing.T) { run.source(t, admin, v, src) })
				}
			}
		})
	}
	elapsed := time.Since(start).Round(time.Second)
	t.Logf("conversion matrix: %d type pairs, %d edge values migrated, in %s", run.pairs, run.values, elapsed)
	if os.Getenv("GHOSTLITE_MATRIX_DOC") != "" {
		if err := run.writeDoc("../doc/conversions.md", elapsed); err != nil {
			t.Fatal(err)
		}
	}
}

// selected says name is in the comma-separated list of env, or the list is empty.
func selected(env, name string) bool {
	list := os.Getenv(env)
	if list == "" {
		return true
	}
	for _, n := range strings.Split(list, ",") {
		if strings.TrimSpace(n) == name {
			return true
		}
	}
	return false
}

// mxSetGlobals sets the variant's server globals until the variant's test ends.
func mxSetGlobals(t *testing.T, admin *sql.DB, globals []global) {
	for _, g := range globals {
		var old string
		if err := admin.QueryRow("SELECT @@GLOBAL." + g.Name).Scan(&old); err != nil {
			t.Fatal(err)
		}
		name := g.Name
		t.Cleanup(func() {
			if _, err := admin.Exec("SET GLOBAL "+name+" = ?", old); err != nil {
				t.Errorf("restore %s: %v", name, err)
			}
		})
		if _, err := admin.Exec("SET GLOBAL "+g.Name+" = ?", g.Value); err != nil {
			t.Fatal(err)
		}
	}
}

// source runs every pair from src: the server's verdicts, one migration of the accepted targets,
// one refusal run per refused target. When the migration fails, each accepted target is migrated
// alone to tell which pair differs and which the tool refuses.
func (m *mxRun) source(t *testing.T, admin *sql.DB, v mxVariant, src mxType) {
	values := src.valuesFor(v.strict)
	verdicts := m.probe(t, admin, v, src, values)
	cells := m.cells[v.name]
	var accepted []mxType
	for _, dst := range mxTypes {
		key := src.label + ">" + dst.label
		refusal, refused := verdicts[dst.label]
		switch {
		case dst.label == src.label:
			cells[key] = mxIdentity
		case !refused:
			accepted = append(accepted, dst)
		default:
			if v.name == mxVariants[0].name {
				m.refusals[key] = refusal
			}
			line, ok := m.refuses(t, admin, v, src, dst, values)
			switch {
			case ok && refusal == "":
				cells[key] = mxToolOnly
				m.toolOnly(v, key, line)
			case ok:
				cells[key] = mxBothRefuse
			default:
				cells[key] = mxDiffers
				t.Errorf("%s -> %s: the server's ALTER refuses (%s), go-ghostlite does not refuse cleanly", src.label, dst.label, refusal)
			}
		}
	}
	m.pairs += len(mxTypes) - 1
	m.values += len(values) * (len(mxTypes) - 1)
	if len(accepted) == 0 || m.migrates(t, admin, v, src, accepted, values, "migrate") {
		for _, dst := range accepted {
			cells[src.label+">"+dst.label] = mxSame
		}
		return
	}
	for _, dst := range accepted {
		key := src.label + ">" + dst.label
		switch {
		case m.migrates(t, admin, v, src, []mxType{dst}, values, "migrate_"+dst.label):
			cells[key] = mxSame
		default:
			cells[key] = mxDiffers
			if line, ok := m.refuses(t, admin, v, src, dst, values); ok {
				cells[key] = mxToolOnly
				m.toolOnly(v, key, line)
			} else {
				t.Errorf("%s -> %s: the migrated column differs from the server's own ALTER", src.label, dst.label)
			}
		}
	}
}

// toolOnly records why the tool refuses a pair the server accepts.
func (m *mxRun) toolOnly(v mxVariant, key, line string) {
	if v.name == mxVariants[0].name {
		m.refusals[key] = ""
		m.toolWhy[key] = strings.TrimPrefix(line, "go-ghostlite: ")
	}
}

// migrates runs the migration of src's values into dsts and says whether it matched the server's
// ALTER. A failure is the subtest's; the caller tells which pairs caused it.
func (m *mxRun) migrates(t *testing.T, admin *sql.DB, v mxVariant, src mxType, dsts []mxType, values []string, name string) bool {
	c := mxMigrationCase(src, dsts, values)
	m.serverID++
	id := m.serverID
	var ok bool
	t.Run(name, func(t *testing.T) {
		ok = soft(t, func(st testing.TB) {
			r := &runner{t: st, c: c, admin: admin, schema: fmt.Sprintf("glx_%s_%s", v.name, src.label), serverID: id}
			r.run()
		})
	})
	return ok
}

// probe asks the server which targets it refuses for src's values: target label -> its error.
// Pairs the tool refuses by design though the server accepts them (table.ZoneShiftOf) are listed
// with an empty error.
func (m *mxRun) probe(t *testing.T, admin *sql.DB, v mxVariant, src mxType, values []string) map[string]string {
	schema := fmt.Sprintf("glx_%s_%s_probe", v.name, src.label)
	testenv.Exec(t, admin, "DROP DATABASE IF EXISTS "+quote(schema), "CREATE DATABASE "+quote(schema))
	t.Cleanup(func() { testenv.Exec(t, admin, "DROP DATABASE IF EXISTS "+quote(schema)) })
	r := &runner{t: t, admin: admin, schema: schema}
	app := r.appSession()
	ctx := context.Background()
	conn, err := app.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows := make([]string, len(values))
	for i, val := range values {
		rows[i] = fmt.Sprintf("(%d, %s)", i+1, val)
	}
	mustExec(t, conn, "CREATE TABLE probe (id INT NOT NULL PRIMARY KEY, c "+src.def+" NULL)",
		"INSERT INTO probe VALUES "+strings.Join(rows, ", "))
	out := map[string]string{}
	fresh := false
	for _, dst := range mxTypes {
		if dst.label == src.label {
			continue
		}
		if !fresh {
			mustExec(t, conn, "DROP TABLE IF EXISTS p", "CREATE TABLE p LIKE probe", "INSERT INTO p SELECT * FROM probe")
			fresh = true
		}
		if _, err := conn.ExecContext(ctx, "ALTER TABLE p MODIFY c "+dst.def+" NULL, ALGORITHM=COPY"); err != nil {
			out[dst.label] = strings.Join(strings.Fields(err.Error()), " ")
			continue // a refused ALTER leaves p as it was
		}
		fresh = false
		if _, err := table.ZoneShiftOf(mxColumn(src), mxColumn(dst)); err != nil {
			out[dst.label] = ""
		}
	}
	return out
}

// mxColumn is the table model of a matrix type, as far as table.ZoneShiftOf reads it.
func mxColumn(t mxType) *table.Column {
	dt := strings.ToLower(strings.Fields(t.def)[0])
	if i := strings.IndexByte(dt, '('); i >= 0 {
		dt = dt[:i]
	}
	return &table.Column{Name: "c_" + t.label, DataType: dt}
}

func mustExec(t *testing.T, conn *sql.Conn, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// refuses runs the binary on src's values with the single MODIFY to dst: it must refuse (exit 1,
// one error line, original intact, nothing left behind). ok says it did, line is its error line.
// A refusal the caller expects from the tool alone is not a failure of the test: it runs in a
// throwaway testing.T when wanted is false.
func (m *mxRun) refuses(t *testing.T, admin *sql.DB, v mxVariant, src, dst mxType, values []string) (line string, ok bool) {
	rows := make([]string, len(values))
	for i, val := range values {
		rows[i] = fmt.Sprintf("(%d, %s)", i+1, val)
	}
	c := &testCase{
		Name: src.label + "_" + dst.label,
		Create: []string{
			"CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, c " + src.def + " NULL, v INT NOT NULL DEFAULT 0) ENGINE=InnoDB",
			"INSERT INTO gl_test (id, c) VALUES " + strings.Join(rows, ", "),
		},
		Alter:         "MODIFY c " + dst.def + " NULL",
		ExpectFailure: "go-ghostlite: ", // any one error line: the pair is refused
		ExpectExit:    1,
	}
	m.serverID++
	id := m.serverID
	t.Run("refuse_"+dst.label, func(t *testing.T) {
		ok = soft(t, func(st testing.TB) {
			r := &runner{t: st, c: c, admin: admin, schema: fmt.Sprintf("glx_%s_%s_r", v.name, src.label), serverID: id}
			defer func() { line = r.refusedWith }()
			r.run()
		})
	})
	return line, ok
}

// mxMigrationCase is the migration of src's values into every target of dst at once.
func mxMigrationCase(src mxType, dsts []mxType, values []string) *testCase {
	cols := make([]string, len(dsts))
	defs := make([]string, len(dsts))
	mods := make([]string, len(dsts))
	sets := make([]string, len(dsts))
	for i, d := range dsts {
		cols[i] = "c_" + d.label
		defs[i] = cols[i] + " " + src.def + " NULL"
		mods[i] = "MODIFY " + cols[i] + " " + d.def + " NULL"
		sets[i] = "gl_test." + cols[i] + " = e." + cols[i]
	}
	list := strings.Join(cols, ", ")
	rows := make([]string, len(values))
	for i, val := range values {
		rows[i] = fmt.Sprintf("(%d%s)", i+1, strings.Repeat(", "+val, len(dsts)))
	}
	reps := 200/len(values) + 1 // about 200 copied rows
	n := reps * len(values)
	return &testCase{
		Name: "matrix_" + src.label,
		Create: []string{
			"CREATE TABLE gl_test (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, " + strings.Join(defs, ", ") + ", v INT NOT NULL DEFAULT 0) ENGINE=InnoDB",
			"CREATE TABLE gl_edge (k INT NOT NULL PRIMARY KEY, " + strings.Join(defs, ", ") + ") ENGINE=InnoDB",
			"INSERT INTO gl_edge (k, " + list + ") VALUES " + strings.Join(rows, ", "),
			fmt.Sprintf("INSERT INTO gl_test (%s) SELECT %s FROM gl_edge CROSS JOIN seq_1_to_%d ORDER BY seq, k", list, list, reps),
		},
		Load: []string{
			// Every edge value again, through the applier.
			fmt.Sprintf("INSERT INTO gl_test (%s) SELECT %s FROM gl_edge", list, list),
			// A row updated to another edge value (its after image carries it).
			fmt.Sprintf("UPDATE gl_test JOIN (SELECT FLOOR(1 + RAND() * %d) AS r1, FLOOR(1 + RAND() * %d) AS r2) x ON gl_test.id = x.r1 JOIN gl_edge e ON e.k = x.r2 SET %s, gl_test.v = gl_test.v + 1",
				n, len(values), strings.Join(sets, ", ")),
			fmt.Sprintf("DELETE gl_test FROM gl_test JOIN (SELECT FLOOR(1 + RAND() * %d) AS r1) x ON gl_test.id = x.r1", n),
		},
		Alter:      strings.Join(mods, ", "),
		ExpectExit: 1,
	}
}

// mxDiffering compares each target column of a failed migration with the server's (expected,
// left in the schema by the failed case) and returns the targets that differ (all of them when
// the comparison cannot be made: the migration itself failed).
func mxDiffering(t *testing.T, admin *sql.DB, schema string, dsts []mxType) []mxType {
	if !testenv.Existing(t, admin, schema, "expected")["expected"] || !testenv.Existing(t, admin, schema, "gl_test")["gl_test"] {
		return dsts
	}
	var out []mxType
	for _, d := range dsts {
		c := quote("c_" + d.label)
		q := fmt.Sprintf(`SELECT COUNT(*) FROM %[1]s.expected e LEFT JOIN %[1]s.gl_test g ON g.id = e.id
			WHERE g.id IS NULL OR NOT (g.%[2]s <=> e.%[2]s) OR NOT (CAST(g.%[2]s AS BINARY) <=> CAST(e.%[2]s AS BINARY))`, quote(schema), c)
		var bad int
		if err := admin.QueryRow(q).Scan(&bad); err != nil {
			t.Logf("%s: %v", q, err)
			out = append(out, d)
			continue
		}
		if bad > 0 {
			out = append(out, d)
		}
	}
	return out
}

// softT runs a case whose failure the matrix judges itself (a migration the tool may refuse): it
// records failures instead of failing the test, and logs them on the real test.
type softT struct {
	testing.TB
	failed bool
}

func (s *softT) Failed() bool { return s.failed }

func (s *softT) Errorf(format string, args ...any) {
	s.failed = true
	s.TB.Logf("(judged by the matrix) "+format, args...)
}

func (s *softT) Error(args ...any) { s.Errorf("%s", fmt.Sprint(args...)) }

func (s *softT) Fatalf(format string, args ...any) {
	s.Errorf(format, args...)
	runtime.Goexit()
}

func (s *softT) Fatal(args ...any) { s.Fatalf("%s", fmt.Sprint(args...)) }

func (s *softT) FailNow() {
	s.failed = true
	runtime.Goexit()
}

func (s *softT) Helper() {}

// soft runs f with a softT over t, in its own goroutine (Fatal ends it), and says whether it passed.
func soft(t testing.TB, f func(t testing.TB)) bool {
	s := &softT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(s)
	}()
	<-done
	return !s.failed
}
