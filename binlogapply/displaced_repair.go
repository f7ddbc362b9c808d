package binlogapply

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/logfmt"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Putting displaced rows back (see displaced.go), and reporting those that stay displaced.

// repairDisplaced tries to put every saved image back into the ghost, in one transaction, and
// returns what stays displaced.
func (a *Applier) repairDisplaced(ctx context.Context, conn *sql.Conn) (DisplacedRows, error) {
	d := a.displaced
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return DisplacedRows{}, fmt.Errorf("repair displaced rows: %w", err)
	}
	report, err := a.repairIn(ctx, tx)
	if err != nil {
		_ = tx.Rollback()
		return DisplacedRows{}, fmt.Errorf("repair displaced rows: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return DisplacedRows{}, fmt.Errorf("repair displaced rows: commit: %w", err)
	}
	d.count = report.Count
	return report, nil
}

// repairIn puts the saved images back in tx: all at once when they all fit, otherwise one at a
// time, oldest first, deciding for each as displaced.go's invariants say. It records on an image
// that stays the key and value it clashes on, and returns the summary of what stays.
func (a *Applier) repairIn(ctx context.Context, tx *sql.Tx) (DisplacedRows, error) {
	d, p := a.displaced, a.plan
	// Usually every image fits back at once.
	_, err := tx.ExecContext(ctx, d.repairAll)
	if err == nil {
		if err := checkWarnings(ctx, tx, "INSERT into "+p.ghostTable); err != nil {
			return DisplacedRows{}, err
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM "+d.tbl)
		return DisplacedRows{}, err
	}
	if _, ok := asDuplicate(err, p.ghostName); !ok {
		return DisplacedRows{}, err
	}
	seqs, err := querySeqs(ctx, tx, "SELECT "+colSeq+" FROM "+d.tbl+" ORDER BY "+colSeq)
	if err != nil {
		return DisplacedRows{}, err
	}
	forget := "DELETE FROM " + d.tbl + " WHERE " + colSeq + " = ?"
	for _, seq := range seqs {
		_, err := tx.ExecContext(ctx, d.repairOne, seq)
		if err == nil {
			if err := checkWarnings(ctx, tx, "INSERT into "+p.ghostTable); err != nil {
				return DisplacedRows{}, err
			}
			if _, err := tx.ExecContext(ctx, forget, seq); err != nil {
				return DisplacedRows{}, err
			}
			continue
		}
		dup, ok := asDuplicate(err, p.ghostName)
		if !ok {
			return DisplacedRows{}, err
		}
		// The server names one key; the shared key may clash too.
		var newer int
		if !d.sharedKeys[strings.ToLower(dup.key)] {
			if err := tx.QueryRowContext(ctx, d.inGhost, seq).Scan(&newer); err != nil {
				return DisplacedRows{}, err
			}
		}
		if d.sharedKeys[strings.ToLower(dup.key)] || newer > 0 {
			if _, err := tx.ExecContext(ctx, forget, seq); err != nil {
				return DisplacedRows{}, err
			}
			continue
		}
		entry := dup.entry
		if len(entry) > maxEntryBytes {
			entry = entry[:maxEntryBytes]
		}
		if _, err := tx.ExecContext(ctx, "UPDATE "+d.tbl+" SET "+colKey+" = ?, "+colEntry+" = ? WHERE "+colSeq+" = ?",
			dup.key, entry, seq); err != nil {
			return DisplacedRows{}, err
		}
	}
	return d.report(ctx, tx)
}

func querySeqs(ctx context.Context, tx *sql.Tx, q string) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		seqs = append(seqs, s)
	}
	return seqs, rows.Err()
}

// report summarizes the displaced table by key.
func (d *displacedSet) report(ctx context.Context, tx *sql.Tx) (DisplacedRows, error) {
	rows, err := tx.QueryContext(ctx, d.reportSQL)
	if err != nil {
		return DisplacedRows{}, err
	}
	defer rows.Close()
	var r DisplacedRows
	for rows.Next() {
		var k KeyClash
		var since int64
		var entry sql.NullString
		if err := rows.Scan(&k.Key, &k.Rows, &since, &entry); err != nil {
			return DisplacedRows{}, err
		}
		k.Sample = entry.String
		if entry.Valid {
			k.Warning = &dbconn.Warning{Level: "Warning", Code: 1062,
				Message: fmt.Sprintf("Duplicate entry '%s' for key '%s'", entry.String, d.dupKeyPrefix+k.Key)}
		}
		r.Count += k.Rows
		r.Keys = append(r.Keys, k)
		if t := time.Unix(0, since); r.Oldest.IsZero() || t.Before(r.Oldest) {
			r.Oldest = t
		}
	}
	sort.Slice(r.Keys, func(i, j int) bool {
		if r.Keys[i].Rows != r.Keys[j].Rows {
			return r.Keys[i].Rows > r.Keys[j].Rows
		}
		return r.Keys[i].Key < r.Keys[j].Key
	})
	return r, rows.Err()
}

// DisplacedRows describes the ghost rows the applier moved aside and could not put back yet, as
// of the last repair: a repair runs whenever a sentinel is applied (before its channel closes)
// and at most every RepairInterval when a heartbeat is. Once every change up to a sentinel
// written while the original is locked has been applied, a displaced row is a row of the
// original that clashes with another on a unique key of the ghost: the ALTER would drop it.
type DisplacedRows struct {
	Count  int
	Oldest time.Time  // when the earliest of them was moved aside
	Keys   []KeyClash // the unique keys they clash on, most rows first
}

// KeyClash is a unique key of the ghost that displaced rows clash on.
type KeyClash struct {
	Key    string
	Rows   int
	Sample string // a clashing value as the server quotes it in a duplicate-key error
	// Warning is the server's duplicate-key warning for Sample, in the server's words (nil
	// without a sample).
	Warning *dbconn.Warning
}

// Err describes the displaced rows as the reason the ALTER cannot complete; nil when there are
// none. It starts with gh-ost's words for --panic-on-warnings and the server's duplicate-key
// warning ("warnings detected in statement 1 of 1: [Warning: Duplicate entry ...]"), which
// wrappers grep for, then quotes a key value per key.
func (d DisplacedRows) Err() error {
	if d.Count == 0 {
		return nil
	}
	var parts []string
	var warnings []dbconn.Warning
	for _, k := range d.Keys {
		if k.Warning != nil {
			warnings = append(warnings, *k.Warning)
		}
		s := fmt.Sprintf("the ALTER's unique key %s would drop rows: %d %s of the original %s on it",
			table.QuoteIdent(k.Key), k.Rows, plural(k.Rows, "row", "rows"), plural(k.Rows, "clashes", "clash"))
		if k.Sample != "" {
			s += fmt.Sprintf(" (e.g. duplicate entry '%s')", k.Sample)
		}
		parts = append(parts, s)
	}
	msg := strings.Join(parts, "; ") + "; the original table is untouched"
	if len(warnings) > 0 {
		msg = dbconn.WarningsDetected(1, 1, warnings) + ": " + msg
	}
	return errors.New(msg)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Displaced returns the displaced rows as of the last repair.
func (a *Applier) Displaced() DisplacedRows {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.displacedRows
}

// settleDisplaced runs at the end of every batch. When the batch carries a sentinel (always) or a
// heartbeat (at most every RepairInterval, or ten times as long as the last repair took) and rows
// are displaced, it repairs them, then publishes what stays displaced: a sentinel's waiter sees
// the displaced rows as of its sentinel.
func (a *Applier) settleDisplaced(ctx context.Context, conn *sql.Conn, batch []item) error {
	sentinel, heartbeat := false, false
	for _, it := range batch {
		sentinel = sentinel || it.kind == itemSentinel
		heartbeat = heartbeat || it.kind == itemHeartbeat
	}
	d := a.displaced
	if due := sentinel || heartbeat && !time.Now().Before(d.nextRepair); !due {
		return nil
	}
	var report DisplacedRows
	if d.count > 0 {
		began := time.Now()
		err := a.retryTransient(ctx, func() error {
			var err error
			report, err = a.repairDisplaced(ctx, conn)
			return err
		})
		if err != nil || ctx.Err() != nil {
			return err
		}
		took := time.Since(began)
		d.nextRepair = time.Now().Add(max(a.cfg.RepairInterval, 10*took))
		a.log.Debug().Int("displaced", report.Count).Str("took", logfmt.Duration(took)).Msg("repaired displaced rows")
	}
	a.mu.Lock()
	a.displacedRows = report
	a.stats.Displaced = report.Count
	a.mu.Unlock()
	return nil
}

// discardSession closes the applier's session instead of returning it to the pool when it holds
// the displaced table, so no other user of the pool ever sees it.
func (a *Applier) discardSession(conn *sql.Conn) {
	if a.displaced.created {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}
