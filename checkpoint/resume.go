package checkpoint

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/rs/zerolog"
)

// The preconditions of a --resume (doc/resume.md): a run that continues the migration an earlier
// run of the same table and ALTER checkpointed, instead of starting afresh.
//
// Before anything is changed, Resume.Checkpoint checks that the ghost table exists, that the
// checkpoint table holds a checkpoint, that the checkpoint is of this ALTER (normalized: case,
// spacing and quoting aside; another ALTER giving the same definition, e.g. DROP a, ADD b instead
// of CHANGE a b, would mix rows of both) and that the server still has the binary log it starts
// in; then Resume.CompareGhost checks that the ghost's definition is the one a fresh ghost would
// have (the same ALTER of the original as it is now): a scratch ghost is created for the
// comparison and dropped at once. Once the copy is planned, SameCopy checks that each ghost column
// is copied from the same original column as in the stopped run (--skip-renamed-columns or
// --approve-renamed-columns change that under one ALTER). Each failing check is one line and the
// run stops with nothing else changed. The run then streams from the checkpoint's position and
// copies the keys above its key (Rewalk says when it must copy every key again).
//
// Why that converges: every event before the position was applied to the ghost and every row up
// to the key was in it; the applier writes full row images by shared key (a delete then the
// insert), so replaying events the ghost already has rewrites each row with its state at that
// event, and the last event of a row leaves its current state, as in any run. A replayed row that
// clashes on a new unique key with a row the ghost holds in a later state is moved aside and put
// back like any displaced row (binlogapply/displaced.go); a real duplicate stays displaced and
// fails the cut-over as it would in a fresh run.

// Tables names a migration's tables: the original and its helper tables, in Schema.
type Tables struct {
	Schema, Original             string
	Ghost, Changelog, Checkpoint string
}

// ScratchName is the table a resume creates to compare the ghost's definition with.
func ScratchName(original string) string { return "_" + original + "_ghr" }

// Resume is what the preconditions of a --resume read.
type Resume struct {
	Primary    *sql.DB // the server the tables are on
	Source     *sql.DB // the server whose binary logs the stream reads
	SourceAddr string  // its address, for the refusals
	Tables     Tables
	Alter      string         // this run's ALTER, normalized (NormalizeAlter)
	Set        []string       // the tables of this run's set (nil alone): Alter.Set
	Log        zerolog.Logger // says when the scratch table could not be dropped
}

// startAfresh is the way out most refusals offer.
func (t Tables) startAfresh() string {
	return fmt.Sprintf("drop %s, %s and %s and run without --resume", t.Ghost, t.Changelog, t.Checkpoint)
}

// Checkpoint checks that the ghost and the checkpoint table exist, that the latter holds a
// checkpoint of this ALTER and that Source still has the binary log the checkpoint starts in, and
// returns the checkpoint. Nothing is changed.
func (r Resume) Checkpoint(ctx context.Context) (Record, error) {
	t := r.Tables
	ok, err := table.Exists(ctx, r.Primary, t.Schema, t.Ghost)
	if err != nil {
		return Record{}, err
	}
	if !ok {
		return Record{}, fmt.Errorf("--resume: the ghost table %s.%s does not exist, so there is nothing to resume: run the migration without --resume", t.Schema, t.Ghost)
	}
	if ok, err = table.Exists(ctx, r.Primary, t.Schema, t.Checkpoint); err != nil {
		return Record{}, err
	}
	if !ok {
		return Record{}, fmt.Errorf("--resume: the checkpoint table %s.%s does not exist (the earlier run had no --checkpoint): drop %s and %s and run without --resume", t.Schema, t.Checkpoint, t.Ghost, t.Changelog)
	}
	rec, err := Last(ctx, r.Primary, t.Schema, t.Checkpoint)
	if errors.Is(err, ErrNone) {
		return rec, fmt.Errorf("--resume: the checkpoint table %s.%s holds no checkpoint (the earlier run stopped before its first): %s", t.Schema, t.Checkpoint, t.startAfresh())
	}
	if err != nil {
		return rec, fmt.Errorf("--resume: %w", err)
	}
	if err := r.sameAlter(rec); err != nil {
		return rec, err
	}
	logs, err := BinaryLogs(ctx, r.Source)
	if err != nil {
		return rec, fmt.Errorf("--resume: on %s: %w", r.SourceAddr, err)
	}
	if !slices.Contains(logs, rec.File) {
		return rec, fmt.Errorf("--resume: the checkpoint starts in binary log %s, which %s no longer has (purged): %s", rec.File, r.SourceAddr, t.startAfresh())
	}
	return rec, nil
}

// sameAlter refuses a checkpoint written for another ALTER than this run's, or by a version that
// did not record it.
func (r Resume) sameAlter(rec Record) error {
	t := r.Tables
	if rec.Alter == nil {
		return fmt.Errorf("--resume: the checkpoint in %s does not say which ALTER it is of (written by an older go-ghostlite), so resuming could mix the rows of two ALTERs: %s", t.Checkpoint, t.startAfresh())
	}
	if rec.Alter.Alter != r.Alter {
		return fmt.Errorf("--resume: the checkpoint in %s is of another ALTER (%s), not this one (%s): resuming would mix the rows of both; resume with the stopped run's --alter, or %s",
			t.Checkpoint, rec.Alter.Alter, r.Alter, t.startAfresh())
	}
	return r.sameSet(rec.Alter.Set)
}

// sameSet refuses a checkpoint of a table migrated in another set of tables (or alone) than this
// run's: a set is cut over together, so resuming part of it would cut some tables over alone.
func (r Resume) sameSet(was []string) error {
	t, now := r.Tables, sortedSet(r.Set)
	switch {
	case slices.Equal(was, now):
		return nil
	case now == nil:
		return fmt.Errorf("--resume: the checkpoint in %s is of the set of tables %s, cut over together: resume them together, with the stopped run's --statement naming them all, or %s",
			t.Checkpoint, strings.Join(was, ", "), t.startAfresh())
	case was == nil:
		return fmt.Errorf("--resume: the checkpoint in %s is of %s migrated alone, not in the set of tables %s: resume it alone, with the stopped run's --alter, or %s",
			t.Checkpoint, t.Original, strings.Join(now, ", "), t.startAfresh())
	}
	return fmt.Errorf("--resume: the checkpoint in %s is of the set of tables %s, not %s: resume with the stopped run's --statement, or %s",
		t.Checkpoint, strings.Join(was, ", "), strings.Join(now, ", "), t.startAfresh())
}

// CompareGhost compares the ghost's definition (name and AUTO_INCREMENT aside) with that of a
// scratch table (ScratchName) that build makes now the way the run would make its ghost (the
// same CREATE ... LIKE and ALTER); created tells whether build created it, even when it fails.
// The scratch table is dropped before and after.
func (r Resume) CompareGhost(ctx context.Context, build func(ctx context.Context, scratch string) (created bool, err error)) error {
	t := r.Tables
	scratch := ScratchName(t.Original)
	if _, err := r.Primary.ExecContext(ctx, "DROP TABLE IF EXISTS "+table.Qualify(t.Schema, scratch)); err != nil {
		return fmt.Errorf("--resume: drop %s.%s: %w", t.Schema, scratch, err)
	}
	created, err := build(ctx, scratch)
	if created {
		defer r.dropScratch(scratch) //nolint:contextcheck // the scratch table goes even when ctx ended
	}
	if err != nil {
		return err
	}
	want, err := table.Definition(ctx, r.Primary, t.Schema, scratch)
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	have, err := table.Definition(ctx, r.Primary, t.Schema, t.Ghost)
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	if have != want {
		return fmt.Errorf("--resume: the ghost table %s.%s is not what this ALTER makes of %s now (another --alter, or the table changed): %s",
			t.Schema, t.Ghost, t.Original, t.startAfresh())
	}
	return nil
}

// dropScratch drops the scratch table under its own context, logging a failure.
func (r Resume) dropScratch(scratch string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := r.Primary.ExecContext(ctx, "DROP TABLE IF EXISTS "+table.Qualify(r.Tables.Schema, scratch)); err != nil {
		r.Log.Warn().Err(err).Msgf("could not drop %s.%s: drop it by hand", r.Tables.Schema, scratch)
	}
}

// Adopt readies the checkpoint table of the stopped run for this one's records: a table made by
// an older version gets the columns it lacks (Upgrade).
func (r Resume) Adopt(ctx context.Context) error {
	if err := Upgrade(ctx, r.Primary, r.Tables.Schema, r.Tables.Checkpoint); err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	return nil
}

// SameCopy refuses a --resume whose copy would fill a ghost column from another original column
// than the stopped run did (or fill one it left to its default, or the reverse): the same ALTER
// under --skip-renamed-columns and --approve-renamed-columns. was is the checkpoint's record of
// the ALTER (nil: a record without one, refused earlier), now this run's. Nothing is changed.
func SameCopy(t Tables, was, now *Alter) error {
	if was == nil || maps.Equal(was.CopiedFrom, now.CopiedFrom) {
		return nil
	}
	return fmt.Errorf("--resume: the stopped run copied %s, this one would copy %s (another --skip-renamed-columns/--approve-renamed-columns?): resume with the stopped run's flags, or %s",
		describeCopy(was.CopiedFrom), describeCopy(now.CopiedFrom), t.startAfresh())
}

// describeCopy lists a ghost-column mapping as "b<-a, c<-c", sorted.
func describeCopy(from map[string]string) string {
	out := make([]string, 0, len(from))
	for g, o := range from {
		out = append(out, g+"<-"+o)
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// Rewalk tells whether a resume from rec must copy every key again instead of those above its
// key: the ghost has a unique key besides the shared key sharedKey, or byBytes says the shared
// key's rows are addressed by their bytes (a clash on it displaces rows too), so rows the stopped
// run's applier had moved aside (binlogapply/displaced.go) lived in its session's temporary
// table, lost with the process, and one under the checkpoint's key would be lost. INSERT IGNORE
// keeps the ghost's rows, and the proof finds the missing ones.
func Rewalk(rec Record, ghost *table.Table, sharedKey string, byBytes bool) bool {
	if rec.Key == nil {
		return false
	}
	if byBytes {
		return true
	}
	for _, k := range ghost.UniqueKeys {
		if !strings.EqualFold(k.Name, sharedKey) {
			return true
		}
	}
	return false
}

// StreamFrom is where a resumed run's binlog stream starts: the checkpoint's position. With
// --gtid it needs the checkpoint's GTID set.
func (rec Record) StreamFrom(useGTID bool) (Position, error) {
	pos := Position{File: rec.File, Pos: rec.Pos, GTID: rec.GTID}
	if useGTID && pos.GTID == "" {
		return pos, fmt.Errorf("--resume --gtid: the checkpoint has no GTID set: resume without --gtid")
	}
	return pos, nil
}
