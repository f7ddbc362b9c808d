package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// rowCopier copies the original into the ghost in chunks of the shared key, in key order:
//
//	INSERT IGNORE INTO ghost (...) SELECT ... FROM tbl FORCE INDEX (key) WHERE <range> LOCK IN SHARE MODE
//
// The range ends are found by reading chunk-size entries of the key's index, never by scanning the
// table. A row already in the ghost (written by the applier, so newer) wins: that duplicate on the
// shared key is expected. No chunk is done until it is proven complete (copycheck.go): a chunk is
// complete when its INSERT left no warning at all, or when the full list of its warnings holds
// only duplicate keys and every row of the chunk has its shared key in the ghost. Any other
// warning (a truncation, an invalid value, a failed CHECK) means the ALTER would change or drop
// rows silently, and fails the migration.
type rowCopier struct {
	cfg     Config
	s       *session
	applier *binlogapply.Applier
	sync    *sentinel // proves the applier caught up before a duplicate is judged
	log     zerolog.Logger

	key *keyRange
	// maxErrorCount is the copy session's max_error_count: how many warnings SHOW WARNINGS lists.
	maxErrorCount int
	// beforeChunk, when set, runs before each planned chunk is copied (tests act there).
	beforeChunk func(ctx context.Context, n int64) error

	rows   atomic.Int64 // rows inserted by the copy
	chunks atomic.Int64
	done   atomic.Bool
}

// backlogLimit is how many read-but-unapplied binlog changes make the copy wait: the applier has
// priority over the copy.
const backlogLimit = 200

func newRowCopier(cfg Config, s *session, a *binlogapply.Applier, sent *sentinel, log zerolog.Logger) *rowCopier {
	c := &rowCopier{cfg: cfg, s: s, applier: a, log: log, sync: sent, maxErrorCount: maxWarningsListed}
	if cfg.copyTest.maxErrorCount > 0 {
		c.maxErrorCount = cfg.copyTest.maxErrorCount
	}
	c.beforeChunk = cfg.copyTest.beforeChunk
	return c
}

func (c *rowCopier) copied() int64 { return c.rows.Load() }

func (c *rowCopier) run(ctx context.Context) error {
	p := c.s.plan
	kr, err := newKeyRange(p)
	if err != nil {
		return err
	}
	c.key = kr
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The copy session sends each chunk's INSERT and the read of its row and warning counts in one
	// round trip (see copyOnce), so it has its own connection with multi-statements on.
	dc := p.Primary
	dc.MultiStatements = true
	db, err := dbconn.Open(ctx, dc, "")
	if err != nil {
		return fmt.Errorf("row copy: %w", err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("row copy: connect: %w", err)
	}
	defer conn.Close()
	if err := c.raiseMaxErrorCount(ctx, conn); err != nil {
		return fmt.Errorf("row copy: %w", err)
	}

	// Chunk ends are read on their own connection, a few chunks ahead, so reading the key index
	// overlaps with copying the previous chunk.
	chunks := make(chan chunk, 2)
	planned := make(chan error, 1)
	go func() { planned <- c.planChunks(ctx, chunks) }()
	for ch := range chunks {
		if err := c.yieldToApplier(ctx); err != nil {
			return err
		}
		if c.beforeChunk != nil {
			if err := c.beforeChunk(ctx, ch.n); err != nil {
				return err
			}
		}
		if err := c.copyChunk(ctx, conn, ch); err != nil {
			return err
		}
		c.chunks.Store(ch.n)
	}
	if err := <-planned; err != nil {
		return err
	}
	c.done.Store(true)
	return nil
}

// chunk is one range of the shared key: (lower, upper], or [lower, upper] when inclusive. Parts
// of a chunk copied separately keep its number n.
type chunk struct {
	n            int64
	lower, upper []sql.RawBytes
	inclusive    bool
}

// planChunks sends the chunks of the table, from its smallest to its largest key as they are when
// the copy starts (rows added later are the applier's), then closes out.
func (c *rowCopier) planChunks(ctx context.Context, out chan<- chunk) error {
	defer close(out)
	conn, err := c.s.primary.Conn(ctx)
	if err != nil {
		return fmt.Errorf("row copy: connect: %w", err)
	}
	defer conn.Close()
	min, max, err := c.key.bounds(ctx, conn)
	if err != nil {
		return fmt.Errorf("row copy: read key bounds: %w", err)
	}
	if min == nil {
		c.log.Info().Msg("original table is empty: nothing to copy")
		return nil
	}
	lower, inclusive := min, true
	for n := int64(1); ; n++ {
		upper, err := c.key.chunkEnd(ctx, conn, lower, inclusive, max, c.cfg.ChunkSize)
		if err != nil {
			return fmt.Errorf("row copy: find end of chunk %d: %w", n, err)
		}
		select {
		case out <- chunk{n: n, lower: lower, upper: upper, inclusive: inclusive}:
		case <-ctx.Done():
			return ctx.Err()
		}
		if c.key.equal(upper, max) {
			return nil
		}
		lower, inclusive = upper, false
	}
}

// yieldToApplier waits while the applier has a backlog: applying changes comes before copying.
func (c *rowCopier) yieldToApplier(ctx context.Context) error {
	for c.applier.Stats().Backlog > backlogLimit {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return ctx.Err()
}

// duplicateKeyName extracts the key name of "Duplicate entry 'x' for key 'name'" (MariaDB) or
// "... for key 'tbl.name'" (MySQL 8).
func duplicateKeyName(msg string) string {
	i := strings.LastIndex(msg, "for key '")
	if i < 0 {
		return ""
	}
	name := strings.TrimSuffix(msg[i+len("for key '"):], "'")
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		name = name[dot+1:]
	}
	return name
}

// progress is rows copied and the total to expect (the estimate, or the copied count when larger).
func (c *rowCopier) progress() (copied, total int64) {
	copied = c.rows.Load()
	total = c.s.plan.EstimatedRows
	if copied > total || c.done.Load() {
		total = copied
	}
	return copied, total
}
