package localtests

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// A set killed and resumed (doc/resume.md): the binary, migrating two tables with --statement and
// --checkpoint under a write load, is killed with SIGKILL at a random moment after the first
// checkpoint of both (during their copy, or while only the appliers work), then run again with the
// same --statement and --resume to the end. Each table is judged against the server's own
// statement, and the binary log holds one cut-over of both (the runner's checks of a set).

const setResumeTrials = 3

// setResumeCase is two tables of resumeRows rows each, written by the load, and their statement.
func setResumeCase() *testCase {
	create := func(tbl string) []string {
		return []string{fmt.Sprintf(`CREATE TABLE %s (
  id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  x INT NOT NULL,
  s VARCHAR(40) NOT NULL,
  v INT NOT NULL DEFAULT 0
) ENGINE=InnoDB DEFAULT CHARSET=latin1`, tbl),
			fmt.Sprintf("INSERT INTO %s (x, s) SELECT seq %% 97, CONCAT('é', LEFT(SHA2(seq, 256), 30)) FROM seq_1_to_%d", tbl, resumeRows)}
	}
	load := func(tbl string) []string {
		return []string{
			fmt.Sprintf("UPDATE %[1]s JOIN (SELECT FLOOR(1 + RAND() * %[2]d) AS r1) x ON %[1]s.id = x.r1 SET x = FLOOR(RAND() * 97), v = v + 1", tbl, resumeRows),
			fmt.Sprintf("UPDATE %[1]s JOIN (SELECT FLOOR(1 + RAND() * %[2]d) AS r1) x ON %[1]s.id = x.r1 SET s = CONCAT('ü', LEFT(SHA2(RAND(), 256), 30))", tbl, resumeRows),
			fmt.Sprintf("INSERT INTO %s (x, s) VALUES (FLOOR(RAND() * 97), 'Ærø')", tbl),
			fmt.Sprintf("DELETE %[1]s FROM %[1]s JOIN (SELECT FLOOR(1 + RAND() * %[2]d) AS r1) x ON %[1]s.id = x.r1", tbl, resumeRows+2000),
		}
	}
	return &testCase{
		Name:   "kill_resume_set",
		Create: append(create("a"), create("b")...),
		Load:   append(load("a"), load("b")...),
		Statement: []string{
			"ALTER TABLE a ADD COLUMN c INT NOT NULL DEFAULT 3, MODIFY s VARCHAR(60) NOT NULL, ADD INDEX ix_x (x, v)",
			"ALTER TABLE b CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci, ADD INDEX ix_s (s)",
		},
	}
}

// TestSetKillAndResume: in each trial the set is killed once after its first checkpoints (in the
// first trial at once, mid-copy), and in the last one the resumed run is killed too before the
// resume that ends it.
func TestSetKillAndResume(t *testing.T) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)
	for i := range setResumeTrials {
		t.Run(fmt.Sprintf("trial%02d", i), func(t *testing.T) {
			r := &runner{t: t, c: setResumeCase(), admin: admin, schema: "glt_kill_resume_set"}
			r.setup()
			after := time.Duration(rng.Intn(1200)) * time.Millisecond
			var slow []string
			if i == 0 {
				// Killed at once, and surely mid-copy: 40 chunks of 250 rows took less than the
				// first checkpoint's 100 ms on MariaDB 11.8 once (both tables already postponed);
				// 200 chunks of 50 rows, each followed by a rest as long as it took, take seconds.
				after, slow = 0, []string{"--chunk-size=50", "--nice-ratio=1"}
			}
			r.killAfterCheckpoint(after, slow...)
			if i == 0 && r.killedIn != "a=copy b=copy" {
				t.Errorf("killed at once after the first checkpoints, the tables were in %q, want both in copy", r.killedIn)
			}
			if i == setResumeTrials-1 {
				r.killAfterCheckpoint(time.Duration(rng.Intn(1200))*time.Millisecond, "--resume")
			}
			r.resumeSet()
		})
	}
}

// resumeSet runs the set to its end with --resume (the runner's full protocol) and judges it.
func (r *runner) resumeSet() {
	t := r.t
	r.c.Flags = []string{"--checkpoint", resumeCheckpoint, "--resume"}
	r.runFull()
	if n := strings.Count(r.fullRunLog, `"message":"Resuming from checkpoint coords=`); n != len(r.c.Statement) {
		t.Errorf("the resumed run logged \"Resuming from checkpoint coords=...\" %d times, want once per table (%d)", n, len(r.c.Statement))
	}
	for _, tbl := range r.tables() {
		if rec, err := checkpoint.Last(context.Background(), r.admin, r.schema, "_"+tbl+"_ghk"); err != nil || !rec.CutOver {
			t.Errorf("after the migration _%s_ghk holds %+v (%v), want the cut-over checkpoint", tbl, rec, err)
		}
	}
	r.compare()
	if !t.Failed() {
		testenv.Exec(t, r.admin, "DROP DATABASE IF EXISTS "+quote(r.schema))
	}
}

// A killed set resumed with another statement is refused: one error line, nothing changed (every
// table of the database as it was but for the changelogs' heartbeat), and the set can still be
// resumed with its own statement to the end.
func TestSetResumeAnotherStatementRefused(t *testing.T) {
	admin := testenv.Open(t, testenv.PrimaryConfig(), "")
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	c := setResumeCase()
	for _, tc := range []struct {
		name, want string
		statement  []string
	}{
		{"another alter of one table", "is of another ALTER", []string{c.Statement[0],
			"ALTER TABLE b CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci, ADD INDEX ix_s (s, x)"}},
		// Each checkpoint records its set (checkpoint.Alter.Set): one table alone is refused.
		{"one table of the set", "cut over together: resume them together", []string{c.Statement[0]}},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			r := &runner{t: t, c: setResumeCase(), admin: admin, schema: "glt_resume_set_refusal"}
			r.setup()
			r.killAfterCheckpoint(0)
			before := r.setResumeSnapshot()
			own := r.c.Statement
			r.c.Statement = tc.statement
			p := r.start(true, "--checkpoint", resumeCheckpoint, "--resume")
			code := r.wait(p, refusalTimeout)
			lines := p.errorLines()
			if code == 0 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Fatalf("exit %d, error lines %q; want non-zero and one line with %q\n%s", code, lines, tc.want, p.output())
			}
			t.Logf("refused: %s", lines[0])
			if after := r.setResumeSnapshot(); after != before {
				t.Fatalf("the refusal changed the tables: %s\n--- before\n%s\n--- after\n%s", firstDiff(before, after), before, after)
			}
			r.c.Statement = own
			r.resumeSet()
		})
	}
}

// setResumeSnapshot is schemaSnapshot without the changelogs (a run that refuses may have written
// their heartbeat): the originals, ghosts and checkpoint tables.
func (r *runner) setResumeSnapshot() string {
	var out []string
	for _, tbl := range testenv.TableNames(r.t, r.admin, r.schema, "") {
		if !strings.HasSuffix(tbl, "_ghc") {
			out = append(out, tbl+": "+r.tableSnapshot(tbl))
		}
	}
	return strings.Join(slices.Clip(out), "\n")
}
