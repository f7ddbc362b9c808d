package migrator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/checkpoint"
	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Resume (--resume, doc/resume.md): a run that continues the migration an earlier run of the same
// table and ALTER checkpointed, instead of starting afresh.
//
// Preparation checks, before anything is changed, that the ghost table exists, that the checkpoint
// table holds a checkpoint, that the checkpoint is of this ALTER (normalized: case, spacing and
// quoting aside; another ALTER giving the same definition, e.g. DROP a, ADD b instead of CHANGE a
// b, would mix rows of both) and that the server still has the binary log it starts in; then that
// the ghost's definition is the one a fresh ghost would have (the same ALTER of the original as it
// is now): a scratch ghost is created for the comparison and dropped at once. Once the copy is
// planned, each ghost column must be copied from the same original column as in the stopped run
// (--skip-renamed-columns or --approve-renamed-columns change that under one ALTER). Each failing check
// is one line and the run stops with nothing else changed. The run then streams from the
// checkpoint's position and copies the keys above its key (start, newCopier).
//
// Why that converges: every event before the position was applied to the ghost and every row up
// to the key was in it; the applier writes full row images by shared key (a delete then the
// insert), so replaying events the ghost already has rewrites each row with its state at that
// event, and the last event of a row leaves its current state, as in any run. A replayed row that
// clashes on a new unique key with a row the ghost holds in a later state is moved aside and put
// back like any displaced row (binlogapply/displaced.go); a real duplicate stays displaced and
// fails the cut-over as it would in a fresh run.

// scratchGhostName is the table a resume creates to compare the ghost's definition with.
func scratchGhostName(tbl string) string { return "_" + tbl + "_ghr" }

// checkResume runs the resume's checks and adopts the existing ghost (see above).
func (m *Migrator) checkResume(ctx context.Context, s *session, spec *alterSpec) error {
	cfg, p := m.cfg, s.plan
	schema := cfg.Database
	ok, err := tableExists(ctx, s.primary, schema, p.GhostTable)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("--resume: the ghost table %s.%s does not exist, so there is nothing to resume: run the migration without --resume", schema, p.GhostTable)
	}
	if ok, err = tableExists(ctx, s.primary, schema, p.CheckpointTable); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("--resume: the checkpoint table %s.%s does not exist (the earlier run had no --checkpoint): drop %s and %s and run without --resume", schema, p.CheckpointTable, p.GhostTable, p.ChangelogTable)
	}
	rec, err := checkpoint.Last(ctx, s.primary, schema, p.CheckpointTable)
	if errors.Is(err, checkpoint.ErrNone) {
		return fmt.Errorf("--resume: the checkpoint table %s.%s holds no checkpoint (the earlier run stopped before its first): drop %s, %s and %s and run without --resume", schema, p.CheckpointTable, p.GhostTable, p.ChangelogTable, p.CheckpointTable)
	}
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	if err := checkResumeAlter(s, rec); err != nil {
		return err
	}
	logs, err := checkpoint.BinaryLogs(ctx, s.inspected)
	if err != nil {
		return fmt.Errorf("--resume: on %s: %w", p.Inspected.Addr(), err)
	}
	if !slices.Contains(logs, rec.File) {
		return fmt.Errorf("--resume: the checkpoint starts in binary log %s, which %s no longer has (purged): drop %s, %s and %s and run without --resume", rec.File, p.Inspected.Addr(), p.GhostTable, p.ChangelogTable, p.CheckpointTable)
	}
	if err := m.checkGhostDefinition(ctx, s, spec); err != nil {
		return err
	}
	if p.Ghost, err = table.Inspect(ctx, s.primary, schema, p.GhostTable); err != nil {
		return fmt.Errorf("--resume: inspect the ghost table: %w", err)
	}
	if err := checkpoint.Upgrade(ctx, s.primary, schema, p.CheckpointTable); err != nil { // an older version's table
		return fmt.Errorf("--resume: %w", err)
	}
	s.resume = &rec
	s.own(ctx, p.GhostTable, p.GhostTable)
	m.log.Info().Str("checkpoint", rec.String()).Int64("rows_copied", rec.RowsCopied).Str("written", rec.At.Format(time.RFC3339)).
		Msg("resuming from the last checkpoint")
	return nil
}

// checkGhostDefinition compares the ghost's SHOW CREATE TABLE (name and AUTO_INCREMENT aside) with
// a scratch ghost made now by the same CREATE ... LIKE and ALTER; the scratch table is dropped.
func (m *Migrator) checkGhostDefinition(ctx context.Context, s *session, spec *alterSpec) error {
	cfg, p := m.cfg, s.plan
	schema, scratch := cfg.Database, scratchGhostName(cfg.Table)
	ddl, err := readDDLSettings(ctx, s.primary, cfg.AllowZeroInDate, cfg.SkipStrictMode)
	if err != nil {
		return fmt.Errorf("on %s: %w", p.Primary.Addr(), err)
	}
	s.ddl = ddl
	p.TimeZone = ddl.TimeZone
	p.Primary.NoZeroDate, p.Primary.NoZeroInDate = zeroDateChecks(ddl.SQLMode)
	p.AlterSetsAutoIncrement = setsAutoIncrement(spec)
	if _, err := s.primary.ExecContext(ctx, "DROP TABLE IF EXISTS "+table.Qualify(schema, scratch)); err != nil {
		return fmt.Errorf("--resume: drop %s.%s: %w", schema, scratch, err)
	}
	created, err := createGhost(ctx, s.primary, ddl, schema, cfg.Table, scratch, spec, cfg.DiscardForeignKeys)
	if created {
		defer func() { //nolint:contextcheck // the scratch table goes even when ctx ended
			dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if _, err := s.primary.ExecContext(dctx, "DROP TABLE IF EXISTS "+table.Qualify(schema, scratch)); err != nil {
				m.log.Warn().Err(err).Msgf("could not drop %s.%s: drop it by hand", schema, scratch)
			}
		}()
	}
	if err != nil {
		return fmt.Errorf("--resume: %w", err)
	}
	want, err := definitionOf(ctx, s, scratch)
	if err != nil {
		return err
	}
	have, err := definitionOf(ctx, s, p.GhostTable)
	if err != nil {
		return err
	}
	if have != want {
		return fmt.Errorf("--resume: the ghost table %s.%s is not what this ALTER makes of %s now (another --alter, or the table changed): drop %s, %s and %s and run without --resume",
			schema, p.GhostTable, cfg.Table, p.GhostTable, p.ChangelogTable, p.CheckpointTable)
	}
	return nil
}

// definitionOf is name's SHOW CREATE TABLE without its first line (the name) and AUTO_INCREMENT.
func definitionOf(ctx context.Context, s *session, name string) (string, error) {
	var n, create string
	if err := s.primary.QueryRowContext(ctx, "SHOW CREATE TABLE "+table.Qualify(s.plan.Original.Schema, name)).Scan(&n, &create); err != nil {
		return "", fmt.Errorf("--resume: read the definition of %s: %w", name, err)
	}
	if i := strings.IndexByte(create, '\n'); i >= 0 {
		create = create[i:]
	}
	return autoIncOption.ReplaceAllString(create, ""), nil
}

// hasOtherUniqueKey tells whether t has a unique key other than shared: a replayed row can clash
// on it and move a ghost row aside.
func hasOtherUniqueKey(t *table.Table, shared table.Key) bool {
	for _, k := range t.UniqueKeys {
		if !strings.EqualFold(k.Name, shared.Name) {
			return true
		}
	}
	return false
}

// plainWord is an identifier that needs no quotes.
var plainWord = regexp.MustCompile(`^[A-Z0-9_$]+$`)

// oneLine escapes what would break a line (the normalized ALTER is shown in one-line errors);
// the backslash first, so that the escaping reads back one way only.
var oneLine = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`)

// normalizeAlter is the ALTER's clauses as the server reads them, one way of writing them: words
// and identifiers (quoted or not) upper-cased (quoted only where they must be), strings quoted
// one way, tokens separated by one space, comments dropped, line breaks escaped. Two ALTERs
// differing only in case, spacing, comments or quoting read the same.
func normalizeAlter(body string) (string, error) {
	toks, err := tokenize(body)
	if err != nil {
		return "", err
	}
	parts := make([]string, len(toks))
	for i, t := range toks {
		switch t.Kind {
		case sqltok.Word, sqltok.Ident:
			parts[i] = strings.ToUpper(t.Text)
			if !plainWord.MatchString(parts[i]) {
				parts[i] = oneLine.Replace(table.QuoteIdent(parts[i]))
			}
		case sqltok.String:
			parts[i] = "'" + oneLine.Replace(strings.ReplaceAll(t.Text, "'", "''")) + "'"
		default:
			parts[i] = t.Text
		}
	}
	return strings.Join(parts, " "), nil
}

// alterRecord is what a checkpoint records of the run's ALTER: normalized, and the original
// column each ghost column is copied from.
func (s *session) alterRecord() *checkpoint.Alter {
	from := make(map[string]string, len(s.plan.Columns))
	for _, c := range s.plan.Columns {
		from[strings.ToLower(c.Ghost)] = strings.ToLower(c.Original)
	}
	return &checkpoint.Alter{Alter: s.alter, CopiedFrom: from}
}

// checkResumeAlter refuses a checkpoint written for another ALTER than this run's, or by a version
// that did not record it, in one line, before anything is changed.
func checkResumeAlter(s *session, rec checkpoint.Record) error {
	p := s.plan
	drop := fmt.Sprintf("drop %s, %s and %s and run without --resume", p.GhostTable, p.ChangelogTable, p.CheckpointTable)
	if rec.Alter == nil {
		return fmt.Errorf("--resume: the checkpoint in %s does not say which ALTER it is of (written by an older go-ghostlite), so resuming could mix the rows of two ALTERs: %s", p.CheckpointTable, drop)
	}
	if rec.Alter.Alter != s.alter {
		return fmt.Errorf("--resume: the checkpoint in %s is of another ALTER (%s), not this one (%s): resuming would mix the rows of both; resume with the stopped run's --alter, or %s",
			p.CheckpointTable, rec.Alter.Alter, s.alter, drop)
	}
	return nil
}

// checkResumeColumns refuses a --resume whose copy would fill a ghost column from another original
// column than the stopped run did (or fill one it left to its default, or the reverse): the same
// ALTER under --skip-renamed-columns and --approve-renamed-columns. Nothing is changed yet.
func checkResumeColumns(s *session) error {
	if s.resume == nil || s.resume.Alter == nil {
		return nil
	}
	was, now := s.resume.Alter.CopiedFrom, s.alterRecord().CopiedFrom
	if maps.Equal(was, now) {
		return nil
	}
	p := s.plan
	return fmt.Errorf("--resume: the stopped run copied %s, this one would copy %s (another --skip-renamed-columns/--approve-renamed-columns?): resume with the stopped run's flags, or drop %s, %s and %s and run without --resume",
		describeCopy(was), describeCopy(now), p.GhostTable, p.ChangelogTable, p.CheckpointTable)
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
