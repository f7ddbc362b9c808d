// Package loadgen drives a paced write load against a table and records what the server
// acknowledged: every write's outcome (a journal), how many writes succeeded or failed and how
// long the slowest one waited. The bench uses it to measure the write stall at cut-over; tests use
// its journal to check that no acknowledged write is lost.
//
// Invariants: a write counts as acknowledged only when the server returned success for it, and
// every write that was sent is in the journal with its outcome (a write in flight when the load
// stops is allowed to finish: its outcome is real). The load stops by itself when its context
// ends (or at its first failure, when asked to); it never retries a failed write.
package loadgen

import (
	"context"
	"database/sql"
	"errors"
	"math/rand"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Op builds one write: the statement and its arguments.
type Op func(r *rand.Rand) (query string, args []any)

// Config describes a load.
type Config struct {
	DB      *sql.DB
	Ops     []Op    // chosen uniformly at random for each write
	Rate    float64 // writes per second over all workers; 0 means as fast as the workers go
	Workers int     // concurrent connections (default 4)
	// SkipMissed makes a worker whose write outlasted its turn skip the turns it missed, as a
	// time.Ticker drops ticks, instead of catching up with a burst: a slow server slows the load,
	// as it slows an application's clients. Without it the load keeps its rate through a stall
	// (what the bench wants, measuring the stall under a constant rate).
	SkipMissed bool
	// WriteTimeout bounds each write (0: no bound); a write that runs out of it has failed.
	WriteTimeout time.Duration
	// OnAck, when set, is called after every acknowledged write (from the worker's goroutine),
	// once the write is in the journal.
	OnAck func(op int, res sql.Result, args []any)
	// OnError, when set, decides whether a failed write is tolerated (true) or counted as failed.
	OnError func(op int, err error) bool
	// StopOnFailure ends the load at its first failed write that OnError does not tolerate.
	StopOnFailure bool
}

// Write is the outcome of one write the load sent.
type Write struct {
	Op         int
	Args       []any
	Start, End time.Time
	Err        error // nil: the server acknowledged the write
	Tolerated  bool  // Err was tolerated by Config.OnError
	// Of an acknowledged write: the driver's LastInsertId (0 when the statement generated no
	// AUTO_INCREMENT value) and RowsAffected.
	InsertID, RowsAffected int64
}

// Acked reports whether the server acknowledged the write.
func (w Write) Acked() bool { return w.Err == nil }

// Errno is the server's error number of a failed write (0 when acknowledged or not a server error).
func (w Write) Errno() uint16 { return Errno(w.Err) }

// Latency is how long the write took.
func (w Write) Latency() time.Duration { return w.End.Sub(w.Start) }

// Errno is the MySQL/MariaDB error number of err, 0 when err is not an error the server returned.
func Errno(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// Failures counts the writes that failed with the server error errno, and gives the end times of
// the first and of the last of them.
func Failures(writes []Write, errno uint16) (n int, first, last time.Time) {
	for _, w := range writes {
		if w.Err == nil || w.Errno() != errno {
			continue
		}
		if n == 0 || w.End.Before(first) {
			first = w.End
		}
		if w.End.After(last) {
			last = w.End
		}
		n++
	}
	return n, first, last
}

// Stats summarises a finished load.
type Stats struct {
	Acked, Failed, Tolerated int64
	MaxLatency               time.Duration
	MaxLatencyAt             time.Time
	P99                      time.Duration
	FirstError               error
}

// Run writes until ctx ends (or the load stops at a failure) and returns what happened.
func Run(ctx context.Context, cfg Config) Stats {
	l := Start(ctx, cfg)
	select {
	case <-ctx.Done():
	case <-l.Done():
	}
	return l.Stop()
}
