package preflight

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The ghost table is created on the primary with CREATE TABLE ... LIKE and altered there, so the
// server itself proves the ALTER; then both tables are compared to find what the copy can rely on:
// the columns they share and a unique key they share.

// DDLSettings are the session settings the ghost's CREATE and ALTER run with: the server's global
// ones, so the ALTER is accepted or refused (and its literal defaults read) as the server's own
// ALTER would be.
type DDLSettings struct {
	TimeZone string // @@global.time_zone
	SQLMode  string // @@global.sql_mode, relaxed by --allow-zero-in-date / --skip-strict-mode
}

// apply gives conn the server's settings and a utf8mb4 client character set, so the ALTER's
// string literals are text, as an application's client sends them (MySQL refuses a JSON value
// from a binary string: JSON_VALUE(j, '$.n') in a binary session fails), then runs extra
// (", SESSION x = y" assignments, or ""). conn must not go back to the writer pool.
func (d DDLSettings) apply(ctx context.Context, conn *sql.Conn, extra string) error {
	if _, err := conn.ExecContext(ctx, "SET NAMES utf8mb4"); err != nil {
		return err
	}
	_, err := conn.ExecContext(ctx, "SET SESSION time_zone = "+table.QuoteString(d.TimeZone)+", SESSION sql_mode = "+table.QuoteString(d.SQLMode)+extra)
	return err
}

// ReadDDLSettings reads the primary's global time zone and sql_mode and applies the relaxing flags.
func ReadDDLSettings(ctx context.Context, db *sql.DB, allowZeroInDate, skipStrict bool) (DDLSettings, error) {
	var d DDLSettings
	if err := db.QueryRowContext(ctx, "SELECT @@global.time_zone, @@global.sql_mode").Scan(&d.TimeZone, &d.SQLMode); err != nil {
		return d, fmt.Errorf("read the server's global time_zone and sql_mode: %w", err)
	}
	d.SQLMode = relaxSQLMode(d.SQLMode, allowZeroInDate, skipStrict)
	return d, nil
}

// relaxSQLMode removes NO_ZERO_IN_DATE and NO_ZERO_DATE (--allow-zero-in-date) and the strict
// modes (--skip-strict-mode) from mode.
func relaxSQLMode(mode string, allowZeroInDate, skipStrict bool) string {
	var keep []string
	for _, m := range strings.Split(mode, ",") {
		u := strings.ToUpper(strings.TrimSpace(m))
		switch {
		case u == "":
			continue
		case allowZeroInDate && (u == "NO_ZERO_IN_DATE" || u == "NO_ZERO_DATE"):
			continue
		case skipStrict && (u == "STRICT_ALL_TABLES" || u == "STRICT_TRANS_TABLES"):
			continue
		}
		keep = append(keep, u)
	}
	return strings.Join(keep, ",")
}

// ZeroDateChecks says which zero dates the writers must refuse so that the copy and the applier
// refuse what the server's own ALTER refuses under sql_mode mode (the DDL settings' mode), or
// changes: the ALTER checks every temporal value it stores, in a column it does not touch too.
// With a strict mode it refuses a zero date under NO_ZERO_DATE and a zero month or day
// ('2020-00-10') under NO_ZERO_IN_DATE. Without one it stores a zero date as it is (so the writers
// take it) but turns a zero month or day into the zero date, which the writers, strict always,
// refuse as they refuse every other change a non-strict ALTER would make. The writers get the
// checks through dbconn.Config.NoZeroDate and NoZeroInDate.
func ZeroDateChecks(mode string) (noZeroDate, noZeroInDate bool) {
	strict := false
	for _, m := range strings.Split(strings.ToUpper(mode), ",") {
		switch strings.TrimSpace(m) {
		case "NO_ZERO_DATE":
			noZeroDate = true
		case "NO_ZERO_IN_DATE":
			noZeroInDate = true
		case "STRICT_ALL_TABLES", "STRICT_TRANS_TABLES":
			strict = true
		}
	}
	return noZeroDate && strict, noZeroInDate
}

// CreateGhost creates schema.ghost like schema.orig and applies the ALTER to it, in a session with
// the server's settings (ddl). created reports whether the ghost table now exists (the caller drops
// it on a later failure).
func CreateGhost(ctx context.Context, db *sql.DB, ddl DDLSettings, schema, orig, ghost string, spec *AlterSpec, discardFKs bool) (created bool, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("create the ghost table: connect: %w", err)
	}
	defer conn.Close()
	// The pool's sessions are writer sessions; this one is given back changed: close it instead.
	defer conn.Raw(func(any) error { return driver.ErrBadConn }) //nolint:errcheck // marks the session unusable
	if err := ddl.apply(ctx, conn, ""); err != nil {
		return false, fmt.Errorf("create the ghost table: set the server's time_zone and sql_mode: %w", err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("CREATE TABLE %s LIKE %s", table.Qualify(schema, ghost), table.Qualify(schema, orig))); err != nil {
		return false, fmt.Errorf("create the ghost table %s.%s: %w", schema, ghost, err)
	}
	body, err := renameGhostChecks(ctx, conn, schema, orig, ghost, spec.Body)
	if err != nil {
		return true, err
	}
	if discardFKs {
		// CREATE TABLE ... LIKE does not copy foreign keys on MySQL or MariaDB; drop any that a
		// future server would copy, so --discard-foreign-keys holds whatever the server does.
		fks, err := dbconn.QueryStrings(ctx, db, `SELECT CONSTRAINT_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS
			WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ? ORDER BY CONSTRAINT_NAME`, schema, ghost)
		if err != nil {
			return true, fmt.Errorf("read foreign keys of the ghost table: %w", err)
		}
		drops := make([]string, len(fks))
		for i, fk := range fks {
			drops[i] = "DROP FOREIGN KEY " + table.QuoteIdent(fk)
		}
		if len(drops) > 0 {
			body = strings.Join(drops, ", ") + ", " + body
		}
	}
	if _, err := conn.ExecContext(ctx, "ALTER TABLE "+table.Qualify(schema, ghost)+" "+body); err != nil {
		// One line: the server quotes the failing part of the statement, newlines included.
		return true, fmt.Errorf("the ALTER fails on the ghost table: %w", dbconn.OneLine(err))
	}
	return true, nil
}

// ColumnMapping is how the original's columns reach the ghost.
type ColumnMapping struct {
	Pairs          []ColumnPair      // copied: original -> ghost, in the original's order
	Renames        map[string]string // applied renames: original name -> ghost name
	Dropped        []string          // original columns the ghost does not have
	SkippedRenamed []string          // "a -> b": renamed columns not copied (--skip-renamed-columns)
	Added          []string          // ghost columns nothing is copied into: they get their defaults
	Generated      []string          // generated on either side: computed by the server, never copied
}

// mapColumns matches columns by name after the ALTER's renames. A column whose name a rename
// gives to another column is not matched by name (its name now belongs to the renamed column),
// nor is a column the ALTER drops and adds again (recreated): the new one gets its default.
func mapColumns(orig, ghost *table.Table, renames []ColumnRename, recreated []string, skipRenamed bool) (ColumnMapping, error) {
	renameOf := map[string]string{}
	target := map[string]bool{}
	for _, c := range recreated {
		target[strings.ToLower(c)] = true
	}
	for _, r := range renames {
		renameOf[strings.ToLower(r.From)] = r.To
		target[strings.ToLower(r.To)] = true
	}
	m := ColumnMapping{Renames: map[string]string{}}
	used := map[string]bool{}
	for _, oc := range orig.Columns {
		to, renamed := renameOf[strings.ToLower(oc.Name)]
		if renamed {
			m.Renames[oc.Name] = to
		}
		if oc.Generated {
			m.Generated = append(m.Generated, oc.Name)
			if !renamed {
				to = oc.Name
			}
			if gc, ok := ghost.Column(to); ok && gc.Generated {
				used[strings.ToLower(gc.Name)] = true // still generated: listed once
			}
			continue
		}
		switch {
		case renamed && skipRenamed:
			m.SkippedRenamed = append(m.SkippedRenamed, oc.Name+" -> "+to)
			continue
		case !renamed && target[strings.ToLower(oc.Name)]:
			m.Dropped = append(m.Dropped, oc.Name)
			continue
		case !renamed:
			to = oc.Name
		}
		gc, ok := ghost.Column(to)
		if !ok {
			m.Dropped = append(m.Dropped, oc.Name)
			continue
		}
		if gc.Generated {
			m.Generated = append(m.Generated, gc.Name)
			used[strings.ToLower(gc.Name)] = true
			continue
		}
		shift, err := table.ZoneShiftOf(&oc, gc)
		if err != nil {
			return m, err
		}
		m.Pairs = append(m.Pairs, ColumnPair{Original: oc.Name, Ghost: gc.Name, Shift: shift})
		used[strings.ToLower(gc.Name)] = true
	}
	for _, gc := range ghost.Columns {
		if used[strings.ToLower(gc.Name)] {
			continue
		}
		if gc.Generated {
			m.Generated = append(m.Generated, gc.Name)
		} else {
			m.Added = append(m.Added, gc.Name)
		}
	}
	if len(m.Pairs) == 0 {
		return m, fmt.Errorf("the original %s and the altered table share no column: there is nothing to copy", orig.Name)
	}
	return m, nil
}

// DescribeKey is "name (col, ...)", for messages.
func DescribeKey(k table.Key) string {
	return fmt.Sprintf("%s (%s)", k.Name, strings.Join(k.Columns, ", "))
}

// chooseSharedKey picks the unique key that orders the copy and addresses rows: present in both
// tables over the same columns (through the column mapping), with no column prefix, every column
// NOT NULL and not FLOAT/DOUBLE in both tables. The primary key is preferred, then the original's
// other unique keys in order; a key whose rows would be addressed by their bytes (its collation
// changes: ComparedByBytes) only when no other kept key serves. When no key is in both, a unique
// key of the ghost that extends one of the original's is used (extendedSharedKey).
func chooseSharedKey(orig, ghost *table.Table, pairs []ColumnPair) (table.Key, table.Key, error) {
	return chooseSharedKeyWith(orig, ghost, pairs, false)
}

// chooseSharedKeyWith is chooseSharedKey; with generatedKeys a key may also hold STORED generated
// columns that the altered table keeps unchanged (generatedTwins): the ghost computes the same
// values from the columns the copy and the applier write, and the binary log's FULL row images
// carry them, to address rows by (MySQL; MariaDB 11.8 leaves generated columns out of images).
func chooseSharedKeyWith(orig, ghost *table.Table, pairs []ColumnPair, generatedKeys bool) (table.Key, table.Key, error) {
	if len(orig.UniqueKeys) == 0 {
		return table.Key{}, table.Key{}, fmt.Errorf("no PRIMARY nor UNIQUE key found in table! Bailing out: %s.%s needs a unique NOT NULL key to be copied in order and its rows addressed: add one with a plain ALTER TABLE first",
			orig.Schema, orig.Name)
	}
	toGhost := map[string]string{}
	for _, p := range pairs {
		toGhost[strings.ToLower(p.Original)] = p.Ghost
	}
	if generatedKeys {
		for _, name := range generatedTwins(orig, ghost) {
			toGhost[strings.ToLower(name)] = name
		}
	}
	var reasons []string
	fix := "keep a unique NOT NULL key in both"
	var byBytes []table.Key // the first usable pair whose rows would be addressed by their bytes
	for _, ok := range orig.UniqueKeys {
		gk, why := matchKey(orig, ghost, ok, toGhost, false)
		if why == "" && byBytes == nil && addressedByBytes(orig, ghost, ok, gk) {
			byBytes = []table.Key{ok, gk} // an unchanged key, if any, serves better
			continue
		}
		if why == "" {
			return ok, gk, nil
		}
		reasons = append(reasons, why)
		if strings.Contains(why, "has nullable column") {
			fix = "keep a unique NOT NULL key in both, or pass --allow-nullable-unique-key if its columns hold no NULL (chosen key " +
				DescribeKey(ok) + " has nullable columns. Bailing out. To force this operation to continue, supply --allow-nullable-unique-key flag)"
		}
		if strings.Contains(why, "may be equal in the altered table") {
			fix = "keep a unique NOT NULL key in both whose columns keep their type and collation, or run this ALTER with the server's own ALTER TABLE"
		}
		if strings.Contains(why, "(another character set or collation)") {
			fix = "give the key's columns a collation that tells apart every two values their current one does (the same family, as utf8mb4_general_ci for utf8mb3_general_ci, or a binary one such as utf8mb4_bin), keep another unique NOT NULL key in both, or run this ALTER with the server's own ALTER TABLE"
		}
	}
	if byBytes != nil {
		return byBytes[0], byBytes[1], nil
	}
	if ok, gk, found := extendedSharedKey(orig, ghost, pairs); found {
		return ok, gk, nil
	}
	return table.Key{}, table.Key{}, noSharedKey(orig, ghost, toGhost, reasons, fix)
}

// addressedByBytes says some column of the original's key ok, as gk in the ghost, changes its
// collation so that the ghost's rows would be addressed by their bytes (ComparedByBytes).
func addressedByBytes(orig, ghost *table.Table, ok, gk table.Key) bool {
	for i, name := range ok.Columns {
		oc, found := orig.Column(name)
		if !found || i >= len(gk.Columns) {
			continue
		}
		if gc, found := ghost.Column(gk.Columns[i]); found && ComparedByBytes(oc, gc) {
			return true
		}
	}
	return false
}

// noSharedKey is the refusal when no unique key can be shared: gh-ost's words for the case (an
// ALTER that leaves no unique key at all, a DATETIME key column made TIMESTAMP, or the general
// one), then why each of the original's keys cannot serve and the fix.
func noSharedKey(orig, ghost *table.Table, toGhost map[string]string, reasons []string, fix string) error {
	why := strings.Join(reasons, "; ")
	if len(ghost.UniqueKeys) == 0 {
		return fmt.Errorf("no shared unique key can be found after ALTER! Bailing out: no PRIMARY nor UNIQUE key found in table %s after the ALTER (%s); %s",
			ghost.Name, why, fix)
	}
	for _, ok := range orig.UniqueKeys {
		for _, c := range ok.Columns {
			oc, _ := orig.Column(c)
			gc, _ := ghost.Column(toGhost[strings.ToLower(c)])
			if oc != nil && gc != nil && oc.DataType == "datetime" && gc.DataType == "timestamp" {
				return fmt.Errorf("no support at this time for converting a column from DATETIME to TIMESTAMP that is also part of the chosen unique key. Column: %s, key: %s: %s; %s",
					c, ok.Name, why, fix)
			}
		}
	}
	return fmt.Errorf("no shared unique key can be found after ALTER! Bailing out: %s; %s", why, fix)
}

// matchKey finds the ghost's key matching the original's key ok, and says why it is unusable ("" when usable).
// nullableOK lets the key's columns be nullable (--allow-nullable-unique-key).
func matchKey(orig, ghost *table.Table, ok table.Key, toGhost map[string]string, nullableOK bool) (table.Key, string) {
	name := "the original's " + DescribeKey(ok)
	if ok.HasPrefix {
		return table.Key{}, name + " indexes a column prefix"
	}
	ghostCols := make([]string, len(ok.Columns))
	for i, c := range ok.Columns {
		oc, found := orig.Column(c)
		if !found {
			return table.Key{}, name + " names an unknown column " + c
		}
		g, found := toGhost[strings.ToLower(c)]
		if why := unusableKeyColumn(oc); why != "" && (why != "nullable" || !nullableOK) && (why != "generated" || !found) {
			return table.Key{}, fmt.Sprintf("%s has %s column %s", name, why, c)
		}
		if !found {
			return table.Key{}, name + " is not in the altered table (column " + c + " is not copied)"
		}
		ghostCols[i] = g
	}
	for _, gk := range ghost.UniqueKeys {
		if !SameColumns(gk.Columns, ghostCols) {
			continue
		}
		if gk.HasPrefix {
			return table.Key{}, name + " indexes a column prefix in the altered table"
		}
		for _, c := range gk.Columns {
			gc, _ := ghost.Column(c)
			if gc == nil {
				return table.Key{}, name + " names an unknown column of the altered table"
			}
			if why := unusableKeyColumn(gc); why != "" && (why != "nullable" || !nullableOK) && (why != "generated" || !mapsTo(toGhost, c)) {
				return table.Key{}, fmt.Sprintf("%s has %s column %s in the altered table", name, why, c)
			}
		}
		if why := sharedKeyComparable(orig, ghost, ok, gk); why != "" {
			return table.Key{}, name + ": " + why
		}
		return gk, ""
	}
	return table.Key{}, name + " is not in the altered table"
}

// generatedTwins are the STORED generated columns of orig that ghost has under the same name,
// type and expression: the same values in both tables, computed by each.
func generatedTwins(orig, ghost *table.Table) []string {
	var out []string
	for _, oc := range orig.Columns {
		if !oc.Generated || !oc.Stored {
			continue
		}
		if gc, ok := ghost.Column(oc.Name); ok && gc.Generated && gc.Stored && gc.ColumnType == oc.ColumnType &&
			gc.GenerationExpr == oc.GenerationExpr && gc.Collation == oc.Collation {
			out = append(out, oc.Name)
		}
	}
	return out
}

// mapsTo says whether some original column maps to the ghost column g.
func mapsTo(toGhost map[string]string, g string) bool {
	for _, to := range toGhost {
		if strings.EqualFold(to, g) {
			return true
		}
	}
	return false
}

func unusableKeyColumn(c *table.Column) string {
	switch {
	case c.Nullable:
		return "nullable"
	case c.DataType == "float" || c.DataType == "double" || c.DataType == "real":
		return "FLOAT/DOUBLE"
	case c.Generated:
		return "generated"
	}
	return ""
}

// SameColumns says whether a and b name the same columns in the same order (case-insensitively).
func SameColumns(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}
