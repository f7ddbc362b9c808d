// Package checksum proves, before the cut-over, that the ghost table holds what the server's own
// ALTER would make of the original's rows: it compares both tables chunk by chunk over the shared
// key (COUNT(*) and a BIT_XOR of each row's SHA1 (SHA2 on MySQL) folded to 64 bits, per range, on both sides),
// reading both in one consistent snapshot, and repairs a chunk that differs by copying it again.
// Where a shared key column changes type, character set or collation (other than an integer
// widened), the ghost's rows are not in the original's key order: both tables are then compared
// as one range, the whole table (the aggregate is order-independent), and repaired whole.
//
// Invariants:
//   - both tables are read in one InnoDB snapshot opened while the original is locked for reads
//     (LOCK TABLES ... READ, a short lock_wait_timeout) and the binlog applier has applied every
//     change written before the lock: the two sides are the same moment of the data. The lock is
//     released as soon as the snapshot is open; the applier never stops;
//   - a column is compared only through an expression that gives exactly what the ALTER stores
//     (columns.go, each proven against the server's ALTER); the others are left out, never
//     compared approximately, and named in Result.Skipped (the run's summary names them);
//   - the per-row hash is not linear (no structured difference between rows cancels in the
//     BIT_XOR) and hashes an encoding that reads back one way only: a value that may hold any
//     character is prefixed with its length, a NULL never hashes like an empty string (a NULL
//     marker per column), a FLOAT or DOUBLE is read with every bit of its value;
//   - the original is only read (under shared locks while a chunk is repaired); a repair writes
//     the ghost's rows of one key range in one transaction;
//   - a chunk that still differs after Rounds repairs fails the run, naming its key range;
//   - a shared key that changes is compared only when each of its columns is compared exactly
//     (then every row's hash holds its key, unique on both sides, and the one range's COUNT and
//     BIT_XOR do not depend on the rows' order); otherwise New returns ErrKeyChanges.
package checksum

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/copier"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Config is what one checksum needs to know.
type Config struct {
	// Primary is the server both tables are on: the checksum opens a small pool of its own there
	// (the lock session, the snapshot session, the repair session).
	Primary dbconn.Config
	// Flavor chooses the digest of the row hash (dbconn.Flavor.Digest64SQL) and the expressions
	// that reproduce the server's conversions where the flavors differ (see conversion).
	Flavor dbconn.Flavor

	Original   *table.Table
	Ghost      *table.Table // the ghost as inspected after the ALTER
	GhostTable string       // its name, in Original's schema
	// OriginalKey is the shared key as the original has it: the chunks walk it.
	OriginalKey table.Key
	Pairs       []Pair // the columns the copy fills

	// ChunkSize is the copy's rows per chunk, read once when the checksum starts: a differing
	// range is narrowed down to chunks of this size (aligned on the copy's walk) before repair.
	ChunkSize func() int
	// Rows estimates the original's rows (0: unknown). With a shared key of one integer column,
	// the full pass cuts its ranges by key values sized from it instead of walking the key.
	Rows func() int64
	// RangeChunks is how many chunks one comparison reads per table in one statement (10 when
	// unset): fewer, bigger statements; a differing range is bisected down to single chunks.
	RangeChunks int
	// Sessions is how many sessions compare ranges in parallel (3 when unset), each in a snapshot
	// of its own, all opened under the same lock: they all see the same moment of the data.
	Sessions    int
	LockTimeout time.Duration // lock_wait_timeout of the original's read lock
	// LockAttempts is how often the read lock is tried before the checksum fails (--default-retries,
	// as the cut-over's; 5 when unset): a session holding the original's rows in an open
	// transaction keeps it waiting, so the bound is LockAttempts x LockTimeout plus short pauses.
	LockAttempts int
	// CatchUpTimeout bounds the wait for the applier while the original is locked.
	CatchUpTimeout time.Duration
	// Rounds is how often a differing chunk is repaired before the run fails.
	Rounds int
	// CatchUp waits until the applier has applied every change written before the call.
	CatchUp copier.CatchUp
	Logger  zerolog.Logger
	Test    TestHooks
}

// TestHooks are seams for tests; the command line never sets them.
type TestHooks struct {
	// BeforeSnapshot runs before each snapshot: round 0 is the full comparison, round n the n-th
	// re-check after repairs.
	BeforeSnapshot func(ctx context.Context, round int) error
}

// Result is what a checksum found.
type Result struct {
	Ranges   int64         // comparison ranges of the full pass (RangeChunks chunks each)
	Rows     int64         // rows of the original compared
	Repaired int           // chunk repairs made
	Skipped  []string      // columns not compared, "name: why"
	LockHeld time.Duration // the longest time the original was locked
	Took     time.Duration
}

// ErrMismatch marks a chunk that still differs after every repair.
var ErrMismatch = errors.New("checksum mismatch")

// Checksum compares the original and the ghost (see the package comment).
type Checksum struct {
	cfg      Config
	log      zerolog.Logger
	ranges   *copier.Ranges
	cols     []compared
	origKey  []string // quoted key columns of the original
	ghostKey []string // quoted ghost columns receiving them
	from     string   // the original, its key forced
	ghost    string   // the ghost, its matching key forced when it has one
	db       *sql.DB
	leaf     int // rows per chunk: what a repair copies again
	size     int // rows per comparison range, a multiple of leaf
	// min and max are the original's smallest and largest keys in the current full pass's
	// snapshot, set by the walk before it hands out the first range.
	min, max []sql.RawBytes
	// whole, when not empty, is how the shared key changes: the tables are compared as one
	// range without bounds and repaired whole (see planKey).
	whole string
	mu    sync.Mutex // guards res during a round
	res   Result
}

// New checks cfg and plans the comparison: which columns, through which expressions.
func New(cfg Config) (*Checksum, error) {
	if cfg.Rounds < 1 {
		cfg.Rounds = 3
	}
	if cfg.RangeChunks < 1 {
		cfg.RangeChunks = 10
	}
	if cfg.Sessions < 1 {
		cfg.Sessions = 3
	}
	if cfg.CatchUp == nil || cfg.ChunkSize == nil || cfg.Original == nil || cfg.Ghost == nil {
		return nil, errors.New("checksum: tables, chunk size and catch-up are required")
	}
	r, err := copier.NewRanges(cfg.Original, cfg.OriginalKey)
	if err != nil {
		return nil, fmt.Errorf("checksum: %w", err)
	}
	c := &Checksum{cfg: cfg, ranges: r, from: r.From(), log: cfg.Logger.With().Str("component", "checksum").Logger()}
	cols, skip, err := plan(cfg.Original, cfg.Ghost, cfg.Pairs, cfg.Flavor)
	if err != nil {
		return nil, err
	}
	c.cols = cols
	for _, s := range skip {
		c.res.Skipped = append(c.res.Skipped, s.name+": "+s.why)
	}
	if err := c.planKey(); err != nil {
		return nil, err
	}
	return c, nil
}

// planKey maps the shared key's columns to the ghost's and picks the ghost's index for them.
// The ghost is read in the same key ranges where each key column keeps its values' order there
// (the same type, character set and collation, integers, or a string only widened). Where one does not, the ghost's rows
// are in another order, and keys distinct in one table may even be equal in the other: the
// tables are then compared as one range (c.whole), which needs every key column compared exactly.
func (c *Checksum) planKey() error {
	toGhost := map[string]string{}
	for _, p := range c.cfg.Pairs {
		toGhost[strings.ToLower(p.Original)] = p.Ghost
	}
	var ghostCols, changes []string
	for _, oc := range c.ranges.Columns() {
		g, ok := toGhost[strings.ToLower(oc.Name)]
		if !ok && oc.Generated { // a generated key column both tables compute (plan's generatedTwins)
			g, ok = oc.Name, true
		}
		gc, ok2 := c.cfg.Ghost.Column(g)
		if !ok || !ok2 {
			return fmt.Errorf("checksum: shared key column %s is not copied to the ghost", oc.Name)
		}
		same := oc.ColumnType == gc.ColumnType && oc.Charset == gc.Charset && oc.Collation == gc.Collation
		if !same && !(isInteger(oc) && isInteger(gc)) && !widenedString(oc, gc) {
			changes = append(changes, fmt.Sprintf("shared key column %s changes from %s to %s", oc.Name, describeKey(oc), describeKey(gc)))
		}
		c.origKey = append(c.origKey, table.QuoteIdent(oc.Name))
		c.ghostKey = append(c.ghostKey, table.QuoteIdent(gc.Name))
		ghostCols = append(ghostCols, gc.Name)
	}
	c.ghost = table.Qualify(c.cfg.Original.Schema, c.cfg.GhostTable)
	if len(changes) > 0 {
		c.whole = strings.Join(changes, "; ")
		return c.keyCompared()
	}
	for _, k := range c.cfg.Ghost.UniqueKeys {
		if !k.HasPrefix && len(k.Columns) >= len(ghostCols) && strings.EqualFold(strings.Join(k.Columns[:len(ghostCols)], ","), strings.Join(ghostCols, ",")) {
			c.ghost += fmt.Sprintf(" FORCE INDEX (%s)", table.QuoteIdent(k.Name))
			break
		}
	}
	return nil
}

// widenedString says key column o becomes g only longer, of the same string type, character set
// and collation (VARCHAR(20) to VARCHAR(40)): every value stays as it is and keeps its order
// and its equals, so the ghost is read in the original's key ranges. Not BINARY(n), whose values
// are padded to n bytes.
func widenedString(o, g *table.Column) bool {
	switch o.DataType {
	case "varchar", "char", "varbinary":
		return g.DataType == o.DataType && g.Charset == o.Charset && g.Collation == o.Collation && g.OctetLength >= o.OctetLength
	}
	return false
}

// keyCompared checks, for a changing key (c.whole), that each key column is in every row's hash
// through an exact conversion: a row is then told from every other by its hash's input on both
// sides, whatever order either table keeps. It returns ErrKeyChanges, with why, otherwise.
func (c *Checksum) keyCompared() error {
	for _, oc := range c.ranges.Columns() {
		found := false
		for _, col := range c.cols {
			found = found || strings.EqualFold(col.name, oc.Name)
		}
		if !found {
			return fmt.Errorf("%w: %s, and column %s is not compared exactly (see the columns not compared)", ErrKeyChanges, c.whole, oc.Name)
		}
	}
	return nil
}

// describeKey is describe with the collation, which decides which keys are equal.
func describeKey(c *table.Column) string {
	if c.Collation != "" {
		return describe(c) + " " + c.Collation
	}
	return describe(c)
}

// ErrKeyChanges marks a shared key whose type changes and that the checksum cannot compare
// exactly (a key column left out: see keyCompared): the checksum does not run (the migration goes
// on without it).
var ErrKeyChanges = errors.New("the checksum cannot run")

// Run compares both tables, repairs the chunks that differ and compares those again, up to
// Rounds times. It fails, wrapping ErrMismatch and naming the key range, when a chunk still
// differs after the last repair.
func (c *Checksum) Run(ctx context.Context) (Result, error) {
	start := time.Now()
	for _, s := range c.res.Skipped {
		c.log.Warn().Str("column", s).Msg("column not compared by the checksum")
	}
	db, err := dbconn.Open(ctx, c.cfg.Primary, "")
	if err != nil {
		return c.res, fmt.Errorf("checksum: %w", err)
	}
	defer db.Close()
	c.db = db
	c.leaf = max(1, c.cfg.ChunkSize())
	c.size = c.leaf * c.cfg.RangeChunks
	if c.whole != "" {
		c.log.Info().Str("key_change", c.whole).Msg("checksum: the shared key changes (its rows are in another order in the ghost): the tables are compared as one range, and repaired whole if they differ")
	}
	bad, err := c.round(ctx, 0, nil)
	for round := 1; err == nil && len(bad) > 0; round++ {
		if round > c.cfg.Rounds {
			err = c.persistent(bad)
			break
		}
		for _, sp := range bad {
			msg := "checksum: chunk differs; copying it again"
			if c.whole != "" {
				msg = "checksum: the tables differ; copying the whole table again"
			}
			c.log.Warn().Str("keys", c.describe(sp)).Int("round", round).Msg(msg)
			if err = c.repair(ctx, sp); err != nil {
				break
			}
			c.res.Repaired++
		}
		if err == nil {
			bad, err = c.round(ctx, round, bad)
		}
	}
	c.res.Took = time.Since(start)
	return c.res, err
}

// persistent is the error for chunks that still differ after every repair.
func (c *Checksum) persistent(bad []span) error {
	keys := make([]string, 0, len(bad))
	for i, sp := range bad {
		if i == 10 {
			keys = append(keys, fmt.Sprintf("and %d more", len(bad)-i))
			break
		}
		keys = append(keys, c.describe(sp))
	}
	if c.whole != "" {
		return fmt.Errorf("%w: %s and %s still differ after %d repairs of the whole table (%s: compared as one range); the original is untouched",
			ErrMismatch, c.cfg.Original.Name, c.cfg.GhostTable, c.cfg.Rounds, c.whole)
	}
	return fmt.Errorf("%w: %s and %s still differ after %d repairs in key ranges %s of %s; the original is untouched",
		ErrMismatch, c.cfg.Original.Name, c.cfg.GhostTable, c.cfg.Rounds, strings.Join(keys, "; "), c.cfg.OriginalKey.Name)
}
