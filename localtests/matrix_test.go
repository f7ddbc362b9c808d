package localtests

// The conversion matrix: every pair of column types of matrix_types_test.go, judged by the server.
//
// For each source type, a probe table holding the type's edge values is ALTERed by the server
// (ALGORITHM=COPY, an application's session) into each target type, one target at a time: the
// server accepts the pair or refuses it. Then one migration per source type: a table with one
// column per accepted target, every column holding the edge values, migrated by the binary with
// every MODIFY at once under a load that inserts every edge value again and updates rows to them
// while the copy runs and after it (rows copied and rows applied). The runner judges it by the
// server's own ALTER of the same rows (oracle_test.go); on a difference the column the error names,
// or bisection, finds the pair. The pairs the server refuses are refusal runs of the binary, several
// pairs per run (refuseAll): it must refuse each, leaving the original intact. The matrix runs on a
// strict server in Europe/Berlin and, on MariaDB 10.11, on the sandbox's settings (time zone
// +05:30, MariaDB's default sql_mode) (mxVariants). Sources run two at a time, each in its own
// databases; the variant's globals are set for all of them.
//
// GHOSTLITE_MATRIX_SOURCES (labels, comma-separated), GHOSTLITE_MATRIX_VARIANTS and
// GHOSTLITE_MATRIX_PARALLEL shape a run; GHOSTLITE_MATRIX_DOC=1 rewrites the generated part of
// ../doc/conversions.md from the results.

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// mxRun holds the results of one matrix run.
type mxRun struct {
	cells    map[string]map[string]string // variant -> "src>dst" -> result
	refusals map[string]string            // "src>dst" -> the server's error (default variant), "" for a tool-only refusal
	toolWhy  map[string]string            // "src>dst" -> the tool's error line for a pair the server accepts
	values   int                          // edge values migrated (per variant, summed over pairs)
	pairs    int
	subsets  int        // pairs the server refuses with all values, migrated with the values it accepts
	first    string     // the first variant run: its refusals and toolWhy go to the doc
	mu       sync.Mutex // sources run in parallel (mxParallel)
}

// set records the result of pair key ("src>dst") in variant v.
func (m *mxRun) set(v mxVariant, key, cell string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cells[v.name][key] = cell
}

// count adds a source's pairs, edge values and subset migrations to the totals.
func (m *mxRun) count(pairs, values, subsets int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pairs += pairs
	m.values += values
	m.subsets += subsets
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
	run := &mxRun{cells: map[string]map[string]string{}, refusals: map[string]string{}, toolWhy: map[string]string{}}
	flavor := testenv.Flavor(t)
	for _, v := range mxVariants {
		if !v.runsOn(flavor) {
			t.Logf("variant %s: not on %s (GHOSTLITE_MATRIX_VARIANTS=%s runs it)", v.name, flavor, v.name)
			continue
		}
		run.cells[v.name] = map[string]string{}
		if run.first == "" {
			run.first = v.name
		}
		t.Run(v.name, func(t *testing.T) {
			mxSetGlobals(t, admin, v.globals) // restored once every source of the variant is done
			slots := make(chan struct{}, mxParallel())
			for _, src := range mxTypes {
				if selected("GHOSTLITE_MATRIX_SOURCES", src.label) {
					t.Run(src.label, func(t *testing.T) {
						t.Parallel() // each source has its own databases; the variant's globals are set
						slots <- struct{}{}
						defer func() { <-slots }()
						run.source(t, admin, v, src)
					})
				}
			}
		})
	}
	elapsed := time.Since(start).Round(time.Second)
	t.Logf("conversion matrix on %s: %d type pairs, %d edge values migrated, in %s", flavor, run.pairs, run.values, elapsed)
	for name, cells := range run.cells {
		var toolOnly []string
		for key, c := range cells {
			if c == mxToolOnly {
				toolOnly = append(toolOnly, key)
			}
		}
		slices.Sort(toolOnly)
		t.Logf("%s: refused by go-ghostlite only (T): %s", name, strings.Join(toolOnly, " "))
	}
	if os.Getenv("GHOSTLITE_MATRIX_DOC") != "" {
		if err := run.writeDoc("../doc/conversions.md", elapsed); err != nil {
			t.Fatal(err)
		}
	}
}

// mxParallel is how many sources run at once: GHOSTLITE_MATRIX_PARALLEL, 2 by default (each run
// of the binary waits on the server most of the time; more than two fight for two cores).
func mxParallel() int {
	if n, err := strconv.Atoi(os.Getenv("GHOSTLITE_MATRIX_PARALLEL")); err == nil && n > 0 {
		return n
	}
	return 2
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

// mxSetGlobals sets the variant's server globals until the variant's test ends (which then runs
// alone on the sandbox: testenv.SetGlobal).
func mxSetGlobals(t *testing.T, admin *sql.DB, globals []global) {
	for _, g := range globals {
		testenv.SetGlobal(t, admin, g.Name, g.Value)
	}
}

// mxTarget is one target of a source's migration: the values (indices into the source's values)
// its column holds. A pair the server refuses with all the values is migrated with those it
// accepts (subset), so narrowing pairs are checked too on the values that fit.
type mxTarget struct {
	dst    mxType
	vals   []int
	subset bool
}

// source runs every pair from src: the server's verdicts, the refusal runs of the refused pairs
// (in groups: refuseAll), one migration of every target (with all values, or the subset the
// server accepts). When the migration fails, each target is migrated alone to tell which pair
// differs and which the tool refuses.
func (m *mxRun) source(t *testing.T, admin *sql.DB, v mxVariant, src mxType) {
	values := src.valuesFor(v.strict)
	verdicts := m.probe(t, admin, v, src, values)
	var targets []mxTarget
	var refused []mxType
	for _, dst := range mxTypes {
		key := src.label + ">" + dst.label
		vd := verdicts[dst.label]
		switch {
		case dst.label == src.label:
			m.set(v, key, mxIdentity)
		case vd.refusal == "" && !vd.toolOnly:
			m.set(v, key, mxSame)
			targets = append(targets, mxTarget{dst: dst, vals: vd.accepted})
		default:
			if v.name == m.first {
				m.mu.Lock()
				m.refusals[key] = vd.refusal
				m.mu.Unlock()
			}
			refused = append(refused, dst)
		}
	}
	lines := m.refuseAll(t, admin, v, src, refused, values)
	for _, dst := range refused {
		key := src.label + ">" + dst.label
		vd := verdicts[dst.label]
		line, ok := lines[dst.label]
		switch {
		case ok && vd.refusal == "":
			m.set(v, key, mxToolOnly)
			m.toolOnly(v, key, line)
		case ok:
			m.set(v, key, mxBothRefuse)
			if len(vd.accepted) > 1 { // more than NULL
				targets = append(targets, mxTarget{dst: dst, vals: vd.accepted, subset: true})
				m.count(0, 0, 1)
			}
		default:
			m.set(v, key, mxDiffers)
			t.Errorf("%s -> %s: the server's ALTER refuses (%s), go-ghostlite does not refuse cleanly", src.label, dst.label, vd.refusal)
		}
	}
	m.count(len(mxTypes)-1, len(values)*(len(mxTypes)-1), 0)
	m.migrateAll(t, admin, v, src, targets, values)
}

// refuseAll runs the binary on src's values with the MODIFY of every target of dsts at once, and
// again without the targets its error line names, until none is left: each run must be a clean
// refusal (exit 1, one error line, the original intact, nothing left behind), and a target is
// proven refused when that line names its column (a copy's warning about the column's value, a
// refusal of its type), as it would refuse the pair alone. A run that names none of several
// targets, or does not refuse, has each target run alone. It returns the error line of each target
// the tool refuses. One run per refused pair took most of the matrix's time.
func (m *mxRun) refuseAll(t *testing.T, admin *sql.DB, v mxVariant, src mxType, dsts []mxType, values []string) map[string]string {
	out := map[string]string{}
	left := slices.Clone(dsts)
	for run := 1; len(left) > 0; run++ {
		line, ok := m.refuses(t, admin, v, src, left, values, nil, fmt.Sprintf("refuse_%d", run))
		named := mxNamedTargets(line, left)
		switch {
		case ok && len(left) == 1:
			out[left[0].label] = line
			return out
		case ok && len(named) > 0:
			for _, dst := range named {
				out[dst.label] = line
			}
			left = slices.DeleteFunc(left, func(d mxType) bool { _, done := out[d.label]; return done })
			continue
		}
		if len(left) > 1 {
			for _, dst := range left {
				if line, ok := m.refuses(t, admin, v, src, []mxType{dst}, values, nil, "refuse_"+dst.label); ok {
					out[dst.label] = line
				}
			}
		}
		return out
	}
	return out
}

// matrixColumn finds the matrix columns (c_<label>) an error line names.
var matrixColumn = regexp.MustCompile(`\bc_([a-z0-9]+)\b`)

// mxNamedTargets are the targets of dsts whose column the error line names.
func mxNamedTargets(line string, dsts []mxType) []mxType {
	var out []mxType
	for _, d := range dsts {
		for _, m := range matrixColumn.FindAllStringSubmatch(line, -1) {
			if d.label == m[1] {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// migrateAll migrates src's values into the targets in one run. When the tool fails naming one
// target's column, that pair is judged alone (a clean refusal of values the server accepts is
// `T`, anything else a difference) and the others are migrated again; a failure naming no column
// has the targets bisected.
func (m *mxRun) migrateAll(t *testing.T, admin *sql.DB, v mxVariant, src mxType, targets []mxTarget, values []string) {
	judge := func(tg mxTarget) {
		key := src.label + ">" + tg.dst.label
		m.set(v, key, mxDiffers)
		if line, ok := m.refuses(t, admin, v, src, []mxType{tg.dst}, values, tg.vals, "refuse_"+tg.dst.label); ok {
			m.set(v, key, mxToolOnly)
			m.toolOnly(v, key, line)
		} else {
			t.Errorf("%s -> %s: the migrated column differs from the server's own ALTER", src.label, tg.dst.label)
		}
	}
	for attempt := 1; len(targets) > 0; attempt++ {
		ok, msgs := m.migrates(t, admin, v, src, targets, values, fmt.Sprintf("migrate_%d", attempt))
		if ok {
			return
		}
		bad := -1
		if c := namedColumn.FindStringSubmatch(msgs); c != nil {
			for i, tg := range targets {
				if "c_"+tg.dst.label == c[1] {
					bad = i
				}
			}
		}
		if bad < 0 || len(targets) == 1 {
			break
		}
		judge(targets[bad])
		targets = slices.Delete(targets, bad, bad+1)
	}
	m.bisect(t, targets, judge, func(half []mxTarget, name string) bool {
		ok, _ := m.migrates(t, admin, v, src, half, values, name)
		return ok
	})
}

// bisect finds the targets whose migration fails when a failure named none: each half is
// migrated again, a half that fails is split again, a single target that fails is judged. Fewer
// runs than each target alone when one or two of many fail.
func (m *mxRun) bisect(t *testing.T, targets []mxTarget, judge func(mxTarget), migrates func([]mxTarget, string) bool) {
	if len(targets) == 1 {
		judge(targets[0])
		return
	}
	mid := len(targets) / 2
	for _, half := range [][]mxTarget{targets[:mid], targets[mid:]} {
		name := "migrate_" + half[0].dst.label
		if len(half) > 1 {
			name += "_to_" + half[len(half)-1].dst.label
		}
		if !migrates(half, name) {
			m.bisect(t, half, judge, migrates)
		}
	}
}

// namedColumn finds the matrix column an error names: column 'c_x', `c_x`, MySQL's column
// 'tbl.c_x' and "from column c_x".
var namedColumn = regexp.MustCompile("(?:column '(?:[^'.]*\\.)?|`|from column )(c_[a-z0-9]+)\\b")

// toolOnly records why the tool refuses a pair (or values of it) the server accepts.
func (m *mxRun) toolOnly(v mxVariant, key, line string) {
	if v.name == m.first {
		m.mu.Lock()
		m.toolWhy[key] = strings.TrimPrefix(line, "go-ghostlite: ")
		m.mu.Unlock()
	}
}

// migrates runs the migration of src's values into the targets and says whether it matched the
// server's ALTER. A failure is judged by the caller (which pair caused it), not the subtest's.
func (m *mxRun) migrates(t *testing.T, admin *sql.DB, v mxVariant, src mxType, targets []mxTarget, values []string, name string) (ok bool, msgs string) {
	c := mxMigrationCase(src, targets, values)
	c.Globals = v.globals
	t.Run(name, func(t *testing.T) {
		ok, msgs = soft(t, func(st testing.TB) {
			r := &runner{t: st, c: c, admin: admin, schema: fmt.Sprintf("glx_%s_%s", v.name, src.label), noSeqViews: true}
			r.run()
		})
	})
	return ok, msgs
}

// mxVerdict is the server's verdict on a pair: its error with all the values ("" when it accepts
// them), and the values it accepts.
type mxVerdict struct {
	refusal  string
	toolOnly bool // the server accepts the pair, the tool refuses it by design (table.ZoneShiftOf)
	accepted []int
}

// probe asks the server, for each target, whether it accepts src's values, and which of them it
// accepts. A pair the tool refuses by design though the server accepts it (table.ZoneShiftOf) is
// marked toolOnly.
func (m *mxRun) probe(t *testing.T, admin *sql.DB, v mxVariant, src mxType, values []string) map[string]mxVerdict {
	schema := fmt.Sprintf("glx_%s_%s_probe", v.name, src.label)
	testenv.Exec(t, admin, "DROP DATABASE IF EXISTS "+quote(schema), "CREATE DATABASE "+quote(schema))
	t.Cleanup(func() { testenv.Exec(t, admin, "DROP DATABASE IF EXISTS "+quote(schema)) })
	r := &runner{t: t, admin: admin, schema: schema}
	conn, err := r.appSession().Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows := make([]string, len(values))
	all := make([]int, len(values))
	for i, val := range values {
		rows[i] = fmt.Sprintf("(%d, %s)", i+1, val)
		all[i] = i
	}
	mustExec(t, conn, "CREATE TABLE probe (id INT NOT NULL PRIMARY KEY, c "+src.def+" NULL)",
		"INSERT INTO probe VALUES "+strings.Join(rows, ", "))
	out := map[string]mxVerdict{}
	for _, dst := range mxTypes {
		if dst.label == src.label {
			continue
		}
		// A copy of probe per target, in one statement (the same column type: the rows are copied
		// as they are), left for the DROP DATABASE: DDL is slow on MySQL.
		p := "p_" + dst.label
		mustExec(t, conn, "CREATE TABLE "+p+" (id INT NOT NULL PRIMARY KEY, c "+src.def+" NULL) SELECT id, c FROM probe")
		alter := "ALTER TABLE " + p + " MODIFY c " + dst.def + " NULL, ALGORITHM=COPY"
		_, byDesign := table.ZoneShiftOf(mxColumn(src), mxColumn(dst))
		if _, err := conn.ExecContext(context.Background(), alter); err != nil {
			vd := mxVerdict{refusal: strings.Join(strings.Fields(err.Error()), " ")}
			if byDesign == nil { // the tool refuses every value of such a pair: no subset to migrate
				vd.accepted = acceptedValues(t, conn, p, alter, err)
			}
			out[dst.label] = vd
			continue
		}
		if byDesign != nil {
			out[dst.label] = mxVerdict{toolOnly: true}
			continue
		}
		out[dst.label] = mxVerdict{accepted: all}
	}
	return out
}

var atRow = regexp.MustCompile(` at row (\d+)`)

// acceptedValues finds the values the server accepts in an ALTER of table p it refused (err): the
// row a refusal names ("at row N", in key order) is removed and the ALTER tried again, until the
// server accepts the rest. A refusal that names no row ("Truncated incorrect INTEGER value: 'a'",
// a string into a BIT) has each value left tried alone (valuesAlone). It returns the values'
// indices (id - 1).
func acceptedValues(t *testing.T, conn *sql.Conn, p, alter string, err error) []int {
	ctx := context.Background()
	ids := func() []int {
		rows, err := conn.QueryContext(ctx, "SELECT id FROM "+p+" ORDER BY id")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int
		for rows.Next() {
			var id int
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id-1)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for err != nil {
		left := ids()
		n, _ := strconv.Atoi(m2(atRow.FindStringSubmatch(err.Error())))
		if n < 1 || n > len(left) {
			return valuesAlone(t, conn, p, alter, left)
		}
		mustExec(t, conn, fmt.Sprintf("DELETE FROM %s WHERE id = %d", p, left[n-1]+1))
		_, err = conn.ExecContext(ctx, alter)
	}
	return ids()
}

// valuesAlone returns the values of ids (indices into table p's rows, id - 1) that the server's
// ALTER accepts in a table of that value alone: a copy of p holding one row, altered as p.
func valuesAlone(t *testing.T, conn *sql.Conn, p, alter string, ids []int) []int {
	ctx := context.Background()
	one := p + "_1"
	var out []int
	for _, i := range ids {
		mustExec(t, conn, "DROP TABLE IF EXISTS "+one,
			fmt.Sprintf("CREATE TABLE %s LIKE %s", one, p),
			fmt.Sprintf("INSERT INTO %s SELECT * FROM %s WHERE id = %d", one, p, i+1))
		if _, err := conn.ExecContext(ctx, strings.Replace(alter, "ALTER TABLE "+p+" ", "ALTER TABLE "+one+" ", 1)); err == nil {
			out = append(out, i)
		}
	}
	return out
}

// m2 is a regexp match's first group, "" when there is none.
func m2(m []string) string {
	if len(m) < 2 {
		return ""
	}
	return m[1]
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

// refuses runs the binary on src's values with the MODIFY of each of dsts (column c_<target>, all
// holding the values, or only those of only): it must refuse (exit 1, one error line, original
// intact, nothing left behind). ok says it did, line is its error line. A refusal the caller
// expects from the tool alone is not a failure of the test: it runs in a throwaway testing.T.
func (m *mxRun) refuses(t *testing.T, admin *sql.DB, v mxVariant, src mxType, dsts []mxType, values []string, only []int, name string) (line string, ok bool) {
	defs := make([]string, len(dsts))
	cols := make([]string, len(dsts))
	mods := make([]string, len(dsts))
	for i, d := range dsts {
		cols[i] = "c_" + d.label
		defs[i] = cols[i] + " " + src.def + " NULL"
		mods[i] = "MODIFY " + cols[i] + " " + d.def + " NULL"
	}
	var rows []string
	for i, val := range values {
		if only == nil || slices.Contains(only, i) {
			rows = append(rows, fmt.Sprintf("(%d%s)", i+1, strings.Repeat(", "+val, len(dsts))))
		}
	}
	c := &testCase{
		Name: src.label + "_" + name,
		Create: []string{
			"CREATE TABLE gl_test (id INT NOT NULL PRIMARY KEY, " + strings.Join(defs, ", ") + ", v INT NOT NULL DEFAULT 0) ENGINE=InnoDB",
			"INSERT INTO gl_test (id, " + strings.Join(cols, ", ") + ") VALUES " + strings.Join(rows, ", "),
		},
		Alter:         strings.Join(mods, ", "),
		Globals:       v.globals,
		ExpectFailure: anyRefusal, // any one error line: the pair is refused
		ExpectExit:    1,
	}
	t.Run(name, func(t *testing.T) {
		ok, _ = soft(t, func(st testing.TB) {
			r := &runner{t: st, c: c, admin: admin, schema: fmt.Sprintf("glx_%s_%s_r", v.name, src.label), noSeqViews: true}
			defer func() { line = r.refusedWith }()
			r.run()
		})
	})
	return line, ok
}

// mxMigrationCase is the migration of src's values into every target at once: column c_<target>
// holds the target's values (NULL in the other rows).
func mxMigrationCase(src mxType, targets []mxTarget, values []string) *testCase {
	cols := make([]string, len(targets))
	defs := make([]string, len(targets))
	mods := make([]string, len(targets))
	sets := make([]string, len(targets))
	for i, tg := range targets {
		cols[i] = "c_" + tg.dst.label
		defs[i] = cols[i] + " " + src.def + " NULL"
		mods[i] = "MODIFY " + cols[i] + " " + tg.dst.def + " NULL"
		sets[i] = "gl_test." + cols[i] + " = e." + cols[i]
	}
	list := strings.Join(cols, ", ")
	rows := make([]string, len(values))
	for k, val := range values {
		row := []string{strconv.Itoa(k + 1)}
		for _, tg := range targets {
			if slices.Contains(tg.vals, k) {
				row = append(row, val)
			} else {
				row = append(row, "NULL")
			}
		}
		rows[k] = "(" + strings.Join(row, ", ") + ")"
	}
	reps := 200/len(values) + 1 // about 200 copied rows
	n := reps * len(values)
	nums := make([]string, reps)
	for i := range nums {
		nums[i] = fmt.Sprintf("(%d)", i+1)
	}
	return &testCase{
		Name: "matrix_" + src.label,
		Create: []string{
			"CREATE TABLE gl_test (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, " + strings.Join(defs, ", ") + ", v INT NOT NULL DEFAULT 0) ENGINE=InnoDB",
			"CREATE TABLE gl_edge (k INT NOT NULL PRIMARY KEY, " + strings.Join(defs, ", ") + ") ENGINE=InnoDB",
			"INSERT INTO gl_edge (k, " + list + ") VALUES " + strings.Join(rows, ", "),
			"CREATE TABLE gl_rep (r INT NOT NULL PRIMARY KEY) ENGINE=InnoDB", // no seq_ table: no views on MySQL
			"INSERT INTO gl_rep VALUES " + strings.Join(nums, ", "),
			fmt.Sprintf("INSERT INTO gl_test (%s) SELECT %s FROM gl_edge CROSS JOIN gl_rep ORDER BY r, k", list, list),
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

// softT runs a case whose failure the matrix judges itself (a migration the tool may refuse): it
// records failures instead of failing the test, and logs them on the real test.
type softT struct {
	testing.TB
	failed bool
	msgs   strings.Builder
}

func (s *softT) Failed() bool { return s.failed }

func (s *softT) Errorf(format string, args ...any) {
	s.failed = true
	fmt.Fprintf(&s.msgs, format+"\n", args...)
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

// soft runs f with a softT over t, in its own goroutine (Fatal ends it), and says whether it
// passed, with the failure messages.
func soft(t testing.TB, f func(t testing.TB)) (bool, string) {
	s := &softT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(s)
	}()
	<-done
	return !s.failed, s.msgs.String()
}
