package binlogapply

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	sqldriver "github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Displaced rows.
//
// A replayed insert can clash with a ghost row on a unique key other than the shared key without
// any row being lost: the ghost row may have been copied "from the future" (the copy read the
// original ahead of the applier), or the original, which does not enforce the ALTER's new key,
// held a duplicate for a while. Failing there would be a false failure; REPLACE would lose the
// ghost row for good. Instead the writer moves the clashing ghost rows aside ("displaces" them):
// their full images go to a temporary table on the applier's own session, they are deleted from
// the ghost, and the replayed row is inserted. Later a repair puts each saved image back.
//
// The saved image of a displaced row R is R's state as of the applier's position or the time R
// was copied, whichever is later, and every later change of R is still ahead in the binary log.
// So while no later event touches R, its image is R's current state; once one does, the event
// rewrites R and the image is stale and dropped.
//
// Invariants:
//   - A ghost row is deleted by a displacement only in the transaction, and in the number, in
//     which its full image is saved; saved images commit or roll back with the applied changes.
//   - Every shared key the writer deletes from the ghost is deleted from the saved images too,
//     compared like the ghost compares it (its types and collations, and its bytes where
//     Config.KeyByBytes says so), so a saved image is always one whose row no later event has
//     touched.
//   - Repair puts an image back with a plain INSERT. Success: it is dropped from the set. A
//     duplicate of the shared key: a newer version of the row is in the ghost (copied meanwhile),
//     the image is dropped; where keys are told apart by their bytes, only when the ghost holds
//     the image's key bytes (otherwise the image clashes with another row and stays). A duplicate
//     of another unique key: the image stays saved. Besides,
//     only a newer image of the same row (displaced again after a copy brought it back) replaces
//     a saved image.
//   - At most Config.MaxDisplaced rows are displaced at once; beyond that Run fails.
//
// Why a temporary table and not Go memory: the images are copied by the server, so they are
// exact (no FLOAT or BIT value goes through text), and keys are matched by the server with the
// ghost's own types and collations, which a Go-side key of a row read back from the ghost could
// not reproduce. It is created on the first displacement only and lives on the applier's session,
// which is never re-opened (losing it fails Run) and is closed, not pooled, when apply returns.

// displacedTableName is the temporary table of saved images in the ghost's schema. A temporary
// table is visible to its own session only; the name merely must not shadow a table we use.
const displacedTableName = "_ghostlite_displaced"

// Bookkeeping columns of the displaced table, before the ghost's own columns.
const (
	colSeq   = "`_ghostlite_seq`"   // order of displacement
	colSince = "`_ghostlite_since`" // when the row was moved aside (Unix nanoseconds)
	colKey   = "`_ghostlite_key`"   // the unique key it clashes on
	colEntry = "`_ghostlite_entry`" // the duplicate value as the server quoted it at the last repair
)

const maxEntryBytes = 200 // a quoted duplicate value is cut to this length

// displacedSet is the applier's set of displaced rows. Only the applying goroutine uses it (moved
// excepted).
type displacedSet struct {
	max        int          // Config.MaxDisplaced
	count      int          // rows saved by committed transactions
	created    bool         // the temporary table exists on the applier's session
	moved      atomic.Int64 // ghost rows ever displaced (tests, diagnostics)
	nextRepair time.Time    // a heartbeat triggers no repair before this
	// SQL, built once by newDisplacedSet.
	tbl        string                 // `schema`.`_ghostlite_displaced`
	sharedKeys map[string]bool        // lower-case names of the ghost's keys over the shared key's columns
	movable    map[string]*movableKey // lower-case name -> a unique key whose clashing rows can be found
	createSQL  []string
	repairAll  string // every image back into the ghost
	repairOne  string // one image (by seq) back into the ghost
	inGhost    string // does the ghost hold the shared key of image seq?
	reportSQL  string
	// dupKeyPrefix is what the server puts before a ghost key's name in a duplicate-key error:
	// "" (MariaDB: 'k'), "_t_gho." (MySQL: '_t_gho.k').
	dupKeyPrefix string
}

// movableKey is a unique key of the ghost other than the shared key, over columns the applier
// writes and without prefix parts: the ghost rows clashing with a replayed row on it are found
// with "column = value" in the ghost's collation (NULLs never clash). The shared key itself is
// one when its rows are addressed by their bytes (Config.KeyByBytes): a replayed row then clashes
// on it with a ghost row of other bytes, equal under the ghost's collation only -- another row of
// the original, moved aside like a row clashing on a new unique key.
type movableKey struct {
	name      string
	cols      []int  // index in plan.write of each column of the key
	dropOlder string // drop saved images of the keys about to be saved again
	save      string // save the clashing ghost rows
	remove    string // delete the clashing ghost rows
}

func newDisplacedSet(cfg *Config, p *plan) *displacedSet {
	ghost := table.Qualify(cfg.Schema, cfg.Ghost.Name)
	d := &displacedSet{
		max:        cfg.MaxDisplaced,
		tbl:        table.Qualify(cfg.Schema, displacedTableName),
		sharedKeys: map[string]bool{},
		movable:    map[string]*movableKey{},
	}
	if !cfg.Flavor.MariaDB {
		d.dupKeyPrefix = cfg.Ghost.Name + "."
	}
	var cols, gcols []string
	for _, c := range cfg.Ghost.Columns {
		if !c.Generated {
			cols = append(cols, table.QuoteIdent(c.Name))
			gcols = append(gcols, "g."+table.QuoteIdent(c.Name))
		}
	}
	colList, gcolList := strings.Join(cols, ", "), strings.Join(gcols, ", ")
	shared, keyCols, keyJoin := sharedKeyJoin(p)
	written := map[string]int{}
	for i, w := range p.write {
		written[strings.ToLower(w.ghost)] = i
	}
	for _, uk := range cfg.Ghost.UniqueKeys {
		if sameColumns(uk.Columns, shared) && !p.byBytes {
			d.sharedKeys[strings.ToLower(uk.Name)] = true
			continue
		}
		if uk.HasPrefix {
			continue
		}
		mk := &movableKey{name: uk.Name}
		var where []string
		for _, c := range uk.Columns {
			i, ok := written[strings.ToLower(c)]
			if !ok {
				mk = nil
				break
			}
			mk.cols = append(mk.cols, i)
			where = append(where, "g."+table.QuoteIdent(p.write[i].ghost)+" = "+p.write[i].keyExpr)
		}
		if mk == nil {
			continue
		}
		w := strings.Join(where, " AND ")
		mk.dropOlder = fmt.Sprintf("DELETE d FROM %s d JOIN %s g ON %s WHERE %s", d.tbl, ghost, keyJoin, w)
		mk.save = fmt.Sprintf("INSERT INTO %s (%s, %s, %s) SELECT ?, ?, %s FROM %s g WHERE %s",
			d.tbl, colSince, colKey, colList, gcolList, ghost, w)
		mk.remove = fmt.Sprintf("DELETE g FROM %s g WHERE %s", ghost, w)
		d.movable[strings.ToLower(uk.Name)] = mk
	}
	// One image per key: the index is unique, except where keys are told apart by their bytes
	// (two images may then be equal under the ghost's collation; dropOlder keeps one per bytes).
	unique := "UNIQUE "
	if p.byBytes {
		unique = ""
	}
	d.createSQL = []string{
		"DROP TEMPORARY TABLE IF EXISTS " + d.tbl,
		fmt.Sprintf("CREATE TEMPORARY TABLE %s (%s BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, %s BIGINT NOT NULL DEFAULT 0, "+
			"%s VARBINARY(256) NOT NULL DEFAULT '', %s VARBINARY(%d) NULL, %sKEY `_ghostlite_shared` (%s)) "+
			"ENGINE=InnoDB SELECT %s FROM %s LIMIT 0",
			d.tbl, colSeq, colSince, colKey, colEntry, maxEntryBytes, unique, strings.Join(keyCols, ", "), colList, ghost),
	}
	d.repairAll = fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s ORDER BY %s", ghost, colList, colList, d.tbl, colSeq)
	d.repairOne = fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s WHERE %s = ?", ghost, colList, colList, d.tbl, colSeq)
	d.inGhost = fmt.Sprintf("SELECT COUNT(*) FROM %s g JOIN %s d ON %s WHERE d.%s = ?", ghost, d.tbl, keyJoin, colSeq)
	d.reportSQL = fmt.Sprintf("SELECT %s, COUNT(*), MIN(%s), MAX(%s) FROM %s GROUP BY %s", colKey, colSince, colEntry, d.tbl, colKey)
	return d
}

// sharedKeyJoin is the shared key as the displaced set uses it: the (lower-case) set of its ghost
// columns, those columns quoted, and the condition that joins a saved image d to the ghost row g
// of the same key (by its bytes too, where keys are told apart by their bytes).
func sharedKeyJoin(p *plan) (shared map[string]bool, keyCols []string, keyJoin string) {
	shared = map[string]bool{}
	var join []string
	for _, k := range p.key {
		shared[strings.ToLower(k.ghost)] = true
		keyCols = append(keyCols, table.QuoteIdent(k.ghost))
		join = append(join, "d."+table.QuoteIdent(k.ghost)+" <=> g."+table.QuoteIdent(k.ghost))
		if k.keyBytes != "" {
			join = append(join, table.ColumnBytes("d."+table.QuoteIdent(k.ghost), k.bytesCol)+" <=> "+table.ColumnBytes("g."+table.QuoteIdent(k.ghost), k.bytesCol))
		}
	}
	return shared, keyCols, strings.Join(join, " AND ")
}

// sameColumns reports whether cols are exactly the (lower-case) set.
func sameColumns(cols []string, set map[string]bool) bool {
	if len(cols) != len(set) {
		return false
	}
	for _, c := range cols {
		if !set[strings.ToLower(c)] {
			return false
		}
	}
	return true
}

// duplicate is a 1062 error of the server: the key's name and the value as the server quoted it.
type duplicate struct {
	key, entry, message string
}

// asDuplicate recognizes "Duplicate entry 'v' for key 'k'" (MariaDB) and "... for key 'tbl.k'"
// (MySQL 8).
func asDuplicate(err error, tbl string) (duplicate, bool) {
	var me *sqldriver.MySQLError
	if !errors.As(err, &me) || me.Number != 1062 {
		return duplicate{}, false
	}
	d := duplicate{message: me.Message}
	const entry, forKey = "Duplicate entry '", "' for key '"
	i := strings.LastIndex(me.Message, forKey)
	if i < 0 {
		return d, true
	}
	d.key = strings.TrimSuffix(me.Message[i+len(forKey):], "'")
	d.key = strings.TrimPrefix(d.key, tbl+".")
	if j := strings.Index(me.Message, entry); j >= 0 && j+len(entry) <= i {
		d.entry = me.Message[j+len(entry) : i]
	}
	return d, true
}

// insertDisplacing inserts the writer's pending rows one at a time, after the multi-row INSERT
// failed on a duplicate: a row that clashes on a movable key displaces the ghost rows it clashes
// with. Any other clash fails, naming the key.
func (w *writer) insertDisplacing(ctx context.Context) error {
	for i, row := range w.ins {
		q, args := w.p.insertSQL([][]any{row})
		if w.insRelax[i] != nil {
			q, args = w.p.insertRelaxedSQL(row)
		}
		for moved := 0; ; moved++ {
			_, err := w.tx.ExecContext(ctx, q, args...)
			if err == nil {
				break
			}
			dup, ok := asDuplicate(err, w.p.ghostName)
			if !ok {
				return fmt.Errorf("apply insert into %s: %w", w.p.ghostTable, err)
			}
			if w.d.sharedKeys[strings.ToLower(dup.key)] {
				return fmt.Errorf("apply insert into %s: duplicate of the shared key after deleting it (%s): "+
					"the ghost table is out of step with the binary log", w.p.ghostTable, dup.message)
			}
			mk := w.d.movable[strings.ToLower(dup.key)]
			if mk == nil || moved > len(w.d.movable) {
				return fmt.Errorf("apply insert into %s: a row clashes on unique key %s of the ghost table (%s), "+
					"and the clashing rows cannot be moved aside (the key has a prefix part or a column the applier "+
					"does not write): the ALTER would lose rows", w.p.ghostTable, table.QuoteIdent(dup.key), dup.message)
			}
			n, err := w.displace(ctx, mk, row)
			if err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("apply insert into %s: a row clashes on unique key %s (%s), but no ghost row "+
					"compares equal to it: the ALTER would lose rows", w.p.ghostTable, table.QuoteIdent(dup.key), dup.message)
			}
		}
		if err := checkWarningsAllowing(ctx, w.tx, "INSERT into "+w.p.ghostTable, w.insRelax[i]); err != nil {
			return err
		}
	}
	return nil
}

// displace moves the ghost rows that clash with row on mk into the displaced table and returns
// how many it moved.
func (w *writer) displace(ctx context.Context, mk *movableKey, row []any) (int64, error) {
	d := w.d
	if w.noDisplace {
		return 0, fmt.Errorf("%w: a row clashes on unique key %s of the ghost table", errClashUnderLock, table.QuoteIdent(mk.name))
	}
	args := make([]any, len(mk.cols))
	for i, c := range mk.cols {
		if row[c] == nil {
			return 0, nil // NULLs never clash
		}
		args[i] = row[c]
	}
	if !d.created {
		for _, q := range d.createSQL {
			if _, err := w.tx.ExecContext(ctx, q); err != nil {
				return 0, fmt.Errorf("create the temporary table of displaced rows (%s): %w", d.tbl, err)
			}
		}
		d.created = true
	}
	exec := func(what, q string, args ...any) (int64, error) {
		q, args, err := expandJSONArgs(q, args) // jsonwrite.go
		if err != nil {
			return 0, fmt.Errorf("displace rows clashing on %s: %s: %w", table.QuoteIdent(mk.name), what, err)
		}
		res, err := w.tx.ExecContext(ctx, q, args...)
		if err != nil {
			return 0, fmt.Errorf("displace rows clashing on %s: %s: %w", table.QuoteIdent(mk.name), what, err)
		}
		return res.RowsAffected()
	}
	older, err := exec("drop older images", mk.dropOlder, args...)
	if err != nil {
		return 0, err
	}
	saved, err := exec("save images", mk.save, append([]any{time.Now().UnixNano(), mk.name}, args...)...)
	if err != nil {
		return 0, err
	}
	removed, err := exec("delete from the ghost", mk.remove, args...)
	if err != nil {
		return 0, err
	}
	if saved != removed {
		return 0, fmt.Errorf("displace rows clashing on %s: saved %d images but deleted %d rows", table.QuoteIdent(mk.name), saved, removed)
	}
	w.displacedDelta += saved - older
	w.moved += saved
	if total := int64(d.count) + w.displacedDelta; total > int64(d.max) {
		return 0, fmt.Errorf("%d rows of the ghost table clash with replayed rows on unique key %s and are displaced, "+
			"more than the limit of %d: the ALTER's unique keys clash with too many rows of the original",
			total, table.QuoteIdent(mk.name), d.max)
	}
	return removed, nil
}

// forgetRewritten drops the saved images of keys the writer just deleted from the ghost: the
// events that touch them rewrite those rows.
func (w *writer) forgetRewritten(ctx context.Context, keys [][]any) error {
	if w.d == nil || !w.d.created || int64(w.d.count)+w.displacedDelta <= 0 {
		return nil
	}
	q, args := w.p.deleteFromSQL(w.d.tbl, keys)
	res, err := w.tx.ExecContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("forget displaced rows rewritten by the binary log: %w", err)
	}
	n, err := res.RowsAffected()
	w.displacedDelta -= n
	return err
}
