package copier

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// How a chunk is proven complete. The copy of a chunk is
//
//	INSERT IGNORE INTO ghost SELECT ... FROM original WHERE <range>
//
// read, when the copy has a KeyTracker (the migrator always gives it the binlog applier), as a
// consistent read under READ COMMITTED: InnoDB locks none of the original's rows, so no
// application write waits for a chunk (measured: doc/performance.md). Without a tracker it reads
// with LOCK IN SHARE MODE under REPEATABLE READ, and a row of the chunk cannot change until the
// INSERT commits.
//
// IGNORE turns every problem with a row into a warning: a duplicate key skips the row, a CHECK
// failure skips it, a truncated or invalid value is stored changed. So the chunk is done only when:
//
//  1. the INSERT left no warning at all: every row of the range was inserted as the ALTER
//     converts it; or
//  2. the server listed every warning (SHOW WARNINGS returned @@warning_count rows, with
//     max_error_count raised for the copy session) and every one of them is a Note or a
//     duplicate on the shared key: proven by its warnings (below); or
//  3. the list is complete, holds only Notes and duplicates on unique keys, some on a key other
//     than the shared key, and every row of the range has its shared key in the ghost (the keys
//     of the rows missing after the INSERT are listed, and looked up again once the applier has
//     applied every change written before the list was read; rows written meanwhile are the
//     applier's and are not looked at): the rows that clashed on the other key were written by
//     the applier in an older state, and the applier has since moved them out of the way. A row
//     still missing then is copied again; one missing in verifyRounds rounds in a row is a
//     duplicate the ALTER would drop, and fails the copy.
//
// The consistent read and the applier. The INSERT writes the rows of its snapshot S (taken when
// the statement starts). A change of one of them committed after S is not in S; when the applier
// applies it before the INSERT reaches the row (a delete, an update, a key change), the INSERT
// writes the row's older state over a ghost that had moved on: a stale row, or one the original
// no longer has. The tracker closes that gap (binlogapply/track.go): Track is called before the
// INSERT, so every change the applier commits from then on has its key recorded, and settle,
// called after the INSERT committed, has the applier apply each recorded key's last applied state
// again (delete by key, then insert the image when there is one), serialized with the changes it
// applies. A change committed by the applier before Track precedes S; one committed after settle
// is applied over the INSERT's committed rows. So after settle every row of the range is in the
// ghost as of S or newer, and every change after that is still ahead of the applier, which
// applies full images by key: the ghost converges on the original. settle runs while the session
// copies its next chunk (the applier takes it between two batches), and a chunk counts as proven
// (CompleteUpTo, the checkpoint) only once its settles are committed, so a resumed copy never
// starts above a chunk whose keys were not re-applied; the copy is done only when every settle is.
//
// Proven by its warnings: IGNORE skips a row only with a warning, so every row the statement
// read was either inserted or skipped as a duplicate on the shared key, i.e. a row with its key
// was in the ghost, written by the applier. That ghost row is the state of some change of the
// original: older than S (then the changes after it, S's among them, are ahead of the applier)
// or newer (then it is the newer state). If the applier later removes that ghost row, it applies
// a change of the original made before the one that put the row back under that key, which
// follows it in the binary log; so the ghost converges on the original's row without the copy
// counting anything. (Counting rows missing here used to cost a second read of every chunk the
// applier had touched.)
//
// A Note is what the server's own ALTER lets through even in strict mode (strict mode turns
// Warnings into errors, never Notes): DECIMAL rounding of fractional digits, DATETIME to DATE
// (Note 1265). IGNORE leaves Notes as they are, so a Note here is a Note in the server's ALTER
// too, and the value stored is the one the ALTER stores. Any Warning or Error other than a
// duplicate key fails the migration: the server's own ALTER would refuse that row. A list shorter
// than the count is never trusted: the range is copied again in two halves, each re-raising its
// rows' warnings (conversion and CHECK warnings are raised before the duplicate-key check, so they
// come back for rows already in the ghost). Rows still missing after a few rounds fail the
// migration. The shared key compares alike in both tables (the migrator chooses it so:
// sharedKeyComparable), so "its key is in the ghost" means "this row is in the ghost" -- except
// for a key column whose collation changes so that keys distinct in one table may be equal in the
// other (Config.GhostKeyBytes): there a duplicate on the shared key is judged like one on another
// key (case 3), with the rows counted in the ghost by their exact key bytes.

// verifyRounds is in how many consecutive rounds (each copying the chunk again after the applier
// caught up) a row must be missing from the ghost before the migration fails.
const verifyRounds = 3

// errorCount reads how many warnings SHOW WARNINGS lists on the copy session s: what its pool set
// (dbconn.MaxErrorCount, or the server's value for an account MySQL does not let set it), or the
// test's Test.MaxErrorCount.
func (c *Copier) errorCount(ctx context.Context, s *session) error {
	if n := c.cfg.Test.MaxErrorCount; n > 0 {
		if _, err := s.conn.ExecContext(ctx, fmt.Sprintf("SET SESSION max_error_count = %d", n)); err != nil {
			return fmt.Errorf("set max_error_count of the copy session: %w", err)
		}
	}
	if err := s.conn.QueryRowContext(ctx, "SELECT @@session.max_error_count").Scan(&s.maxErrorCount); err != nil {
		return fmt.Errorf("read max_error_count of the copy session: %w", err)
	}
	return nil
}

// track starts the applier's record of the keys it writes while a chunk's INSERT runs; settle
// re-applies them once it committed (Config.Tracker). Without a tracker there is no settle (nil).
func (c *Copier) track(ch chunk) (settle func(ctx context.Context) error) {
	if c.cfg.Tracker == nil {
		return nil
	}
	var span table.KeySpan
	if len(ch.lower) == 1 && len(ch.upper) == 1 {
		span = table.IntegerKeySpan(c.cfg.Original, c.cfg.OriginalKey, ch.lower[0], ch.inclusive, ch.upper[0])
	}
	return c.cfg.Tracker.Track(span)
}

// settleLater runs settle (the applier's re-application of the keys it wrote during a chunk's
// INSERT, which has committed) while the session goes on: waiting for the applier to take it
// between two of its batches would hold the copy for a batch at every chunk. settled waits for it.
func (s *session) settleLater(ctx context.Context, n int64, settle func(ctx context.Context) error) {
	if settle == nil {
		return
	}
	done := make(chan error, 1)
	go func() {
		if err := settle(ctx); err != nil {
			done <- fmt.Errorf("copy chunk %d: %w", n, err)
		}
		close(done)
	}()
	s.settling = append(s.settling, done)
}

// settling takes the settles started so far on s.
func (s *session) takeSettling() []chan error {
	taken := s.settling
	s.settling = nil
	return taken
}

// settled waits until every settle of the list is committed, and returns the first error.
func settled(list []chan error) error {
	var first error
	for _, done := range list {
		if err := <-done; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// errCatchUpFirst is what copyChunk returns, when it may defer, for a chunk with rows missing from
// the ghost: the copy comes back to it after the applier has caught up (see Run).
var errCatchUpFirst = errors.New("rows missing from the ghost before the applier caught up")

// copyChunk copies one chunk and proves it complete (see above). A statement that fails is
// retried, up to --default-retries attempts in all. With mayDefer, a chunk with rows missing from
// the ghost returns errCatchUpFirst at once instead of waiting for the applier to catch up.
func (c *Copier) copyChunk(ctx context.Context, s *session, ch chunk, mayDefer bool) error {
	conn := s.conn
	q, args := c.key.copySQL(ch.lower, ch.inclusive, ch.upper)
	var lastErr error
	lost, streaks := "", missingStreaks{}
	for attempt := 1; attempt <= c.cfg.Retries; attempt++ {
		settle := c.track(ch)
		inserted, warnings, w, err := copyOnce(ctx, conn, q, args, c.proofKey())
		s.settleLater(ctx, ch.n, settle) // the chunk counts as copied once it is done (settled)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			lastErr = err
			if isLockWait(err) {
				s.stalls++
			}
			c.log.Warn().Err(err).Int64("chunk", ch.n).Int("attempt", attempt).Msg("copy chunk failed; retrying")
			time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
			continue
		}
		c.rows.Add(inserted)
		if warnings == 0 {
			return nil
		}
		if len(w.changed) > 0 {
			return chunkFailure(ch.n, dbconn.WarningsDetected(1, 1, w.changed)+": the ALTER would change or lose data (the ghost runs in strict mode)")
		}
		if w.listed < warnings {
			c.log.Debug().Int64("chunk", ch.n).Int64("warnings", warnings).Int64("listed", w.listed).Msg("more warnings than listed; copying the chunk again in parts")
			return c.copyInParts(ctx, s, ch, mayDefer)
		}
		if w.duplicate == nil {
			// Every row the INSERT skipped has its shared key in the ghost: a row the applier
			// wrote first (see "proven by its warnings" above).
			return nil
		}
		c.recounts.Add(1)
		missing, unchecked, err := c.missingRows(ctx, conn, ch, mayDefer)
		if err != nil {
			return fmt.Errorf("copy chunk %d: %w", ch.n, err)
		}
		if len(missing) == 0 && !unchecked {
			return nil
		}
		key, rounds := streaks.add(missing)
		lost = lostMessage(w, int64(len(missing)))
		if key != nil && c.proofKey() == "" {
			lost = c.clashMessage(key, w)
		}
		if rounds >= verifyRounds {
			return chunkFailure(ch.n, lost)
		}
		c.log.Debug().Int64("chunk", ch.n).Int("missing", len(missing)).Bool("more", unchecked).Msg("rows missing from the ghost; copying the chunk again after the applier caught up")
	}
	if lastErr == nil && lost != "" {
		return chunkFailure(ch.n, lost)
	}
	return fmt.Errorf("copy chunk %d: gave up after %d attempts: %w", ch.n, c.cfg.Retries, lastErr)
}

// proofKey is the ghost's key a duplicate on which proves the row in the ghost (see "proven by
// its warnings"): the shared key, unless rows are addressed by their bytes (Config.GhostKeyBytes),
// when none does.
func (c *Copier) proofKey() string {
	for _, b := range c.cfg.GhostKeyBytes {
		if b != "" {
			return ""
		}
	}
	return c.cfg.GhostKey.Name
}

// copyInParts copies the range of ch again as two parts of about half its rows each (counted
// now), so that each part's warnings fit the list. A single row that raises more warnings than
// the server lists cannot be judged, and fails.
func (c *Copier) copyInParts(ctx context.Context, s *session, ch chunk, mayDefer bool) error {
	conn := s.conn
	q, args := c.key.countSQL(ch.lower, ch.inclusive, ch.upper)
	var rows int
	if err := conn.QueryRowContext(ctx, q, args...).Scan(&rows); err != nil {
		return fmt.Errorf("copy chunk %d: count the rows to split: %w", ch.n, err)
	}
	if rows <= 1 {
		return chunkFailure(ch.n, fmt.Sprintf("one row raised more warnings than the server lists (max_error_count %d), so the copy cannot tell whether the ALTER changes it", s.maxErrorCount))
	}
	mid, err := c.key.chunkEnd(ctx, conn, ch.lower, ch.inclusive, ch.upper, rows/2)
	if err != nil {
		return fmt.Errorf("copy chunk %d: split the chunk: %w", ch.n, err)
	}
	if err := c.copyChunk(ctx, s, chunk{n: ch.n, lower: ch.lower, inclusive: ch.inclusive, upper: mid}, mayDefer); err != nil {
		return err
	}
	if c.key.equal(mid, ch.upper) {
		return nil // rows were deleted meanwhile: the first part was the whole range
	}
	return c.copyChunk(ctx, s, chunk{n: ch.n, lower: mid, upper: ch.upper}, mayDefer)
}

// copyOnce runs one chunk's INSERT and, in the same round trip, reads how many rows it inserted,
// how many warnings it left and the list of them. The order is what both flavors keep: on MySQL
// any SELECT clears the warnings of the statement before it, so the inserted count is saved with
// GET DIAGNOSTICS (which clears nothing) and read last; SHOW WARNINGS and SHOW COUNT(*) WARNINGS
// clear nothing on either server. sharedKey is the ghost's shared key.
func copyOnce(ctx context.Context, conn *sql.Conn, q string, args []any, sharedKey string) (inserted, warnings int64, w copyWarnings, err error) {
	rows, err := conn.QueryContext(ctx, q+"; GET DIAGNOSTICS @gl_copied_rows = ROW_COUNT; SHOW WARNINGS; SHOW COUNT(*) WARNINGS; SELECT @gl_copied_rows AS copied_rows", args...)
	if err != nil {
		return 0, 0, w, err
	}
	defer rows.Close()
	sawRows := false
	for {
		cols, err := rows.Columns()
		if err != nil {
			return 0, 0, w, err
		}
		for rows.Next() {
			switch {
			case len(cols) == 3:
				var x dbconn.Warning
				if err := rows.Scan(&x.Level, &x.Code, &x.Message); err != nil {
					return 0, 0, w, err
				}
				w.add(x, sharedKey)
			case len(cols) == 1 && cols[0] == "copied_rows":
				if err := rows.Scan(&inserted); err != nil {
					return 0, 0, w, err
				}
				sawRows = true
			case len(cols) == 1:
				if err := rows.Scan(&warnings); err != nil {
					return 0, 0, w, err
				}
			}
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return 0, 0, w, err
	}
	if !sawRows {
		return 0, 0, w, fmt.Errorf("no row and warning counts after the chunk's INSERT")
	}
	return inserted, warnings, w, nil
}

// copyWarnings is what SHOW WARNINGS listed after a chunk's INSERT.
type copyWarnings struct {
	listed    int64            // how many warnings were listed (at most max_error_count)
	changed   []dbconn.Warning // the Warnings and Errors that are not duplicate keys: rows refused or skipped (the first few)
	duplicate *dbconn.Warning  // the first duplicate on a key other than the shared key
}

// warningsShown is how many warnings of a chunk an error lists.
const warningsShown = 3

// add counts one listed warning. sharedKey is the ghost's key whose duplicates prove rows
// present (Copier.proofKey), "" for none.
func (w *copyWarnings) add(x dbconn.Warning, sharedKey string) {
	w.listed++
	switch {
	case x.Level == "Note", dbconn.DeprecationWarning(x.Level, x.Code):
	case x.Code == 1062 && sharedKey != "" && strings.EqualFold(duplicateKeyName(x.Message), sharedKey):
	case x.Code == 1062:
		if w.duplicate == nil {
			w.duplicate = &x
		}
	case len(w.changed) < warningsShown:
		w.changed = append(w.changed, x)
	}
}

// lostMessage says why rows of a chunk are missing from the ghost.
func lostMessage(w copyWarnings, missing int64) string {
	if w.duplicate != nil {
		return fmt.Sprintf("%s: the ALTER would drop rows (rows of the original clash on that unique key of the altered table)", dbconn.WarningsDetected(1, 1, []dbconn.Warning{*w.duplicate}))
	}
	return fmt.Sprintf("%d rows of the original are missing from the ghost table after the copy", missing)
}

// clashMessage names key, a row of a chunk missing from the ghost round after round when rows are
// addressed by their key bytes (Config.GhostKeyBytes): a row another row of the original equals
// under the new collation, the one the server's own ALTER names in its duplicate-key error, given
// here in the server's words with the key as the server named it in w's duplicate. (The warnings
// of a chunk copied again list rows already in the ghost too, so they cannot name it.)
func (c *Copier) clashMessage(key []sql.RawBytes, w copyWarnings) string {
	parts := make([]string, len(key))
	for i, v := range key {
		parts[i] = string(v)
	}
	keyName := c.cfg.GhostKey.Name
	if w.duplicate != nil {
		if i := strings.LastIndex(w.duplicate.Message, "for key '"); i >= 0 {
			keyName = strings.TrimSuffix(w.duplicate.Message[i+len("for key '"):], "'")
		}
	}
	dup := dbconn.Warning{Level: "Warning", Code: 1062, Message: fmt.Sprintf("Duplicate entry '%s' for key '%s'", strings.Join(parts, "-"), keyName)}
	return dbconn.WarningsDetected(1, 1, []dbconn.Warning{dup}) +
		": the ALTER would drop rows (a row of the original equals another under the altered table's collation; the server's own ALTER fails too)"
}

func chunkFailure(n int64, msg string) error {
	return fmt.Errorf("copy chunk %d: %s; the original table is untouched", n, msg)
}

// missingKeysListed bounds how many keys of a chunk's rows missing from the ghost are listed
// and looked up again once the applier has caught up.
const missingKeysListed = 100

// missingRows returns the keys of the chunk's rows of the original that have no row with the same
// shared key in the ghost (by its bytes where Config.GhostKeyBytes says so) and still have none
// once the applier has applied every change written before they were listed: rows the ALTER
// would drop, or rows the copy must insert again (a row its INSERT skipped for a ghost row the
// applier has since moved away). Rows written while the copy waits for the applier are the
// applier's to write and are not counted: the keys are listed first and only the listed ones are
// looked up again (counting the chunk again would count every row the application inserted
// meanwhile, and a chunk under steady inserts would fail as if its rows clashed). unchecked is
// true when more rows than missingKeysListed were missing. With mayDefer, a chunk with rows
// missing returns errCatchUpFirst at once.
func (c *Copier) missingRows(ctx context.Context, conn *sql.Conn, ch chunk, mayDefer bool) (missing [][]sql.RawBytes, unchecked bool, err error) {
	q, args := c.key.missingKeysSQL(ch.lower, ch.inclusive, ch.upper, missingKeysListed+1)
	listed, err := c.key.readKeys(ctx, conn, q, args...)
	if err != nil || len(listed) == 0 {
		return nil, false, wrapIf(err, "list rows missing from the ghost")
	}
	if mayDefer {
		return nil, false, errCatchUpFirst
	}
	if len(listed) > missingKeysListed {
		listed, unchecked = listed[:missingKeysListed], true
	}
	if err := c.awaitCatchUp(ctx); err != nil {
		return nil, false, fmt.Errorf("wait for the applier before looking rows up in the ghost again: %w", err)
	}
	q, args = c.key.stillMissingSQL(listed)
	missing, err = c.key.readKeys(ctx, conn, q, args...)
	return missing, unchecked, wrapIf(err, "look rows missing from the ghost up again")
}

// wrapIf is nil for a nil err, else err wrapped with what.
func wrapIf(err error, what string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// missingStreaks counts, for each key missing from the ghost, in how many consecutive rounds of a
// chunk's proof it was missing. A row the ALTER would drop is missing in every round; a row the
// application keeps deleting and inserting again may be missing in one round, rarely in several
// in a row.
type missingStreaks map[string]int

// add records a round in which the rows of keys were missing and forgets the keys that were not;
// it returns the key missing in the most consecutive rounds, and how many (nil, 0 for none).
func (s missingStreaks) add(keys [][]sql.RawBytes) (longest []sql.RawBytes, rounds int) {
	seen := map[string]bool{}
	for _, key := range keys {
		parts := make([][]byte, len(key))
		for i, v := range key {
			parts[i] = v
		}
		id := string(bytes.Join(parts, []byte{0}))
		seen[id] = true
		s[id]++
		if s[id] > rounds {
			longest, rounds = key, s[id]
		}
	}
	for id := range s {
		if !seen[id] {
			delete(s, id)
		}
	}
	return longest, rounds
}

// catchUpPatience bounds the wait for the applier before rows missing from the ghost are counted
// again.
const catchUpPatience = 5 * time.Minute

// awaitCatchUp waits, at most catchUpPatience, until the applier has applied every change
// written to the original so far.
func (c *Copier) awaitCatchUp(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, catchUpPatience)
	defer cancel()
	return c.cfg.CatchUp.AwaitApplied(ctx)
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

// isLockWait is true for InnoDB's lock wait timeout (1205) and deadlock (1213).
func isLockWait(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1205 || me.Number == 1213)
}
