package localtests

// The oracle: what the server's own ALTER makes of the original as of the cut-over.
//
// The expected table is an exact copy of _gl_test_del (same definition, same rows, same
// AUTO_INCREMENT counter), then ALTERed by the server with ALGORITHM=COPY in a session that sets
// nothing, so it runs with the server's global time_zone and sql_mode, as an application's would.
// The migrated table must have the same SHOW CREATE TABLE (only the name may differ) and the same
// rows. A case's globals file sets the server's globals for the case (restored afterwards).
//
// A case with a statement file migrates several tables: each table's original _<t>_del is copied
// exactly to expected_<t>, the copies are moved to a database of their own under the names the
// statement gives them, and the statement file runs there, each line as written (ALGORITHM=COPY
// added), before they come back. Each migrated table is then judged against its expected_<t>.

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// setGlobals applies the case's globals file (SET GLOBAL name = value) and restores the previous
// values when the case ends; the case then runs alone on the sandbox (testenv.SetGlobal).
// Connections opened before keep their session values: the case's pool and the binary are opened
// after this.
func (r *runner) setGlobals() {
	for _, g := range r.c.Globals {
		testenv.SetGlobal(r.t, r.admin, g.Name, g.Value)
		r.t.Logf("server global %s = %q for this case", g.Name, g.Value)
	}
}

// mariaDBSQLMode is MariaDB's default sql_mode, the one the cases are written for.
const mariaDBSQLMode = "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

// baseGlobals are the globals every case runs with unless it sets its own: on MySQL, whose
// default sql_mode adds NO_ZERO_DATE, NO_ZERO_IN_DATE and ONLY_FULL_GROUP_BY, MariaDB's default
// sql_mode, so that a case that sets none means the same on every flavor (the strict cases name
// their sql_mode). They are set once for every case (setGlobals restores them after a case).
func baseGlobals(t testing.TB) []global {
	if testenv.Flavor(t).MariaDB {
		return nil
	}
	return []global{{"sql_mode", mariaDBSQLMode}}
}

// appSession opens a pool on the case's database that sets nothing but a utf8mb4 client character
// set: its sessions run with the server's global time_zone and sql_mode, as an application's do.
func (r *runner) appSession() *sql.DB {
	cfg := testenv.PrimaryConfig()
	mc := mysql.NewConfig()
	mc.User, mc.Passwd, mc.Net, mc.Addr, mc.DBName = cfg.User, cfg.Password, "tcp", cfg.Addr(), r.schema
	mc.Params = map[string]string{"charset": "utf8mb4"}
	db, err := sql.Open("mysql", mc.FormatDSN())
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { db.Close() })
	return db
}

// copyExact makes dst an exact copy of src in the case's schema: same definition, same rows (no
// conversion: identical columns, a lax session so zero dates pass), same AUTO_INCREMENT counter.
func (r *runner) copyExact(src, dst string) {
	var names []string
	for _, c := range r.columns(src) {
		if !c.generated {
			names = append(names, quote(c.name))
		}
	}
	list := strings.Join(names, ", ")
	stmts := []string{
		"SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO'",
		"DROP TABLE IF EXISTS " + quote(dst),
		fmt.Sprintf("CREATE TABLE %s LIKE %s", quote(dst), quote(src)),
		fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s", quote(dst), list, list, quote(src)),
	}
	if n := r.autoIncrement(src); n != "" {
		stmts = append(stmts, fmt.Sprintf("ALTER TABLE %s AUTO_INCREMENT = %s", quote(dst), n))
	}
	r.exec(stmts...)
	if a, b := r.showCreate(src), r.showCreate(dst); a != b {
		r.t.Fatalf("the copy of %s is not exact:\n%s\n%s", src, a, b)
	}
}

var autoIncrementOption = regexp.MustCompile(` AUTO_INCREMENT=(\d+)`)

// autoIncrement is tbl's AUTO_INCREMENT counter as SHOW CREATE TABLE shows it ("" when none).
func (r *runner) autoIncrement(tbl string) string {
	if m := autoIncrementOption.FindStringSubmatch(r.showCreate(tbl)); m != nil {
		return m[1]
	}
	return ""
}

// showCreate is tbl's SHOW CREATE TABLE with the table name replaced by "T", so two tables compare.
func (r *runner) showCreate(tbl string) string {
	var name, ddl string
	if err := r.admin.QueryRow("SHOW CREATE TABLE "+quote(r.schema)+"."+quote(tbl)).Scan(&name, &ddl); err != nil {
		r.t.Fatalf("SHOW CREATE TABLE %s: %v", tbl, err)
	}
	prefix := "CREATE TABLE " + quote(tbl) + " "
	if !strings.HasPrefix(ddl, prefix) {
		r.t.Fatalf("SHOW CREATE TABLE %s: unexpected text %q", tbl, ddl)
	}
	return "CREATE TABLE `T` " + strings.TrimPrefix(ddl, prefix)
}

// partitionOp is a partition management clause: the server's grammar takes it alone, without
// ALGORITHM= (it copies the rows of the partitions it changes anyway).
var partitionOp = regexp.MustCompile(`(?i)^\s*(ADD|REORGANIZE|COALESCE)\s+PARTITION\b`)

// serverAlter runs the case's change with ALGORITHM=COPY in an application's session, in schema:
// its ALTER on tbl, or each line of its statement file, as written, on the tables it names.
func (r *runner) serverAlter(schema, tbl string) error {
	ctx := context.Background()
	conn, err := r.appSession().Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "USE "+quote(schema)); err != nil {
		return err
	}
	var stmts []string
	switch {
	case r.c.Statement != nil:
		for _, s := range r.c.Statement {
			s = strings.TrimSuffix(s, ";")
			if strings.HasPrefix(strings.ToUpper(s), "ALTER") {
				stmts = append(stmts, s+", ALGORITHM=COPY")
			} else {
				stmts = append(stmts, s+" ALGORITHM=COPY") // CREATE INDEX, DROP INDEX
			}
		}
	case partitionOp.MatchString(r.c.Alter):
		stmts = []string{fmt.Sprintf("ALTER TABLE %s %s", quote(tbl), r.c.Alter)}
	default:
		stmts = []string{fmt.Sprintf("ALTER TABLE %s %s, ALGORITHM=COPY", quote(tbl), r.c.Alter)}
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// expectedName is the table the server's own ALTER makes of tbl's original: expected, or
// expected_<tbl> in a case with a statement file.
func (r *runner) expectedName(tbl string) string {
	if r.c.Statement == nil {
		return "expected"
	}
	return "expected_" + tbl
}

// buildExpected makes the expected table of each of tables (expectedName): its original
// _<table>_del ALTERed by the server itself.
func (r *runner) buildExpected(tables []string) {
	for _, tbl := range tables {
		r.copyExact("_"+tbl+"_del", r.expectedName(tbl))
	}
	if r.c.Statement == nil {
		if err := r.serverAlter(r.schema, r.expectedName(tables[0])); err != nil {
			r.t.Fatalf("the server's own ALTER refuses the original as of the cut-over, but go-ghostlite migrated it: %v", err)
		}
		return
	}
	// The statement names the tables: run it on the copies under those names, in a database of their own.
	oracle := r.schema + "_oracle"
	away, back := make([]string, len(tables)), make([]string, len(tables))
	for i, tbl := range tables {
		away[i] = fmt.Sprintf("%s.%s TO %s.%s", quote(r.schema), quote(r.expectedName(tbl)), quote(oracle), quote(tbl))
		back[i] = fmt.Sprintf("%s.%s TO %s.%s", quote(oracle), quote(tbl), quote(r.schema), quote(r.expectedName(tbl)))
	}
	testenv.Exec(r.t, r.admin, "DROP DATABASE IF EXISTS "+quote(oracle), "CREATE DATABASE "+quote(oracle),
		"RENAME TABLE "+strings.Join(away, ", "))
	if err := r.serverAlter(oracle, ""); err != nil {
		r.t.Fatalf("the server's own statement refuses the originals as of the cut-over, but go-ghostlite migrated them: %v", err)
	}
	testenv.Exec(r.t, r.admin, "RENAME TABLE "+strings.Join(back, ", "), "DROP DATABASE "+quote(oracle))
}

// compareDefinitions checks that tbl's SHOW CREATE TABLE is its expected table's (AUTO_INCREMENT included).
func (r *runner) compareDefinitions(tbl string) {
	got, want := r.showCreate(tbl), r.showCreate(r.expectedName(tbl))
	if got != want {
		r.t.Errorf("SHOW CREATE TABLE %s differs from the server's own ALTER:\n--- server's ALTER:\n%s\n--- go-ghostlite:\n%s\n--- first difference: %s",
			tbl, want, got, firstDiff(want, got))
	}
}

// firstDiff describes the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, strings.TrimSpace(x), strings.TrimSpace(y))
		}
	}
	return "none"
}
