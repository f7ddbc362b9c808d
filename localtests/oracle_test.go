package localtests

// The oracle: what the server's own ALTER makes of the original as of the cut-over.
//
// The expected table is an exact copy of _gl_test_del (same definition, same rows, same
// AUTO_INCREMENT counter), then ALTERed by the server with ALGORITHM=COPY in a session that sets
// nothing, so it runs with the server's global time_zone and sql_mode, as an application's would.
// The migrated table must have the same SHOW CREATE TABLE (only the name may differ) and the same
// rows. A case's globals file sets the server's globals for the case (restored afterwards).

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

// serverAlter runs the case's ALTER on tbl with ALGORITHM=COPY in an application's session.
func (r *runner) serverAlter(tbl string) error {
	db := r.appSession()
	q := fmt.Sprintf("ALTER TABLE %s %s, ALGORITHM=COPY", quote(tbl), r.c.Alter)
	if partitionOp.MatchString(r.c.Alter) {
		q = fmt.Sprintf("ALTER TABLE %s %s", quote(tbl), r.c.Alter)
	}
	if _, err := db.ExecContext(context.Background(), q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// buildExpected makes the table expected: _gl_test_del ALTERed by the server itself.
func (r *runner) buildExpected() {
	r.copyExact("_gl_test_del", "expected")
	if err := r.serverAlter("expected"); err != nil {
		r.t.Fatalf("the server's own ALTER refuses the original as of the cut-over, but go-ghostlite migrated it: %v", err)
	}
}

// compareDefinitions checks that gl_test's SHOW CREATE TABLE is expected's (AUTO_INCREMENT included).
func (r *runner) compareDefinitions() {
	got, want := r.showCreate("gl_test"), r.showCreate("expected")
	if got != want {
		r.t.Errorf("SHOW CREATE TABLE gl_test differs from the server's own ALTER:\n--- server's ALTER:\n%s\n--- go-ghostlite:\n%s\n--- first difference: %s",
			want, got, firstDiff(want, got))
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
