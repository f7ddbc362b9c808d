package cutover

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// An application statement holding a 4-byte character (an emoji) runs during the cut-over: every
// algorithm the flavor runs still swaps the tables. On MySQL, information_schema.PROCESSLIST
// cannot be read at all while such a statement runs (error 3854: its INFO column is utf8mb3); the
// cut-over failed on it, leaving "tables in an unexpected state" (seen when the localtests ran in
// parallel, one case's load writing emoji during another's cut-over).
func TestCutOverBesideAFourByteStatement(t *testing.T) {
	for _, name := range config.CutOverAlgorithms() {
		t.Run(name, func(t *testing.T) {
			if err := RefuseOn(name, testenv.Flavor(t)); err != nil {
				t.Skipf("flavor limit: %v", err)
			}
			f := newFixture(t, "emoji_"+strings.ReplaceAll(name, "-", "_"))
			sleepBesideEmoji(t, f)
			if err := Run(context.Background(), name, f.config(0, nil), f.noop()); err != nil {
				t.Fatalf("cut-over beside a statement holding an emoji: %v", err)
			}
			f.assertSwapped()
		})
	}
}

// sleepBesideEmoji runs an application's statement holding an emoji, in a utf8mb4 session, until
// the test ends, and waits until the processlist shows it.
func sleepBesideEmoji(t *testing.T, f *fixture) {
	t.Helper()
	ctx := context.Background()
	conn, err := f.admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "SET NAMES utf8mb4"); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = conn.ExecContext(ctx, "SELECT 'app 🙂', SLEEP(60)") // ends when killed below
	}()
	t.Cleanup(func() {
		if err := testenv.KillAndWait(ctx, f.admin, id); err != nil && !strings.Contains(err.Error(), "1094") {
			t.Error(err)
		}
		<-done
		_ = conn.Close() // killed: its error says nothing
	})
	testenv.WaitFor(t, 10*time.Second, 10*time.Millisecond, "the emoji statement in the processlist", func() (bool, error) {
		var n int
		err := f.admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM performance_schema.threads WHERE PROCESSLIST_ID = ? AND PROCESSLIST_INFO LIKE '%SLEEP(60)%'", id).Scan(&n)
		return n == 1, err
	})
}
