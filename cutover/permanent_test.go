package cutover

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// A RENAME the server refuses for good is tried once, not --default-retries times: another
// table of the schema holds the name a foreign key of the original would take when renamed to
// the old name (MySQL: 1826; MariaDB: 1050 naming the engine's path). Each algorithm stops after
// its first attempt with the reason and the fix, the original in place.
func TestRenameThatCanNeverSucceedIsNotRetried(t *testing.T) {
	for _, name := range config.CutOverAlgorithms() {
		t.Run(name, func(t *testing.T) {
			if err := RefuseOn(name, testenv.Flavor(t)); err != nil {
				t.Skipf("flavor limit: %v", err)
			}
			f := newFixture(t, "t_never")
			old := f.tables.Old
			testenv.Exec(t, f.admin, "CREATE TABLE p_never (id BIGINT PRIMARY KEY)",
				"ALTER TABLE "+f.q(f.tables.Original)+" ADD COLUMN pid BIGINT NULL, ADD FOREIGN KEY (pid) REFERENCES p_never (id)",
				"CREATE TABLE other_never (id BIGINT PRIMARY KEY, pid BIGINT, CONSTRAINT "+old+"_ibfk_1 FOREIGN KEY (pid) REFERENCES p_never (id))")
			cfg := f.config(60, nil)
			attempts := 0
			cfg.AfterAttempt = func(AttemptOutcome) { attempts++ }
			err := Run(t.Context(), name, cfg, f.noop())
			if !errors.Is(err, ErrNeverSucceeds) || attempts != 1 {
				t.Fatalf("after %d attempt(s): %v; want one attempt and ErrNeverSucceeds", attempts, err)
			}
			if msg := err.Error(); !strings.Contains(msg, "rename or drop that other table's foreign key") || strings.Contains(msg, "\n") {
				t.Errorf("error %q does not name the fix in one line", msg)
			}
			if orig, _, ghost := f.exists(); !orig || !ghost {
				t.Errorf("after the attempt: original %v, ghost %v; want both", orig, ghost)
			}
		})
	}
}

func TestNeverSucceedsClassification(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&mysql.MySQLError{Number: 1826, Message: "Duplicate foreign key constraint name '_t_del_ibfk_1'"}, true},
		{fmt.Errorf("rename 1 after unlock: %w", &mysql.MySQLError{Number: 3822, Message: "Duplicate check constraint name"}), true},
		{&mysql.MySQLError{Number: 1050, Message: "Table './db/_t_del' already exists"}, true},
		{&mysql.MySQLError{Number: 1050, Message: "Table '_t_del' already exists"}, false},
		{&mysql.MySQLError{Number: 1025, Message: "Error on rename of './db/t' to './db/_t_del' (errno: 150 \"Foreign key constraint is incorrectly formed\")"}, true},
		{&mysql.MySQLError{Number: 1025, Message: "Error on rename of './db/t' to './db/_t_del' (errno: 11)"}, false},
		{&mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"}, false},
		{errors.New("sentinel not applied in time"), false},
	} {
		if got := neverSucceeds(c.err) != ""; got != c.want {
			t.Errorf("neverSucceeds(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
