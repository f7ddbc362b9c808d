// Package binlogapply streams the row-based binary log (go-mysql's BinlogSyncer) and applies every
// change made to the original table onto the ghost table, in binlog order.
//
// CONTRACT (used by migrator; keep these signatures):
//
//	CurrentPosition(ctx, db, flavor) (Position, error)
//	New(Config) (*Applier, error); (*Applier).Run(ctx) error
//	(*Applier).ExpectSentinel(value) <-chan struct{}
//	(*Applier).Stats() Stats
//	(*Applier).Displaced() DisplacedRows
//
// Invariants:
//   - Changes are applied in binlog order; a batch (one transaction on the ghost) holds at most
//     DMLBatchSize row changes, and statements inside a batch are merged only where the order of the
//     operations on any one key is preserved.
//   - An insert or update is applied as "delete by shared key, then plain INSERT of the full after
//     image" — never REPLACE or INSERT IGNORE. A clash on another unique key of the ghost moves
//     the clashing ghost rows aside ("displaced rows", displaced.go) until a repair can put them
//     back; Displaced reports those that stay. Any warning on an applied statement stops Run,
//     and so does one with more warnings than SHOW WARNINGS lists (checkWarnings).
//     Rows are never dropped or altered silently.
//   - The original table is never read; values come only from row images, decoded with the
//     original's column model (signedness, charset, ENUM/SET members) and written over a session
//     with a binary connection charset, UTC time zone and strict sql_mode (dbconn's writer DSN).
//   - A MySQL JSON value is written with every scalar type its binary JSON holds (a DECIMAL stays a
//     DECIMAL: jsonbin.go, jsonwrite.go); a partial JSON update is applied to the before image's
//     document and written as the whole after image (jsondiff.go, jsonlayout.go).
//   - Generated columns and columns absent from ColumnMap are never written.
//   - A column changed between TIMESTAMP and DATETIME/DATE is converted in Config.TimeZone (the
//     server's global zone), with the same SQL expression as the row copy (table.ZoneExpr).
//   - A sentinel's channel is closed only after every change read before the sentinel has been
//     committed to the ghost; Stats.Applied is the end of the last transaction fully committed.
//   - A transaction's changes are queued only at its real end (XID, COMMIT, or XA COMMIT of a
//     prepared XA transaction); what ROLLBACK, ROLLBACK TO SAVEPOINT or XA ROLLBACK undoes is
//     dropped (txnbuf.go). Only a large transaction that cannot roll back is streamed before its end.
//   - A dropped binlog connection is re-established at the end of the last transaction read, and
//     rows of a partially read transaction that were already queued are skipped, so no change is
//     lost or applied twice. A DDL touching the original stops Run (ErrOriginalAltered); so do a
//     row change of the original logged as a statement (ErrStatementLogged) and someone else's
//     change of a helper table (ErrHelperChanged, stmtwatch.go).
//   - Row data is never logged.
package binlogapply

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// ErrOriginalAltered is wrapped by the error Run returns when a DDL statement touching the original
// table is read from the binary log (including the RENAME of a cut-over: callers that stop the
// applier after the cut-over may ignore it with errors.Is).
var ErrOriginalAltered = errors.New("the original table was altered during the migration")

// Position is where a binlog reader stands: file and offset, and the GTID set when GTIDs are used.
type Position struct {
	File string
	Pos  uint32
	GTID string // MariaDB "0-1-5" style, or MySQL's executed set; empty when not used
}

// String is "file:pos" with the GTID set when known; it carries no row data.
func (p Position) String() string {
	if p.GTID == "" {
		return fmt.Sprintf("%s:%d", p.File, p.Pos)
	}
	return fmt.Sprintf("%s:%d (gtid %s)", p.File, p.Pos, p.GTID)
}

// CurrentPosition reads the server's current binlog position (and GTID position).
func CurrentPosition(ctx context.Context, db *sql.DB, f dbconn.Flavor) (Position, error) {
	var p Position
	rows, err := db.QueryContext(ctx, f.BinlogStatusSQL())
	if err != nil {
		return p, fmt.Errorf("read binlog position (%s): %w", f.BinlogStatusSQL(), err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return p, fmt.Errorf("read binlog position: %w", err)
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return p, fmt.Errorf("read binlog position: %w", err)
		}
		return p, errors.New("read binlog position: the server has no binary log (log_bin is off)")
	}
	vals := make([]sql.NullString, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := rows.Scan(dest...); err != nil {
		return p, fmt.Errorf("read binlog position: %w", err)
	}
	var havePos bool
	for i, c := range cols {
		switch strings.ToLower(c) {
		case "file":
			p.File = vals[i].String
		case "position":
			var n uint64
			if _, err := fmt.Sscan(vals[i].String, &n); err != nil || n > 1<<32-1 {
				return p, fmt.Errorf("read binlog position: bad position %q", vals[i].String)
			}
			p.Pos, havePos = uint32(n), true
		}
	}
	if p.File == "" || !havePos {
		return p, fmt.Errorf("read binlog position: %s has no File/Position columns", f.BinlogStatusSQL())
	}
	rows.Close()
	var gtid sql.NullString
	if err := db.QueryRowContext(ctx, f.GTIDPositionSQL()).Scan(&gtid); err != nil {
		return p, fmt.Errorf("read gtid position: %w", err)
	}
	p.GTID = strings.ReplaceAll(strings.TrimSpace(gtid.String), "\n", "")
	return p, nil
}

// Config is what an Applier needs.
type Config struct {
	Source   dbconn.Config // the server whose binary log is read
	Flavor   dbconn.Flavor
	ServerID uint32 // unique server id of our reader (--replica-server-id)
	UseGTID  bool   // position by GTID (--gtid)
	Start    Position

	Target *sql.DB // pool on the primary with dbconn's writer session settings, default schema Schema; writes go to the ghost
	// OnRebuilt, when set, hears the name of each table of Schema that an OPTIMIZE TABLE read from
	// the binary log rebuilt (a new table id, the same rows): the run's record of which tables are
	// its own follows (migrator). Called on the reading goroutine, before the swap only.
	OnRebuilt func(table string)
	// OneTrip says Target's sessions accept several statements per round trip
	// (dbconn.Config.MultiStatements): a batch is then sent in one round trip (onetrip.go).
	OneTrip bool

	Schema    string
	Original  *table.Table      // the original table: row images are decoded with its columns
	Ghost     *table.Table      // the ghost table: values are written into its columns
	ColumnMap map[string]string // original column name -> ghost column name; only these are written
	// Fills are ghost columns written with a fixed expression in every inserted row (columns the
	// ALTER adds NOT NULL without a DEFAULT get their implicit default, as the server's ALTER gives).
	Fills     []table.Fill
	SharedKey []string // original-side column names of the shared unique key
	// KeyByBytes are the ghost columns of the shared key whose collation differs from the
	// original's so that keys distinct in one table may be equal in the other (plan's
	// ComparedByBytes): ghost rows are addressed by their exact bytes there, and a replayed row
	// that clashes on the shared key with a row of other bytes displaces it, as on a new unique key.
	KeyByBytes []string
	// TimeZone is the server's global time_zone: a column changed between TIMESTAMP and
	// DATETIME/DATE is converted in it, as the server's own ALTER does (table.ZoneShiftOf).
	// Empty means '+00:00'.
	TimeZone string
	// PadChar is true when the server's global sql_mode has PAD_CHAR_TO_FULL_LENGTH: a CHAR value
	// written to a ghost column of another type is padded to its length, as the server's own ALTER
	// reads it (the binlog carries it unpadded; table.PadChar).
	PadChar bool
	// NoZeroDate and NoZeroInDate say the Target sessions' sql_mode has NO_ZERO_DATE and
	// NO_ZERO_IN_DATE (dbconn.Config): a zero date going into a number or a TIME is then written
	// from its text, as the server's ALTER converts it (zerodate.go).
	NoZeroDate, NoZeroInDate bool
	Changelog                string // the changelog table's name in Schema
	// Checkpoint is the checkpoint table's name in Schema ("" without one): like the ghost and the
	// changelog, someone else's DDL of it, or row change logged as a statement, stops Run.
	Checkpoint string
	// IndirectWriters are views over the original and tables whose triggers write it: a row
	// change of one of them logged as a statement stops Run like one of the original
	// (stmtwatch.go; row-logged, it reaches the binlog as the original's rows).
	IndirectWriters []IndirectWriter
	// OwnTriggers are the triggers the run creates on the ghost under the cut-over's lock
	// (--include-triggers): their CREATE TRIGGER is accepted during the cut-over.
	OwnTriggers []string

	DMLBatchSize int // events per applying transaction (--dml-batch-size)
	Logger       zerolog.Logger

	// HeartbeatPeriod asks the source for a heartbeat when idle (zero: 1s); ReadTimeout drops a
	// silent connection (zero: 5s, must exceed HeartbeatPeriod).
	HeartbeatPeriod time.Duration
	ReadTimeout     time.Duration
	// ReconnectAttempts bounds consecutive failed reconnections (zero: 10); ReconnectDelay is the
	// pause before each (zero: 500ms).
	ReconnectAttempts int
	ReconnectDelay    time.Duration

	// MaxDisplaced bounds the ghost rows displaced at once (zero: 100000); beyond it Run fails.
	// RepairInterval is the least time between two repairs of displaced rows at heartbeats (zero:
	// 1s); a sentinel always triggers one.
	MaxDisplaced   int
	RepairInterval time.Duration

	// MaxTxnBytes bounds the memory (estimated) that the reader holds for the open transaction and
	// the prepared XA transactions until their ends (zero: 256 MiB); see txnbuf.go.
	MaxTxnBytes int

	// RenamesAtStart says Start is the position a cut-over read under its lock (a --revert
	// streams from it): the plain RENAMEs of that cut-over, which follow it, are accepted until
	// the first row event of Original is read, instead of stopping Run (cutover.go).
	RenamesAtStart bool
}

// Stats is a snapshot of the applier's progress.
type Stats struct {
	EventsApplied int64     // row changes applied to the ghost
	Transactions  int64     // transactions the row changes were applied in (batches)
	Backlog       int       // row changes read and decoded but not applied yet (at most the queue size, >= 2048)
	Applied       Position  // position after the last applied transaction
	LastHeartbeat time.Time // writer time of the last heartbeat seen in the changelog (UTC)
	Reconnects    int64     // binlog connections re-established after a failure
	Displaced     int       // ghost rows moved aside by a clash on a unique key, not put back yet
}

// IndirectWriter is a view or a table whose writes may write the original; Why says how.
type IndirectWriter struct{ Schema, Name, Why string }

// queueMin is the least number of items (row changes and markers) queued between reader and applier.
const queueMin = 2048

// Applier streams and applies.
type Applier struct {
	cfg  Config
	log  zerolog.Logger
	plan *plan
	ran  atomic.Bool

	backlog     atomic.Int64
	dumpConnID  atomic.Uint32 // server connection id of the current binlog dump (diagnostics, tests)
	skippedRows atomic.Int64  // rows re-read after a reconnect and skipped (already queued)
	batchSize   atomic.Int64  // row changes per applying transaction (SetDMLBatchSize)
	cutOver     atomic.Bool   // the tool's own RENAMEs of the original are expected (cutover.go)
	swapped     atomic.Bool   // the ghost has taken the original's name: its rows are not ours
	swapDone    chan struct{} // closed once everything read before that RENAME is applied (Swapped)
	swapOnce    sync.Once
	originalRow atomic.Bool // a row event of the original was read (Config.RenamesAtStart)
	// helpersSettled: a sentinel this run wrote was read; the helper tables are watched (stmtwatch.go)
	helpersSettled atomic.Bool

	displaced *displacedSet // used by the applying goroutine only
	track     tracker       // keys written while a chunk is copied (track.go)
	late      lateRows      // changes of the original after a cut-over's sentinel (laterows.go)

	// holds carries Hold's requests to the applying goroutine; held is the Hold in force;
	// stopped is closed when Run returns (locked.go).
	holds   chan *holdState
	held    atomic.Pointer[holdState]
	stopped chan struct{}

	// afterEvent, when set (tests only, before Run), runs after each event is handled; an error
	// drops the binlog connection there, as a lost connection would.
	afterEvent func(*replication.BinlogEvent) error

	mu            sync.Mutex
	stats         Stats
	displacedRows DisplacedRows // as of the last repair
	sentinels     map[string]chan struct{}
	seen          map[string]bool // sentinels already applied
}

// New checks cfg and returns an Applier; nothing is connected until Run.
func New(cfg Config) (*Applier, error) {
	switch {
	case cfg.ServerID == 0:
		return nil, errors.New("binlogapply: ServerID must not be 0")
	case cfg.Target == nil:
		return nil, errors.New("binlogapply: Target is nil")
	case cfg.Original == nil || cfg.Ghost == nil:
		return nil, errors.New("binlogapply: Original and Ghost tables are required")
	case cfg.Schema == "" || cfg.Changelog == "":
		return nil, errors.New("binlogapply: Schema and Changelog are required")
	case cfg.Source.Host == "" || cfg.Source.Port <= 0 || cfg.Source.Port > 65535:
		return nil, errors.New("binlogapply: Source host and port are required")
	case cfg.UseGTID && cfg.Start.GTID == "":
		return nil, errors.New("binlogapply: UseGTID needs Start.GTID")
	case !cfg.UseGTID && cfg.Start.File == "":
		return nil, errors.New("binlogapply: Start.File is required without GTID")
	}
	if cfg.DMLBatchSize <= 0 {
		cfg.DMLBatchSize = 10
	}
	if cfg.HeartbeatPeriod <= 0 {
		cfg.HeartbeatPeriod = time.Second
	}
	if cfg.ReadTimeout <= cfg.HeartbeatPeriod {
		cfg.ReadTimeout = 5 * cfg.HeartbeatPeriod
	}
	if cfg.ReconnectAttempts <= 0 {
		cfg.ReconnectAttempts = 10
	}
	if cfg.ReconnectDelay <= 0 {
		cfg.ReconnectDelay = 500 * time.Millisecond
	}
	if cfg.MaxDisplaced <= 0 {
		cfg.MaxDisplaced = 100000
	}
	if cfg.RepairInterval <= 0 {
		cfg.RepairInterval = time.Second
	}
	if cfg.MaxTxnBytes <= 0 {
		cfg.MaxTxnBytes = 256 << 20
	}
	p, err := newPlan(&cfg)
	if err != nil {
		return nil, fmt.Errorf("binlogapply: %w", err)
	}
	a := &Applier{
		cfg:       cfg,
		log:       cfg.Logger.With().Str("component", "binlogapply").Logger(),
		plan:      p,
		displaced: newDisplacedSet(&cfg, p),
		sentinels: map[string]chan struct{}{},
		seen:      map[string]bool{},
		holds:     make(chan *holdState),
		track:     newTracker(),
		swapDone:  make(chan struct{}),
		stopped:   make(chan struct{}),
	}
	a.stats.Applied = cfg.Start
	a.SetDMLBatchSize(cfg.DMLBatchSize)
	return a, nil
}

// DMLBatchSize is the most row changes applied in one transaction on the ghost.
func (a *Applier) DMLBatchSize() int { return int(a.batchSize.Load()) }

// SetDMLBatchSize changes the most row changes per applying transaction from the next batch on
// (an operator's dml-batch-size=); values below 1 are taken as 1.
func (a *Applier) SetDMLBatchSize(n int) { a.batchSize.Store(int64(max(n, 1))) }

// Run streams from cfg.Start and applies until ctx ends (returns nil) or an error that cannot be
// retried (returns it). A dropped binlog connection is re-established at the last applied position.
// Run may be called once.
func (a *Applier) Run(ctx context.Context) error {
	if !a.ran.CompareAndSwap(false, true) {
		return errors.New("binlogapply: Run called twice")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer close(a.stopped)
	// Bounded: when the applier falls behind, the reader (and then the server) waits. Backlog
	// therefore saturates near the queue's size.
	queue := make(chan item, max(queueMin, 16*a.cfg.DMLBatchSize))
	errc := make(chan error, 2)
	go func() { errc <- a.read(ctx, queue) }()
	go func() { errc <- a.apply(ctx, queue) }()

	var first error
	for range 2 {
		err := <-errc
		if err != nil && first == nil && ctx.Err() == nil {
			first = err
		}
		cancel()
	}
	// The error is not logged here: it may quote a key value (a duplicate entry); the caller decides.
	return first
}

// ExpectSentinel registers interest in the changelog sentinel row carrying value. The returned
// channel is closed once that row has been read AND every change read before it has been committed
// to the ghost. Register before writing the sentinel (a sentinel already applied returns a closed
// channel).
func (a *Applier) ExpectSentinel(value string) <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch, ok := a.sentinels[value]
	if !ok {
		ch = make(chan struct{})
		if a.seen[value] {
			close(ch)
		}
		a.sentinels[value] = ch
	}
	return ch
}

// sentinelApplied closes the channel of value (creating it closed when nobody waits yet).
func (a *Applier) sentinelApplied(value string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.seen[value] {
		return
	}
	a.seen[value] = true
	if ch, ok := a.sentinels[value]; ok {
		close(ch)
	}
}

// Stats returns a snapshot of progress.
func (a *Applier) Stats() Stats {
	a.mu.Lock()
	s := a.stats
	a.mu.Unlock()
	s.Backlog = int(a.backlog.Load())
	return s
}
