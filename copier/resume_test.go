package copier

import (
	"context"
	"database/sql"
	"sync/atomic"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// CompleteUpTo follows the chunks proven complete, stops at the first deferred chunk until the
// deferred chunks are proven, and ends at the largest key.
func TestCompleteUpToStopsAtTheFirstDeferredChunk(t *testing.T) {
	var catchUps atomic.Int64
	cfg := copyTestConfig(t, 100, &catchUps)
	staleRow := clashOnNewUniqueKey(t, &cfg, &catchUps)
	var c *Copier
	var seen []string
	cfg.Test.BeforeChunk = func(ctx context.Context, n int64) error {
		seen = append(seen, string(keyOf(c.CompleteUpTo())))
		if n == 4 { // chunk 4 (301..400) clashes on uk_u: deferred
			return staleRow(ctx, 350)
		}
		return nil
	}
	c = newCopier(t, cfg)
	mustCopy(t, c)
	want := []string{"", "100", "200", "300", "300", "300", "300", "300", "300", "300"}
	if len(seen) != len(want) {
		t.Fatalf("CompleteUpTo before each chunk: %q, want %q", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Errorf("CompleteUpTo before chunk %d: %q, want %q", i+1, seen[i], want[i])
		}
	}
	if got := string(keyOf(c.CompleteUpTo())); got != "1000" {
		t.Errorf("CompleteUpTo after the copy: %q, want 1000", got)
	}
}

// A copy given StartAfter copies only the keys above it, and has nothing to do above the largest.
func TestStartAfterCopiesOnlyAboveTheKey(t *testing.T) {
	var catchUps atomic.Int64
	cfg := copyTestConfig(t, 100, &catchUps)
	testenv.Exec(t, cfg.DB, "CREATE TABLE _t_gho LIKE t")
	cfg.StartAfter = []sql.RawBytes{sql.RawBytes("750")}
	c := newCopier(t, cfg)
	if got := string(keyOf(c.CompleteUpTo())); got != "750" {
		t.Errorf("CompleteUpTo before the copy: %q, want the start key 750", got)
	}
	mustCopy(t, c)
	var n, least int
	if err := cfg.DB.QueryRow("SELECT COUNT(*), MIN(id) FROM "+copierDB+"._t_gho").Scan(&n, &least); err != nil {
		t.Fatal(err)
	}
	if n != 250 || least != 751 || c.Copied() != 250 {
		t.Errorf("ghost holds %d rows from id %d (copied %d), want 250 from 751", n, least, c.Copied())
	}

	cfg.StartAfter = []sql.RawBytes{sql.RawBytes("1000")}
	c = newCopier(t, cfg)
	mustCopy(t, c)
	if c.Copied() != 0 || !c.Done() {
		t.Errorf("from the largest key: copied %d, done %v; want 0, true", c.Copied(), c.Done())
	}
}

func keyOf(k []sql.RawBytes) []byte {
	if k == nil {
		return nil
	}
	return k[0]
}
