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
)

// testCase is one folder under cases/: see README.md for the layout.
type testCase struct {
	Name           string
	Dir            string
	Create         []string          // create.sql, split into statements
	Load           []string          // load.sql, split into statements (nil: no load)
	Alter          string            // alter, one line
	Flags          []string          // flags, one per line
	ExpectFailure  string            // expect_failure: substring of the error line ("" : must succeed)
	ExpectExit     int               // expect_exit: exit code of a refusal (default 1)
	CompareColumns map[string]string // compare_columns: original name -> new name
	Verify         []string          // verify.sql: queries that must each return the single value 1
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

// loadCase reads the case folder dir.
func loadCase(dir string) (*testCase, error) {
	c := &testCase{Name: filepath.Base(dir), Dir: dir, ExpectExit: 1}
	read := func(name string, required bool) (string, bool, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			if required {
				return "", false, fmt.Errorf("case %s: %s is required", c.Name, name)
			}
			return "", false, nil
		}
		if err != nil {
			return "", false, err
		}
		return string(b), true, nil
	}

	s, _, err := read("create.sql", true)
	if err != nil {
		return nil, err
	}
	if c.Create = splitSQL(s); len(c.Create) == 0 {
		return nil, fmt.Errorf("case %s: create.sql has no statement", c.Name)
	}
	if s, ok, err := read("load.sql", false); err != nil {
		return nil, err
	} else if ok {
		if c.Load = splitSQL(s); len(c.Load) == 0 {
			return nil, fmt.Errorf("case %s: load.sql has no statement", c.Name)
		}
	}
	if s, _, err = read("alter", true); err != nil {
		return nil, err
	}
	lines := nonEmptyLines(s)
	if len(lines) != 1 {
		return nil, fmt.Errorf("case %s: alter must be one line (got %d)", c.Name, len(lines))
	}
	c.Alter = lines[0]
	if s, _, err = read("flags", false); err != nil {
		return nil, err
	}
	c.Flags = nonEmptyLines(s)
	if s, ok, err := read("expect_failure", false); err != nil {
		return nil, err
	} else if ok {
		if c.ExpectFailure = strings.TrimSpace(s); c.ExpectFailure == "" {
			return nil, fmt.Errorf("case %s: expect_failure is empty", c.Name)
		}
	}
	if s, ok, err := read("expect_exit", false); err != nil {
		return nil, err
	} else if ok {
		if _, err := fmt.Sscanf(strings.TrimSpace(s), "%d", &c.ExpectExit); err != nil {
			return nil, fmt.Errorf("case %s: expect_exit: %v", c.Name, err)
		}
		if c.ExpectFailure == "" {
			return nil, fmt.Errorf("case %s: expect_exit without expect_failure", c.Name)
		}
	}
	if s, _, err = read("compare_columns", false); err != nil {
		return nil, err
	}
	c.CompareColumns = map[string]string{}
	for _, l := range nonEmptyLines(s) {
		f := strings.Fields(l)
		if len(f) != 2 {
			return nil, fmt.Errorf("case %s: compare_columns: want \"orig_name new_name\", got %q", c.Name, l)
		}
		c.CompareColumns[strings.ToLower(f[0])] = f[1]
	}
	if s, _, err = read("verify.sql", false); err != nil {
		return nil, err
	}
	c.Verify = splitSQL(s)
	if c.ExpectFailure != "" && (c.Load != nil || c.Verify != nil || len(c.CompareColumns) > 0) {
		return nil, fmt.Errorf("case %s: a refusal case has no load.sql, verify.sql or compare_columns", c.Name)
	}
	return c, nil
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

// TestCasesParse reads every case folder without a server: a malformed case fails here first.
func TestCasesParse(t *testing.T) {
	names, err := listCases("cases")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 40 {
		t.Errorf("only %d cases, want at least 40", len(names))
	}
	for _, n := range names {
		c, err := loadCase(filepath.Join("cases", n))
		if err != nil {
			t.Error(err)
			continue
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
	}
}

// noLoadOK lists the successful cases that run without a write load on purpose.
var noLoadOK = map[string]bool{}
