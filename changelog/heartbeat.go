package changelog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// ErrNoHeartbeat is a changelog that holds no heartbeat yet.
var ErrNoHeartbeat = errors.New("no heartbeat yet")

// ErrGone is a heartbeat written to a changelog table that no longer exists (errors.Is).
var ErrGone = errors.New("the changelog table no longer exists")

// goneError says which table is gone, as the server said it; it is ErrGone.
type goneError struct{ msg string }

func (e *goneError) Error() string        { return e.msg }
func (e *goneError) Is(target error) bool { return target == ErrGone }

// Heartbeats writes the heartbeat every interval until ctx ends (then it returns nil), skipping
// the ticks at which paused says so (a critical-load hibernation writes nothing). A failed write
// is handed to warn and the beat goes on; a table that no longer exists ends it (ErrGone).
func (t Table) Heartbeats(ctx context.Context, db Execer, interval time.Duration, paused func() bool, warn func(error)) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-tick.C:
			if paused() {
				continue
			}
			if err := t.Heartbeat(ctx, db, now, warn); err != nil {
				return err
			}
		}
	}
}

// Heartbeat writes the heartbeat row with the time now. A failure is handed to warn (best effort:
// the lag it measures then grows, which throttles), and nil returned; it returns an error only
// when the table does not exist (ErrGone). Nothing is reported once ctx has ended.
func (t Table) Heartbeat(ctx context.Context, db Execer, now time.Time, warn func(error)) error {
	err := t.write(ctx, db, HintHeartbeat, now.UTC().Format(time.RFC3339Nano))
	if err == nil || ctx.Err() != nil {
		return nil
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1146 { // ER_NO_SUCH_TABLE
		return &goneError{fmt.Sprintf("the changelog table %s.%s no longer exists (heartbeat: %v)", t.Schema, t.Name, me.Message)}
	}
	warn(err)
	return nil
}

// ReadHeartbeat reads the heartbeat's time from the table as the server q holds it (the primary,
// or a replica's copy): ErrNoHeartbeat when none was written (or replicated) yet.
func (t Table) ReadHeartbeat(ctx context.Context, q dbconn.Querier) (time.Time, error) {
	var written string
	err := q.QueryRowContext(ctx, t.selectValue(HintHeartbeat)).Scan(&written)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, ErrNoHeartbeat
	}
	if err != nil {
		return time.Time{}, err
	}
	return ParseHeartbeat(written)
}

// ParseHeartbeat reads a heartbeat row's value: the writer's time, in UTC.
func ParseHeartbeat(value string) (time.Time, error) {
	at, err := time.Parse(time.RFC3339Nano, value)
	if err != nil {
		return time.Time{}, fmt.Errorf("heartbeat %q is not a time: %w", value, err)
	}
	return at.UTC(), nil
}
