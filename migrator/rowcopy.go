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
// shared key is expected. Any other warning (a duplicate on another unique key, a truncation, an
// invalid value) means the ALTER would drop or change rows silently, and fails the migration.
type rowCopier struct {
	cfg     Config
	s       *session
	applier *binlogapply.Applier
	sync    *sentinel // proves the applier caught up before a duplicate is judged
	log     zerolog.Logger

	key    *keyRange
	rows   atomic.Int64 // rows inserted by the copy
	chunks atomic.Int64
	done   atomic.Bool
}

// backlogLimit is how many read-but-unapplied binlog changes make the copy wait: the applier has
// priority over the copy.
const backlogLimit = 200

func newRowCopier(cfg Config, s *session, a *binlogapply.Applier, sent *sentinel, log zerolog.Logger) *rowCopier {
	return &rowCopier{cfg: cfg, s: s, applier: a, log: log, sync: sent}
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

	// Chunk ends are read on their own connection, a few chunks ahead, so reading the key index
	// overlaps with copying the previous chunk.
	chunks := make(chan chunk, 2)
	planned := make(chan error, 1)
	go func() { planned <- c.planChunks(ctx, chunks) }()
	for ch := range chunks {
		if err := c.yieldToApplier(ctx); err != nil {
			return err
		}
		if err := c.copyChunk(ctx, conn, ch.n, ch.lower, ch.inclusive, ch.upper); err != nil {
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

// chunk is one range of the shared key: (lower, upper], or [lower, upper] when inclusive.
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

// copyChunk copies one range, retrying failed statements up to --default-retries times.
//
// A duplicate on a key other than the shared key is not always a lost row: the row may already be
// in the ghost (written by the applier), clashing on the shared key and on another unique key at
// once, and the server names only one of them; or the applier has not yet applied a change that
// frees the value. So the tool waits for the applier to catch up, and counts the chunk's rows that
// have no row with their shared key in the ghost: only those are lost. It copies the chunk again
// and looks again before it gives up.
func (c *rowCopier) copyChunk(ctx context.Context, conn *sql.Conn, n int64, lower []sql.RawBytes, inclusive bool, upper []sql.RawBytes) error {
	q, args := c.key.copySQL(lower, inclusive, upper)
	var lastErr error
	var lastProblem *copyProblem
	verified := 0
	for attempt := 1; attempt <= c.cfg.DefaultRetries; attempt++ {
		inserted, warnings, err := copyOnce(ctx, conn, q, args)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			lastErr = err
			c.log.Warn().Err(err).Int64("chunk", n).Int("attempt", attempt).Msg("copy chunk failed; retrying")
			time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
			continue
		}
		c.rows.Add(inserted)
		if warnings == 0 {
			return nil
		}
		problem, err := c.checkWarnings(ctx, conn)
		if err != nil {
			return fmt.Errorf("copy chunk %d: read warnings: %w", n, err)
		}
		if problem == nil {
			return nil
		}
		if !problem.transient || verified >= 3 {
			return problem.err(n)
		}
		lastProblem = problem
		verified++
		missing, err := c.missingRows(ctx, conn, lower, inclusive, upper)
		if err != nil {
			return fmt.Errorf("copy chunk %d: %w", n, err)
		}
		if missing == 0 {
			return nil
		}
		c.log.Debug().Int64("chunk", n).Int64("missing", missing).Msg("duplicate on another unique key; copying the chunk again after the applier caught up")
	}
	if lastErr == nil && lastProblem != nil {
		return lastProblem.err(n)
	}
	return fmt.Errorf("copy chunk %d: gave up after %d attempts: %w", n, c.cfg.DefaultRetries, lastErr)
}

// copyOnce runs one chunk's INSERT and, in the same round trip, reads how many rows it inserted
// and how many warnings it left. A statement that uses no table keeps the warnings of the INSERT,
// so SHOW WARNINGS can still read them when the count is not zero.
func copyOnce(ctx context.Context, conn *sql.Conn, q string, args []any) (inserted, warnings int64, err error) {
	rows, err := conn.QueryContext(ctx, q+"; SELECT ROW_COUNT(), @@warning_count", args...)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	// The driver may or may not have stepped over the INSERT's empty result already.
	for !rows.Next() {
		if !rows.NextResultSet() {
			if err := rows.Err(); err != nil {
				return 0, 0, err
			}
			return 0, 0, fmt.Errorf("no row and warning counts after the chunk's INSERT")
		}
	}
	if err := rows.Scan(&inserted, &warnings); err != nil {
		return 0, 0, err
	}
	for rows.Next() {
	}
	return inserted, warnings, rows.Err()
}

// missingRows waits until the applier has applied everything written so far, then counts the
// chunk's original rows that have no row with the same shared key in the ghost.
func (c *rowCopier) missingRows(ctx context.Context, conn *sql.Conn, lower []sql.RawBytes, inclusive bool, upper []sql.RawBytes) (int64, error) {
	if err := c.sync.awaitWithin(ctx, 5*time.Minute); err != nil {
		return 0, fmt.Errorf("wait for the applier before checking a duplicate: %w", err)
	}
	q, args := c.key.missingSQL(lower, inclusive, upper)
	var n int64
	if err := conn.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count rows missing from the ghost: %w", err)
	}
	return n, nil
}

func (p *copyProblem) err(chunk int64) error {
	return fmt.Errorf("copy chunk %d: %s; the original table is untouched", chunk, p.message)
}

type copyProblem struct {
	message   string
	transient bool // a duplicate on a non-shared unique key: verify against the ghost
}

// checkWarnings reads the warnings of the last statement. A duplicate on the ghost's shared key is
// expected (the applier wrote a newer version of the row); anything else is a problem.
func (c *rowCopier) checkWarnings(ctx context.Context, conn *sql.Conn) (*copyProblem, error) {
	rows, err := conn.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var problem *copyProblem
	for rows.Next() {
		var level, msg string
		var code int
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return nil, err
		}
		if code == 1062 {
			key := duplicateKeyName(msg)
			if strings.EqualFold(key, c.s.plan.GhostKey.Name) {
				continue
			}
			if problem == nil {
				problem = &copyProblem{transient: true,
					message: fmt.Sprintf("the ALTER would drop rows: %s in the altered table (rows of the original clash on that unique key)", msg)}
			}
			continue
		}
		problem = &copyProblem{message: fmt.Sprintf("the ALTER would change or lose data: %s %d: %s (the ghost runs in strict mode)", level, code, msg)}
	}
	return problem, rows.Err()
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
