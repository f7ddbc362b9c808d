// Package copier copies the rows of the original table into the ghost table, in chunks of the
// shared key:
//
//	INSERT IGNORE INTO ghost (...) SELECT ... FROM original FORCE INDEX (key) WHERE <range>
//
// read as a consistent read (READ COMMITTED, no row locks on the original) when the copy has a
// KeyTracker, the binlog applier's record of the keys it writes meanwhile; with LOCK IN SHARE
// MODE otherwise (copycheck.go).
//
// The chunker reads the ends of the chunks from the key's index (never by scanning the table), a
// few chunks ahead, on its own connection; one copy session, or Config.Threads sessions each on
// its own connection, take the chunks in key order, ask the Throttler before each, copy it, and
// prove it complete before they take the next.
//
// Invariants:
//   - rows are copied with INSERT IGNORE ... SELECT, one chunk per statement; chunks are handed
//     out in shared-key order, and with several sessions up to one chunk per session is copied at
//     once (disjoint key ranges);
//   - with a KeyTracker the original is read without row locks, and every chunk's INSERT is
//     bracketed by Track and settle: the keys the applier wrote while it ran are applied again
//     after it committed, before the chunk counts as copied (copycheck.go); without one, the read
//     holds shared locks on the chunk's rows until the INSERT commits;
//   - a row already in the ghost was written by the binlog applier, so it is newer and wins: a
//     duplicate on the shared key is expected and skipped (where the key's collation changes so
//     that keys distinct in one table may be equal in the other, Config.GhostKeyBytes, it is
//     judged like a duplicate on another unique key: the rows are counted by their key bytes);
//   - a chunk is done only when proven complete (copycheck.go): its INSERT left no warning at all,
//     or the full list of its warnings holds only Notes and duplicates on the shared key, or only
//     Notes and duplicates and every row of the chunk has its shared key in the ghost. Any other
//     warning fails the copy, so no row is merged, dropped or changed silently;
//   - a chunk with rows missing from the ghost (the applier has yet to write them, or they clash
//     on a new unique key with a row the applier wrote in an older state) is copied again after
//     the last chunk, once the applier has caught up, and proven complete then: the copy is
//     done only when every chunk is;
//   - CompleteUpTo never passes a chunk not proven complete: it is the upper key of the longest
//     run of chunk numbers 1..n all proven, whatever order the sessions finish them in (complete.go);
//   - the throttler is asked before each chunk and only delays the copy; it never stops the
//     applier, and the copy never skips a chunk;
//   - the copy walks the keys the table holds when it starts: rows added later are the applier's.
//
// The copier knows nothing of the migration around it: it takes the tables, the shared key and
// the column lists through Config, and the applier only through the CatchUp it is given.
package copier

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Config is what one row copy needs to know.
type Config struct {
	// Primary is the server written to: each copy session opens its own connection there, with
	// multi-statements on (a chunk's INSERT and the read of its counts go in one round trip).
	Primary dbconn.Config
	// DB is a pool on the primary: the chunker reads chunk ends on a connection of its own.
	DB *sql.DB

	Original   *table.Table // the table copied from, as inspected
	GhostTable string       // the ghost table's name, in Original's schema

	// OriginalKey is the shared key as the original has it: the copy walks it in order.
	OriginalKey table.Key
	// GhostKey is the shared key as the ghost has it: a duplicate on it is a row the applier
	// wrote first, and the missing-row count looks rows up through it.
	GhostKey table.Key
	// GhostColumns are the ghost columns written, and SelectExprs the expressions over the
	// original (unqualified) that give their values, one for one.
	GhostColumns []string
	SelectExprs  []string
	// GhostKeyExprs give, for each column of GhostKey, its value as the copy converts it, read from
	// the original qualified by Original.QualifiedName().
	GhostKeyExprs []string
	// GhostKeyBytes give, for each column of GhostKey, "" or the condition that the ghost row
	// aliased g holds in it the exact bytes of the value the copy writes there, read like
	// GhostKeyExprs: set for the columns whose collation changes so that keys distinct in one
	// table may be equal in the other (the plan's GhostKeyByBytes). A
	// duplicate on the shared key then proves nothing (the ghost row may be another row of the
	// original, equal only under the new collation): the chunk's rows are counted in the ghost by
	// their bytes, and one still missing after the applier caught up is a clash that fails the copy.
	GhostKeyBytes []string

	// StartAfter, when set, is a shared-key value (as CompleteUpTo gave it) up to which the ghost
	// is already complete: the copy walks only the keys above it (a resumed migration).
	StartAfter []sql.RawBytes

	EstimatedRows int64 // the expected number of rows, for Progress
	Retries       int   // attempts of a chunk whose statement fails (--default-retries)
	// Threads is how many copy sessions copy chunks at once (--copy-threads), each on its own
	// connection; 0 or 1: one.
	Threads int

	Knobs     *Knobs    // values that may change while the copy runs (chunk size)
	Throttler Throttler // asked before each chunk; nil: never throttled
	CatchUp   CatchUp   // lets the applier catch up before rows are judged missing
	// Tracker, when set, makes the copy read the original without row locks (READ COMMITTED: a
	// consistent read) and re-apply, after each chunk, the keys the applier wrote meanwhile
	// (copycheck.go); nil: each chunk reads with shared row locks held until it commits.
	Tracker KeyTracker
	Logger  zerolog.Logger

	// Adaptive, when set, sizes the chunks after the time each takes (--chunk-time, adaptive.go);
	// nil: every chunk has the size the knobs hold.
	Adaptive *Adaptive

	// Test holds seams for tests; the command line never sets them.
	Test TestHooks
}

// TestHooks are the copy's seams for tests.
type TestHooks struct {
	// BeforeChunk, when set, runs before each planned chunk is copied (after the throttler), on
	// the goroutine of the session that copies it: with Threads > 1, from several at once.
	BeforeChunk func(ctx context.Context, n int64) error
	// MaxErrorCount is the copy session's max_error_count, how many warnings SHOW WARNINGS lists
	// (0: the largest the server accepts).
	MaxErrorCount int
}

// Throttler decides whether the copy may go on now. Wait returns when it may, or with the
// context's error when ctx ends first. lastChunk is how long the asking session's previous chunk
// took to copy (0 before its first): what a rest in proportion to the copy's work (--nice-ratio)
// goes by. With Threads > 1, Wait is called from several goroutines at once.
type Throttler interface {
	Wait(ctx context.Context, lastChunk time.Duration) error
}

// CatchUp waits until the binlog applier has applied every change written to the original before
// the call (or ctx ends). The copy calls it before it judges rows missing from the ghost, since
// rows the applier has yet to write look missing.
type CatchUp interface {
	AwaitApplied(ctx context.Context) error
}

// KeyTracker is the binlog applier's record of the shared keys it writes while a chunk is copied.
// Track starts recording before the chunk's INSERT; settle, once the INSERT has committed, stops
// it and has the applier apply the last state of every key recorded once more (after the INSERT:
// a stale row of the chunk's snapshot is overwritten), returning when that is committed. settle
// is called exactly once; several sessions may track at once.
// span is the chunk's range when the key is one integer column (table.IntegerKeySpan; the zero
// span otherwise): keys outside it need no recording.
type KeyTracker interface {
	Track(span table.KeySpan) (settle func(ctx context.Context) error)
}

// CatchUpFunc is a function used as a CatchUp.
type CatchUpFunc func(ctx context.Context) error

// AwaitApplied calls f.
func (f CatchUpFunc) AwaitApplied(ctx context.Context) error { return f(ctx) }

// Copier copies the original into the ghost (see the package comment). Progress can be read
// while Run runs.
type Copier struct {
	cfg Config
	log zerolog.Logger
	key *keyRange

	rows     atomic.Int64 // rows inserted by the copy
	chunks   atomic.Int64 // planned chunks copied (proven or deferred), by every session
	recounts atomic.Int64 // chunk copies whose rows were counted in the ghost again (Recounts)
	done     atomic.Bool
	complete *completion // CompleteUpTo's bookkeeping and the deferred chunks
}

// New checks cfg and returns a Copier ready to Run.
func New(cfg Config) (*Copier, error) {
	switch {
	case cfg.DB == nil || cfg.Original == nil || cfg.GhostTable == "":
		return nil, errors.New("row copy: the primary's pool, the original and the ghost table are required")
	case cfg.Knobs == nil || cfg.CatchUp == nil:
		return nil, errors.New("row copy: knobs and a catch-up are required")
	case len(cfg.SelectExprs) != len(cfg.GhostColumns):
		return nil, fmt.Errorf("row copy: %d select expressions for %d ghost columns", len(cfg.SelectExprs), len(cfg.GhostColumns))
	case len(cfg.GhostKeyExprs) != len(cfg.GhostKey.Columns):
		return nil, fmt.Errorf("row copy: %d expressions for the %d columns of the ghost's key", len(cfg.GhostKeyExprs), len(cfg.GhostKey.Columns))
	}
	if cfg.Throttler == nil {
		cfg.Throttler = notThrottled{}
	}
	c := &Copier{cfg: cfg, log: cfg.Logger.With().Str("component", "copier").Logger()}
	key, err := newKeyRange(&c.cfg)
	if err != nil {
		return nil, err
	}
	c.key = key
	if cfg.StartAfter != nil {
		if len(cfg.StartAfter) != len(cfg.OriginalKey.Columns) {
			return nil, fmt.Errorf("row copy: start key has %d values for the %d columns of %s", len(cfg.StartAfter), len(cfg.OriginalKey.Columns), cfg.OriginalKey.Name)
		}
	}
	c.complete = newCompletion(cfg.StartAfter)
	return c, nil
}

// CompleteUpTo is the shared-key value up to which (inclusive) every row of the original the
// copy walks is proven to be in the ghost: the upper key of the longest prefix of chunks proven
// complete with none deferred (Config.StartAfter before the first). It is nil while no chunk is.
// The values are the key's columns as the server returns them (ENUM and SET as numbers), ready
// for Config.StartAfter. A deferred chunk freezes it until every deferred chunk is proven. With
// several sessions, chunks finish out of order: the prefix is of chunk numbers, so a chunk still
// being copied holds the mark below it however many chunks above it are proven.
func (c *Copier) CompleteUpTo() []sql.RawBytes { return c.complete.load() }

// notThrottled is the Throttler of a copy given none.
type notThrottled struct{}

func (notThrottled) Wait(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// Copied is the number of rows the copy has inserted so far.
func (c *Copier) Copied() int64 { return c.rows.Load() }

// ChunksCopied is how many planned chunks the sessions have copied so far (a deferred chunk
// counts once, when first copied).
func (c *Copier) ChunksCopied() int64 { return c.chunks.Load() }

// threads is the number of copy sessions.
func (c *Copier) threads() int { return max(c.cfg.Threads, 1) }

// Recounts is how many chunk copies needed a second read of their rows to be proven complete:
// those that clashed on a unique key other than the shared key (copycheck.go).
func (c *Copier) Recounts() int64 { return c.recounts.Load() }

// Done reports whether every chunk was copied and proven complete.
func (c *Copier) Done() bool { return c.done.Load() }

// Progress is rows copied and the total to expect (the estimate, or the copied count when larger
// or when the copy is done).
func (c *Copier) Progress() (copied, total int64) {
	copied = c.rows.Load()
	total = c.cfg.EstimatedRows
	if copied > total || c.done.Load() {
		total = copied
	}
	return copied, total
}

// Run copies every chunk, from the smallest key to the largest the table holds now, and returns
// when all are proven complete, on the first failure, or when ctx ends.
func (c *Copier) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sessions, closeSessions, err := c.openSessions(ctx, c.threads())
	if err != nil {
		return fmt.Errorf("row copy: %w", err)
	}
	defer closeSessions()

	// Chunk ends are read on their own connection, a few chunks ahead (one more than there are
	// sessions, two at least), so reading the key index overlaps with copying.
	chunks := make(chan chunk, max(2, len(sessions)+1))
	planned := make(chan error, 1)
	go func() { planned <- c.planChunks(ctx, chunks) }()
	ended := make(chan error, len(sessions))
	for _, s := range sessions {
		go func() { ended <- c.work(ctx, s, chunks) }()
	}
	var failed error
	for range sessions {
		// The first error is the cause: the others only end with the cancelled context.
		if err := <-ended; err != nil && failed == nil {
			failed = err
			cancel()
		}
	}
	if err := <-planned; failed == nil {
		failed = err
	}
	if failed != nil {
		return failed
	}
	if err := c.copyDeferred(ctx, sessions[0], c.complete.deferredChunks()); err != nil {
		return err
	}
	c.complete.finish()
	c.done.Store(true)
	return nil
}

// work is one copy session: it takes chunks until there are none left, asking the throttler
// before each, copies each and proves it complete (or defers it).
func (c *Copier) work(ctx context.Context, s *session, chunks <-chan chunk) error {
	var took time.Duration // this session's previous chunk
	// The previous chunk is marked proven once its settles are committed (copycheck.go): they run
	// while this session copies the next chunk.
	var prev *copiedChunk // on failure its settles end on their own (the copy's context ends)
	for ch := range chunks {
		if err := c.cfg.Throttler.Wait(ctx, took); err != nil {
			return err
		}
		if c.cfg.Test.BeforeChunk != nil {
			if err := c.cfg.Test.BeforeChunk(ctx, ch.n); err != nil {
				return err
			}
		}
		began, stalls := time.Now(), s.stalls
		err := c.copyChunk(ctx, s, ch, true)
		if err != nil && !errors.Is(err, errCatchUpFirst) {
			return err
		}
		took = time.Since(began)
		if err := c.markCopied(prev); err != nil {
			return err
		}
		prev = &copiedChunk{ch: ch, deferred: err != nil, settles: s.takeSettling()}
		if len(prev.settles) == 0 { // no tracker: nothing to wait for
			_ = c.markCopied(prev)
			prev = nil
		}
		if a := c.cfg.Adaptive; a != nil {
			c.cfg.Knobs.adaptChunkSize(a.Next(ch.size, took, s.stalls != stalls))
		}
		c.chunks.Add(1)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.markCopied(prev)
}

// copiedChunk is a chunk copied by a session whose settles may still run.
type copiedChunk struct {
	ch       chunk
	deferred bool // rows were missing: copied again after the last chunk
	settles  []chan error
}

// markCopied waits for the settles of p (nil: nothing to do) and marks it proven or deferred.
func (c *Copier) markCopied(p *copiedChunk) error {
	if p == nil {
		return nil
	}
	if err := settled(p.settles); err != nil {
		return err
	}
	if p.deferred {
		c.complete.deferChunk(p.ch)
	} else {
		c.complete.proven(p.ch)
	}
	return nil
}

// copyDeferred copies again, once the applier has caught up, the chunks that had rows missing
// from the ghost: rows the applier had yet to write, or rows that clashed on a new unique key with
// a row the applier had written in an older state. Waiting for the applier once for all of them,
// rather than once per chunk, keeps a lagging applier from slowing every such chunk by its lag
// (and the lag from growing while the copy waits).
// They are few (a busy table's chunks that met the applier), so one session copies them.
func (c *Copier) copyDeferred(ctx context.Context, s *session, deferred []chunk) error {
	if len(deferred) == 0 {
		return nil
	}
	c.log.Info().Int("chunks", len(deferred)).Msg("chunks with rows missing from the ghost: copying them again once the applier has caught up")
	if err := c.awaitCatchUp(ctx); err != nil {
		return fmt.Errorf("row copy: wait for the applier before copying %d chunks again: %w", len(deferred), err)
	}
	var took time.Duration
	for _, ch := range deferred {
		if err := c.cfg.Throttler.Wait(ctx, took); err != nil {
			return err
		}
		began := time.Now()
		err := c.copyChunk(ctx, s, ch, false)
		if serr := settled(s.takeSettling()); err == nil {
			err = serr
		}
		if err != nil {
			return err
		}
		took = time.Since(began)
	}
	return nil
}

// session is one copy session: its connection, and the count of its chunk attempts rolled back by
// a lock wait timeout or a deadlock (the adaptive chunk size backs off after one).
type session struct {
	conn          *sql.Conn
	stalls        int64
	maxErrorCount int          // how many warnings SHOW WARNINGS lists on conn
	settling      []chan error // settles started for the chunk being copied (copycheck.go)
}

// openSessions opens n copy sessions: connections of their own, from one pool, with
// multi-statements on (see copyOnce) and max_error_count raised. closeSessions closes them and
// their pool.
func (c *Copier) openSessions(ctx context.Context, n int) (sessions []*session, closeSessions func(), err error) {
	dc := c.cfg.Primary
	dc.MultiStatements = true
	db, err := dbconn.Open(ctx, dc, "")
	if err != nil {
		return nil, nil, err
	}
	closeSessions = func() {
		for _, s := range sessions {
			s.conn.Close()
		}
		db.Close()
	}
	for range n {
		conn, err := db.Conn(ctx)
		if err != nil {
			closeSessions()
			return nil, nil, fmt.Errorf("connect: %w", err)
		}
		s := &session{conn: conn}
		sessions = append(sessions, s)
		if c.cfg.Tracker != nil { // a consistent read of the original: no row locks (copycheck.go)
			if _, err := conn.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"); err != nil {
				closeSessions()
				return nil, nil, fmt.Errorf("set the copy session's isolation level: %w", err)
			}
		}
		if err := c.errorCount(ctx, s); err != nil {
			closeSessions()
			return nil, nil, err
		}
	}
	return sessions, closeSessions, nil
}
