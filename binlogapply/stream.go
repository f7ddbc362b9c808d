package binlogapply

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// itemKind says what a queue item carries from the reader to the applier, in binlog order.
type itemKind int

const (
	itemChange    itemKind = iota // a row change of the original
	itemPosition                  // the end of a transaction: position to report once applied
	itemHeartbeat                 // a changelog heartbeat (writer time)
	itemSentinel                  // a changelog sentinel
	itemFatal                     // stop: everything before it is applied first, then Run fails
	itemSwap                      // the cut-over's RENAME that put the ghost in the original's place (value: its position)
)

type item struct {
	kind  itemKind
	ch    *change
	pos   Position
	hb    time.Time
	value string
	err   error
}

// fatal marks an error that reconnecting cannot fix.
type fatal struct{ err error }

func (f fatal) Error() string { return f.err.Error() }
func (f fatal) Unwrap() error { return f.err }

// reader turns binlog events into queue items. It tracks the end of the last transaction read,
// where a new connection resumes, and how many rows of the current transaction were already queued.
type reader struct {
	a        *Applier
	q        chan<- item
	file     string        // current binlog file
	resume   Position      // end of the last transaction read
	gset     mysql.GTIDSet // GTID position after resume (nil when unknown)
	txnGTID  string        // GTID of the transaction being read
	txnRows  int           // rows of interest of the current transaction queued or skipped on this connection
	txnSent  int           // rows of interest of the current transaction already queued (any connection)
	txn      txnBuf        // what the open transaction holds until its end (txnbuf.go)
	prepared map[string]*preparedXA
	xaBytes  int          // bytes held by prepared
	lastPos  uint32       // end of the last event read (0 inside transactions on MariaDB 11.4+)
	slogger  *slog.Logger // go-mysql's logger
	flavor   string       // go-mysql flavor name
	// gtidCommits: a MySQL group with a GTID of its own cannot end in a rollback unless it is an XA
	// transaction (dbconn.Flavor.GTIDGroupsCommit, read from the source at each connection).
	gtidCommits bool
}

func (a *Applier) read(ctx context.Context, q chan<- item) error {
	r := &reader{a: a, q: q, resume: a.cfg.Start, file: a.cfg.Start.File, flavor: mysql.MySQLFlavor,
		prepared: map[string]*preparedXA{}}
	if a.cfg.Flavor.MariaDB {
		r.flavor = mysql.MariaDBFlavor
	}
	if a.cfg.Start.GTID != "" {
		gs, err := mysql.ParseGTIDSet(r.flavor, a.cfg.Start.GTID)
		if err != nil && a.cfg.UseGTID {
			return fmt.Errorf("parse start gtid %q: %w", a.cfg.Start.GTID, err)
		}
		if err == nil {
			r.gset = gs
		}
	}
	gl := a.log.With().Str("lib", "go-mysql").Logger().Level(max(zerolog.WarnLevel, a.log.GetLevel()))
	r.slogger = slog.New(zerolog.NewSlogHandler(gl))

	failures, ran := 0, false
	for {
		progressed, err := r.session(ctx)
		ran = ran || progressed
		if ctx.Err() != nil {
			return nil
		}
		var f fatal
		if errors.As(err, &f) {
			// Apply what was read before the failure, then stop.
			select {
			case q <- item{kind: itemFatal, err: f.err}:
			case <-ctx.Done():
			}
			<-ctx.Done()
			return nil
		}
		if progressed {
			failures = 0
		}
		failures++
		if failures > a.cfg.ReconnectAttempts {
			// A server that streamed and then stopped answering went away (a restart, a stop):
			// say so rather than leave only the last dial error ("nothing listens on that port").
			gone := ""
			if ran {
				gone = "the server stopped answering after the stream had run (restarting or stopped); "
			}
			return fmt.Errorf("binlog stream from %s at %s: %sgiving up after %d attempts (--binlogsyncer-max-reconnect-attempts): %w",
				a.cfg.Source.Addr(), r.resume, gone, a.cfg.ReconnectAttempts, err)
		}
		a.log.Warn().Err(err).Str("resume", r.resume.String()).Int("attempt", failures).
			Msg("binlog connection lost; reconnecting")
		select {
		case <-time.After(a.cfg.ReconnectDelay):
		case <-ctx.Done():
			return nil
		}
		a.mu.Lock()
		a.stats.Reconnects++
		a.mu.Unlock()
	}
}

// session runs one binlog connection until it fails or ctx ends. progressed is true when at least
// one event was received.
func (r *reader) session(ctx context.Context) (progressed bool, err error) {
	cfg := r.a.cfg
	syncer := replication.NewBinlogSyncer(syncerConfig(cfg, r.flavor, r.slogger, r.a.decodeRows))
	defer syncer.Close()
	if r.gtidCommits, err = r.groupsCommit(ctx); err != nil {
		return false, err
	}
	// The stream restarts at the end of the last transaction read: an unfinished one is read again.
	r.txnRows = 0
	r.txn.reset(false)
	var streamer *replication.BinlogStreamer
	if cfg.UseGTID {
		streamer, err = syncer.StartSyncGTID(r.gset.Clone())
	} else {
		streamer, err = syncer.StartSync(mysql.Position{Name: r.resume.File, Pos: r.resume.Pos})
	}
	if err != nil {
		return false, fmt.Errorf("start binlog stream from %s at %s: %w", cfg.Source.Addr(), r.resume, err)
	}
	r.a.dumpConnID.Store(syncer.LastConnectionID())
	r.a.log.Info().Str("source", cfg.Source.Addr()).Str("position", r.resume.String()).Msg("binlog stream started")
	for {
		ev, err := streamer.GetEvent(ctx)
		if err != nil {
			var ee *replication.EventError
			if errors.As(err, &ee) {
				return progressed, fatal{fmt.Errorf("decode binlog event %s at %s:%d: %s",
					ee.Header.EventType, r.file, ee.Header.LogPos, firstLine(ee.Err))}
			}
			return progressed, fmt.Errorf("read binlog from %s: %w", cfg.Source.Addr(), err)
		}
		progressed = true
		if err := r.handle(ctx, ev); err != nil {
			return progressed, err
		}
		if hook := r.a.afterEvent; hook != nil {
			if err := hook(ev); err != nil {
				return progressed, err // as if the connection were lost right after ev
			}
		}
	}
}

// syncerConfig is go-mysql's configuration of the binlog connections of cfg: the settings that
// avoid conversions (FACTS.md), the heartbeat and its read timeout, and --mysql-timeout
// (cfg.Source.Timeout) over the connect, the handshake and every write (dial.go).
func syncerConfig(cfg Config, flavor string, logger *slog.Logger, decode func(*replication.RowsEvent, []byte) error) replication.BinlogSyncerConfig {
	return replication.BinlogSyncerConfig{
		ServerID:                cfg.ServerID,
		Flavor:                  flavor,
		Host:                    cfg.Source.Host,
		Port:                    uint16(cfg.Source.Port),
		User:                    cfg.Source.User,
		Password:                cfg.Source.Password,
		TLSConfig:               cfg.Source.TLSConfig(), // the same TLS as every other connection
		Dialer:                  newConnectBound(cfg.Source.Timeout).dial,
		Option:                  handshakeDone,
		SemiSyncEnabled:         false,
		ParseTime:               false,
		TimestampStringLocation: time.UTC,
		UseDecimal:              false,
		RenderJSONAsMySQLText:   true,
		HeartbeatPeriod:         cfg.HeartbeatPeriod,
		ReadTimeout:             cfg.ReadTimeout,
		DisableRetrySync:        true, // we resume ourselves, at a transaction boundary
		Logger:                  logger,
		RowsEventDecodeFunc:     decode,
	}
}

// handle processes one event. Errors returned are fatal or ctx's.
func (r *reader) handle(ctx context.Context, ev *replication.BinlogEvent) error {
	if ev.Header.LogPos > 0 {
		r.lastPos = ev.Header.LogPos
	}
	switch e := ev.Event.(type) {
	case *replication.RotateEvent:
		r.file = string(e.NextLogName)
		if r.resume.File == "" {
			r.resume.File, r.resume.Pos = r.file, uint32(e.Position)
		}
	case *replication.MariadbGTIDEvent:
		r.txnGTID = e.GTID.String()
		r.txn.reset(e.Flags&replication.BINLOG_MARIADB_FL_TRANSACTIONAL != 0 && e.Flags&(flPreparedXA|flCompletedXA) == 0)
	case *replication.GTIDEvent:
		if next, err := e.GTIDNext(); err == nil {
			r.txnGTID = next.String()
		}
		r.txn.reset(r.gtidCommits && ev.Header.EventType != replication.ANONYMOUS_GTID_EVENT)
	case *replication.XIDEvent:
		return r.endTxn(ctx, ev.Header, true)
	case *replication.QueryEvent:
		return r.query(ctx, ev.Header, string(e.Query), string(e.Schema))
	case *replication.GenericEvent:
		if ev.Header.EventType == replication.XA_PREPARE_LOG_EVENT {
			return r.xaPrepared(ctx, ev.Header, e.Data)
		}
	case *replication.TransactionPayloadEvent:
		return r.payload(ctx, ev.Header, e)
	case *replication.RowsEvent:
		return r.rows(ctx, ev.Header, e)
	}
	return nil
}

// payload handles a compressed transaction (MySQL's binlog_transaction_compression=ON): go-mysql
// has decoded the events it carries (the rows with decodeRows, as outside), and they are handled
// in order like any others. The whole transaction is in the one payload event, so each inner event
// is handled at the payload's position: the end of the transaction, where a reconnect resumes.
func (r *reader) payload(ctx context.Context, h *replication.EventHeader, e *replication.TransactionPayloadEvent) error {
	for _, inner := range e.Events {
		if inner == nil || inner.Header == nil {
			continue
		}
		hdr := *inner.Header
		hdr.LogPos = h.LogPos
		if err := r.handle(ctx, &replication.BinlogEvent{RawData: inner.RawData, Header: &hdr, Event: inner.Event}); err != nil {
			return err
		}
	}
	return nil
}

// groupsCommit asks the source whether its GTID groups always commit (dbconn.Flavor.GTIDGroupsCommit).
func (r *reader) groupsCommit(ctx context.Context) (bool, error) {
	if r.a.cfg.Flavor.MariaDB {
		return false, nil
	}
	db, err := dbconn.Open(ctx, r.a.cfg.Source, "")
	if err != nil {
		return false, err
	}
	defer db.Close()
	return r.a.cfg.Flavor.GTIDGroupsCommit(ctx, db)
}

// MariaDB's GTID event flags for the two halves of an XA transaction (go-mysql names the others).
const (
	flPreparedXA  = 64
	flCompletedXA = 128
)

// query handles a Query event: transaction control (txn.go), or a statement logged as text, which
// ends its group and must not touch the original or a helper table (stmtwatch.go).
func (r *reader) query(ctx context.Context, h *replication.EventHeader, q, schema string) error {
	st := parseTxnControl(q)
	switch st.kind {
	case txnXAStart:
		r.txn.safe = false // an XA transaction may still be rolled back after its group
		return nil
	case txnBegin, txnXAEnd:
		return nil
	case txnSavepoint:
		r.setSavepoint(st.name)
		return nil
	case txnRollbackTo:
		return r.rollbackTo(st.name)
	case txnCommit:
		return r.endTxn(ctx, h, true)
	case txnRollback:
		if r.txn.streaming {
			return fatal{fmt.Errorf("ROLLBACK read at %s:%d ends a transaction that was streamed (too large to hold) "+
				"although the server marked it as unable to roll back: its changes may already be applied", r.file, r.lastPos)}
		}
		return r.endTxn(ctx, h, false)
	case txnXACommit, txnXARollback:
		if err := r.finishXA(ctx, st.xid, st.kind == txnXACommit); err != nil {
			return err
		}
		return r.endTxn(ctx, h, true)
	}
	swappedBefore := r.a.swapped.Load()
	if err := r.judgeStatement(q, schema, h.LogPos); err != nil { // stmtwatch.go
		return err
	}
	if !swappedBefore && r.a.swapped.Load() {
		// The applier learns where the swap is, behind every change read before it (laterows.go).
		if err := r.hold(ctx, item{kind: itemSwap, value: fmt.Sprintf("%s:%d", r.file, h.LogPos)}); err != nil {
			return err
		}
	}
	return r.endTxn(ctx, h, true)
}

// xaPrepared handles the XA_prepare event that ends the group of a prepared XA transaction.
func (r *reader) xaPrepared(ctx context.Context, h *replication.EventHeader, data []byte) error {
	key, onePhase, err := xaPrepare(data)
	if err != nil {
		return fatal{fmt.Errorf("read XA PREPARE at %s:%d: %w", r.file, h.LogPos, err)}
	}
	if onePhase {
		return r.endTxn(ctx, h, true)
	}
	if err := r.prepareXA(key); err != nil {
		return err
	}
	return r.endTxn(ctx, h, true)
}

// endTxn records the end of a transaction (its group in the binlog): what it holds is queued
// (keep) or dropped, a new connection resumes after it, and the applier reports it as applied
// once everything before it is committed.
func (r *reader) endTxn(ctx context.Context, h *replication.EventHeader, keep bool) error {
	if keep {
		if err := r.flushHeld(ctx); err != nil {
			return err
		}
	}
	r.txn.reset(false)
	if r.gset != nil && r.txnGTID != "" {
		if err := r.gset.Update(r.txnGTID); err != nil {
			return fatal{fmt.Errorf("track gtid %s: %w", r.txnGTID, err)}
		}
	}
	if h.LogPos > 0 { // MariaDB 11.4+ may report 0 inside transactions; never at their end
		r.resume.File, r.resume.Pos = r.file, h.LogPos
	}
	if r.gset != nil {
		r.resume.GTID = r.gset.String()
	}
	r.txnGTID, r.txnRows, r.txnSent = "", 0, 0
	return r.send(ctx, item{kind: itemPosition, pos: r.resume})
}

func (r *reader) send(ctx context.Context, it item) error {
	select {
	case r.q <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fresh says whether the next row of interest of this transaction is new, or was already handled
// on a previous connection (a transaction re-read from its start after a reconnect).
func (r *reader) fresh() bool {
	r.txnRows++
	if r.txnRows <= r.txnSent {
		r.a.skippedRows.Add(1)
		return false
	}
	r.txnSent++
	return true
}

// decodeRows is go-mysql's rows decoder: it decodes only the rows of the original and the
// changelog, and leaves other tables' events undecoded (Rows nil).
func (a *Applier) decodeRows(e *replication.RowsEvent, data []byte) error {
	pos, err := e.DecodeHeader(data)
	if err != nil {
		return err
	}
	if string(e.Table.Schema) != a.cfg.Schema {
		return nil
	}
	name := string(e.Table.Table)
	if name != a.cfg.Original.Name && name != a.cfg.Changelog {
		return nil
	}
	decode := e.DecodeData
	if name == a.cfg.Original.Name {
		decode = func(pos int, data []byte) error { return decodeRawJSON(e, pos, data) } // jsonrows.go
	}
	if err := decode(pos, data); err != nil {
		// go-mysql's message may quote the row: keep only what names the problem.
		return fmt.Errorf("decode rows of %s.%s failed (%d columns in the row image)", a.cfg.Schema, name, e.ColumnCount)
	}
	return nil
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' || i >= 200 {
			return s[:i]
		}
	}
	return s
}
