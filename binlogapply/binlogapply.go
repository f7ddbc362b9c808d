// Package binlogapply streams the row-based binary log (go-mysql's BinlogSyncer) and applies every
// change made to the original table onto the ghost table, in binlog order.
//
// CONTRACT (used by migrator; keep these signatures):
//
//	CurrentPosition(ctx, db, flavor) (Position, error)
//	New(Config) (*Applier, error); (*Applier).Run(ctx) error
//	(*Applier).ExpectSentinel(value) <-chan struct{}
//	(*Applier).Stats() Stats
package binlogapply

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Position is where a binlog reader stands: file and offset, and the GTID set when GTIDs are used.
type Position struct {
	File string
	Pos  uint32
	GTID string // MariaDB "0-1-5" style, or MySQL's executed set; empty when not used
}

// CurrentPosition reads the server's current binlog position (and GTID position).
func CurrentPosition(ctx context.Context, db *sql.DB, f dbconn.Flavor) (Position, error) {
	return Position{}, errors.New("not implemented")
}

// Config is what an Applier needs.
type Config struct {
	Source   dbconn.Config // the server whose binary log is read
	Flavor   dbconn.Flavor
	ServerID uint32 // unique server id of our reader (--replica-server-id)
	UseGTID  bool   // position by GTID (--gtid)
	Start    Position

	Target *sql.DB // pool on the primary with dbconn's writer session settings; writes go to the ghost

	Schema    string
	Original  *table.Table      // the original table: row images are decoded with its columns
	Ghost     *table.Table      // the ghost table: values are written into its columns
	ColumnMap map[string]string // original column name -> ghost column name; only these are written
	SharedKey []string          // original-side column names of the shared unique key
	Changelog string            // the changelog table's name in Schema

	DMLBatchSize int // events per applying transaction (--dml-batch-size)
	Logger       zerolog.Logger
}

// Stats is a snapshot of the applier's progress.
type Stats struct {
	EventsApplied int64     // row changes applied to the ghost
	Backlog       int       // row changes read but not applied yet
	Applied       Position  // position after the last applied transaction
	LastHeartbeat time.Time // writer time of the last heartbeat seen in the changelog (UTC)
}

// Applier streams and applies.
type Applier struct{ cfg Config }

// New checks cfg and returns an Applier; nothing is connected until Run.
func New(cfg Config) (*Applier, error) { return &Applier{cfg: cfg}, nil }

// Run streams from cfg.Start and applies until ctx ends (returns nil) or an error that cannot be
// retried (returns it). A dropped binlog connection is re-established at the last applied position.
func (a *Applier) Run(ctx context.Context) error { return errors.New("not implemented") }

// ExpectSentinel registers interest in the changelog sentinel row carrying value. The returned
// channel is closed once that row has been read AND every change read before it has been committed
// to the ghost. Register before writing the sentinel.
func (a *Applier) ExpectSentinel(value string) <-chan struct{} { return make(chan struct{}) }

// Stats returns a snapshot of progress.
func (a *Applier) Stats() Stats { return Stats{} }
