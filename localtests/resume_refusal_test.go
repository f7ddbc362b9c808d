package localtests

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Each refusal of --resume: one error line naming the problem, a non-zero exit, and the tables as
// they were (names and definitions).
func TestResumeRefusals(t *testing.T) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	c := resumeCase()
	alter := c.Alter
	rename := "CHANGE a a2 INT"
	approve := []string{"--approve-renamed-columns"}
	for _, tc := range []struct {
		name, want string
		arrange    func(r *runner) // after a checkpointed run was killed
		alter      string
		// first and firstFlags are the killed run's ALTER (default: the case's) and flags;
		// flags are the resuming run's.
		first             string
		firstFlags, flags []string
	}{
		{name: "no ghost table", want: "does not exist, so there is nothing to resume",
			arrange: func(r *runner) { r.exec("DROP TABLE _gl_test_gho") }},
		{name: "no checkpoint table", want: "the checkpoint table",
			arrange: func(r *runner) { r.exec("DROP TABLE _gl_test_ghk") }},
		{name: "no checkpoint", want: "holds no checkpoint",
			arrange: func(r *runner) { r.exec("DELETE FROM _gl_test_ghk") }},
		{name: "binary log purged", want: "no longer has (purged)",
			arrange: func(r *runner) { r.exec("UPDATE _gl_test_ghk SET binlog_file = 'binlog.999999'") }},
		{name: "another alter", want: "is of another ALTER (ADD COLUMN C INT NOT NULL DEFAULT 3 ,",
			alter: "ADD COLUMN c INT NOT NULL DEFAULT 4, MODIFY b VARCHAR(60) NOT NULL, ADD INDEX ix_a (a, v)"},
		{name: "the table changed", want: "is not what this ALTER makes of gl_test now",
			arrange: func(r *runner) { r.exec("ALTER TABLE gl_test ADD COLUMN z INT") }},
		// Issue 23: another ALTER giving the same definition would copy a2 from a above the
		// checkpoint's key and leave it at its default below.
		{name: "another alter with the same definition", want: "is of another ALTER",
			first: rename, firstFlags: approve, alter: "DROP COLUMN a, ADD COLUMN a2 INT AFTER id", flags: approve},
		{name: "the same alter copying other columns", want: "the stopped run copied a2<-a,",
			first: rename, firstFlags: approve, alter: rename, flags: []string{"--skip-renamed-columns"}},
		{name: "a checkpoint without its alter", want: "does not say which ALTER it is of",
			arrange: func(r *runner) { r.exec("UPDATE _gl_test_ghk SET alter_spec = NULL") }},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			r := &runner{t: t, c: resumeCase(), admin: admin, schema: "glt_resume_refusal"}
			r.setup()
			if tc.first != "" {
				r.c.Alter = tc.first
			}
			r.c.Flags = tc.firstFlags
			r.killAfterCheckpoint(0)
			if tc.arrange != nil {
				tc.arrange(r)
			}
			before := r.resumeSnapshot()
			r.c.Alter, r.c.Flags = alter, tc.flags
			if tc.alter != "" {
				r.c.Alter = tc.alter
			}
			p := r.start(true, "--checkpoint", resumeCheckpoint, "--resume")
			code := r.wait(p, refusalTimeout)
			lines := p.errorLines()
			if code == 0 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Fatalf("exit %d, error lines %q; want non-zero and one line with %q\n%s", code, lines, tc.want, p.output())
			}
			t.Logf("refused: %s", lines[0])
			if after := r.resumeSnapshot(); after != before {
				t.Errorf("the refusal changed the tables:\n--- before\n%s\n--- after\n%s", before, after)
			}
			if slices.Contains(testenv.TableNames(t, admin, r.schema, ""), "_gl_test_ghr") {
				t.Error("the scratch ghost _gl_test_ghr was left behind")
			}
			testenv.Exec(t, admin, "DROP DATABASE IF EXISTS "+quote(r.schema))
		})
	}
}

// resumeSnapshot is gl_test's snapshot, the schema's table names, and the ghost's definition and
// the checkpoint table's rows where they exist.
func (r *runner) resumeSnapshot() string {
	out := r.snapshot() + fmt.Sprint(testenv.TableNames(r.t, r.admin, r.schema, ""))
	if r.exists("_gl_test_gho") {
		out += "\n" + r.showCreate("_gl_test_gho")
	}
	if r.exists("_gl_test_ghk") {
		var n int
		var sum string
		if err := r.admin.QueryRow(fmt.Sprintf("SELECT COUNT(*), COALESCE(SUM(CRC32(CONCAT_WS(',', id, binlog_file, binlog_pos, key_values))), 0) FROM %s.`_gl_test_ghk`", quote(r.schema))).Scan(&n, &sum); err != nil {
			r.t.Fatal(err)
		}
		out += fmt.Sprintf("\ncheckpoints %d %s", n, sum)
	}
	return out
}

// The ALTER of a resumed run may be written differently from the stopped run's (case, spacing,
// quoting, comments): it is the same ALTER, and the migration resumes and ends as the server's
// own ALTER would.
func TestResumeSameAlterWrittenDifferently(t *testing.T) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	c := resumeCase()
	r := &runner{t: t, c: c, admin: admin, schema: "glt_resume_respelled"}
	r.setup()
	r.killAfterCheckpoint(0)
	r.c.Alter = "add column `c` int not null default 3 ,\n  modify b varchar(60) not null, /* the index */ add index ix_a ( `a` , v )"
	r.c.Flags = append(slices.Clone(c.Flags), "--checkpoint", resumeCheckpoint, "--resume")
	r.runFull()
	r.c.Alter = c.Alter // the server's own ALTER, for the comparison
	r.compare()
	if !t.Failed() {
		testenv.Exec(t, admin, "DROP DATABASE IF EXISTS "+quote(r.schema))
	}
}
