package localtests

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// anyRefusal as a generated case's ExpectFailure accepts any one fatal line: the case only asks
// that the tool refuses (the conversion matrix's pairs the server refuses).
const anyRefusal = "\x00any refusal"

// testCase is one folder under cases/: see README.md for the layout.
type testCase struct {
	Name          string
	Dir           string
	Create        []string // create.sql, split into statements
	Load          []string // load.sql, split into statements (nil: no load)
	Alter         string   // alter, one line ("" when the case has a statement file)
	Statement     []string // statement: one statement per line, as written (nil when the case has an alter file)
	Flags         []string // flags, one per line
	Globals       []global // globals: server globals set for the case
	ExpectFailure string   // expect_failure: substring of the error line ("" : must succeed; anyRefusal: any line)
	ExpectExit    int      // expect_exit: exit code of a refusal (default 1)
	Verify        []string // verify.sql: queries that must each return the single value 1
	OnlyOn        string   // only_on: "mariadb" or "mysql", the flavors the case applies to ("": every one)
}

// appliesTo says whether the case runs on flavor f (only_on).
func (c *testCase) appliesTo(f dbconn.Flavor) bool {
	return c.OnlyOn == "" || (c.OnlyOn == "mariadb") == f.MariaDB
}

// global is one line of a case's globals file: name=value.
type global struct{ Name, Value string }

// settableGlobals are the server globals a case may set.
var settableGlobals = map[string]bool{"time_zone": true, "sql_mode": true}

// Changes are the tables the case migrates in schema, each with its ALTER's clauses: Table() and
// Alter, or each line of the statement file as go-ghostlite reads it (config.ParseStatement, which
// refuses what the binary refuses).
func (c *testCase) Changes(schema string) ([]config.TableAlter, error) {
	if c.Statement == nil {
		return []config.TableAlter{{Table: c.Table(), Alter: c.Alter}}, nil
	}
	return config.ParseStatement(c.StatementFlag(), schema)
}

// StatementFlag is the value of --statement: the statement file's lines, each ended by ';'.
func (c *testCase) StatementFlag() string {
	stmts := make([]string, len(c.Statement))
	for i, s := range c.Statement {
		stmts[i] = strings.TrimSuffix(s, ";") + ";"
	}
	return strings.Join(stmts, " ")
}

// Table is the table the binary is asked to migrate: gl_test unless the flags override --table.
func (c *testCase) Table() string {
	tbl := "gl_test"
	for _, f := range c.Flags {
		if v, ok := strings.CutPrefix(f, "--table="); ok {
			tbl = v
		}
	}
	return tbl
}

// listCases returns the case folders under dir, sorted by name.
func listCases(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// readFile reads a case's file: ok is false when it does not exist.
func readFile(dir, name string) (s string, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// loadCase reads the case folder dir.
func loadCase(dir string) (*testCase, error) {
	c := &testCase{Name: filepath.Base(dir), Dir: dir, ExpectExit: 1}
	files := map[string]string{}
	for _, name := range []string{"create.sql", "load.sql", "alter", "statement", "flags", "globals", "expect_failure", "expect_exit", "verify.sql", "compare_columns", "only_on"} {
		s, ok, err := readFile(dir, name)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		if ok {
			files[name] = s
		}
	}
	if err := c.parse(files); err != nil {
		return nil, fmt.Errorf("case %s: %w", c.Name, err)
	}
	return c, nil
}

// parse fills the case from its files (name -> content; a missing file has no entry).
func (c *testCase) parse(files map[string]string) error {
	if _, ok := files["create.sql"]; !ok {
		return errors.New("create.sql is required")
	}
	_, hasAlter := files["alter"]
	if _, hasStatement := files["statement"]; hasAlter == hasStatement {
		return errors.New("want an alter file or a statement file (one of them)")
	}
	if _, ok := files["compare_columns"]; ok {
		return errors.New("compare_columns is gone: the server's own ALTER is the reference, renames included")
	}
	if c.Create = splitSQL(files["create.sql"]); len(c.Create) == 0 {
		return errors.New("create.sql has no statement")
	}
	if s, ok := files["load.sql"]; ok {
		if c.Load = splitSQL(s); len(c.Load) == 0 {
			return errors.New("load.sql has no statement")
		}
	}
	if hasAlter {
		lines := nonEmptyLines(files["alter"])
		if len(lines) != 1 {
			return fmt.Errorf("alter must be one line (got %d)", len(lines))
		}
		c.Alter = lines[0]
	} else if c.Statement = nonEmptyLines(files["statement"]); len(c.Statement) == 0 {
		return errors.New("statement has no statement")
	}
	c.Flags = nonEmptyLines(files["flags"])
	for _, l := range nonEmptyLines(files["globals"]) {
		name, value, ok := strings.Cut(l, "=")
		if name = strings.TrimSpace(name); !ok || !settableGlobals[name] {
			return fmt.Errorf("globals: want time_zone=... or sql_mode=..., got %q", l)
		}
		c.Globals = append(c.Globals, global{name, strings.TrimSpace(value)})
	}
	if s, ok := files["expect_failure"]; ok {
		if c.ExpectFailure = strings.TrimSpace(s); c.ExpectFailure == "" {
			return errors.New("expect_failure is empty")
		}
	}
	if s, ok := files["expect_exit"]; ok {
		if _, err := fmt.Sscanf(strings.TrimSpace(s), "%d", &c.ExpectExit); err != nil {
			return fmt.Errorf("expect_exit: %w", err)
		}
		if c.ExpectFailure == "" {
			return errors.New("expect_exit without expect_failure")
		}
	}
	if s, ok := files["only_on"]; ok {
		if c.OnlyOn = strings.TrimSpace(s); c.OnlyOn != "mariadb" && c.OnlyOn != "mysql" {
			return fmt.Errorf("only_on: want mariadb or mysql, got %q", c.OnlyOn)
		}
	}
	c.Verify = splitSQL(files["verify.sql"])
	if c.ExpectFailure != "" && (c.Load != nil || c.Verify != nil) {
		return errors.New("a refusal case has no load.sql or verify.sql")
	}
	if c.ExpectFailure == "" && c.Statement != nil {
		if _, err := c.Changes("glt_" + c.Name); err != nil {
			return fmt.Errorf("statement: %w", err)
		}
	}
	return nil
}

// nonEmptyLines returns the trimmed lines of s that are neither empty nor '#' comments.
func nonEmptyLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// splitSQL splits a script into statements: a statement ends with ';' at the end of a line.
// Lines that start with "--" are comments. No DELIMITER support: a ';' inside a line stays in the
// statement, so a statement never needs to be split anywhere else.
func splitSQL(s string) []string {
	var out []string
	var cur []string
	flush := func() {
		stmt := strings.TrimSpace(strings.Join(cur, "\n"))
		if stmt != "" {
			out = append(out, stmt)
		}
		cur = cur[:0]
	}
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), " \t\r")
		if strings.HasPrefix(strings.TrimSpace(l), "--") {
			continue
		}
		if strings.HasSuffix(l, ";") {
			cur = append(cur, strings.TrimSuffix(l, ";"))
			flush()
			continue
		}
		cur = append(cur, l)
	}
	flush()
	return out
}

func TestSplitSQL(t *testing.T) {
	got := splitSQL("-- comment\nCREATE TABLE t (\n  a INT -- x\n);\n\nINSERT INTO t VALUES (';');  \nSELECT 1; SELECT 2;\nSELECT 3")
	want := []string{"CREATE TABLE t (\n  a INT -- x\n)", "INSERT INTO t VALUES (';')", "SELECT 1; SELECT 2", "SELECT 3"}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Fatalf("splitSQL:\n got %q\nwant %q", got, want)
	}
}

// TestCasesParse reads every case folder, pending ones included, without a server: a malformed
// case fails here first.
func TestCasesParse(t *testing.T) {
	names, err := listCases("cases")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 80 {
		t.Errorf("only %d cases, want at least 80", len(names))
	}
	pending, err := listCases("pending")
	if err != nil && !os.IsNotExist(err) { // git keeps no empty folder: no pending/ is no pending case
		t.Fatal(err)
	}
	inCases := map[string]bool{}
	for _, n := range names {
		inCases[n] = true
	}
	for _, n := range pending {
		if inCases[n] {
			t.Errorf("case %s is in both cases/ and pending/", n)
		}
	}
	for _, dir := range []string{"cases", "pending"} {
		list := names
		if dir == "pending" {
			list = pending
		}
		for _, n := range list {
			t.Run(dir+"/"+n, func(t *testing.T) { checkCase(t, dir, n) })
		}
	}
}

// checkCase checks one case folder's files and naming.
func checkCase(t *testing.T, dir, n string) {
	c, err := loadCase(filepath.Join(dir, n))
	if err != nil {
		t.Error(err)
		return
	}
	if c.ExpectFailure == "" && c.Load == nil && !noLoadOK[n] {
		t.Errorf("case %s: a successful case needs a load.sql", n)
	}
	if !strings.HasPrefix(n, "refuse_") && c.ExpectFailure != "" {
		t.Errorf("case %s: refusal cases are named refuse_*", n)
	}
	if strings.HasPrefix(n, "refuse_") && c.ExpectFailure == "" {
		t.Errorf("case %s: a refuse_* case needs expect_failure", n)
	}
	s, ok, err := readFile(filepath.Join(dir, n), "pending")
	switch {
	case err != nil:
		t.Error(err)
	case dir == "pending" && (!ok || strings.TrimSpace(s) == ""):
		t.Errorf("pending case %s: a pending file must say which defect of the tool it waits for", n)
	case dir != "pending" && ok:
		t.Errorf("case %s: a case with a pending file belongs in pending/", n)
	}
}

// noLoadOK lists the successful cases that run without a write load on purpose.
var noLoadOK = map[string]bool{}
