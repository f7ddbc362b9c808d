package plan

import (
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Choosing the shared key: the unique key that orders the copy and addresses rows in both tables
// (whether a key compares alike in both is sharedkey.go's).

// chooseSharedKey picks the unique key that orders the copy and addresses rows: present in both
// tables over the same columns (through the column mapping), with no column prefix, every column
// NOT NULL and not FLOAT/DOUBLE in both tables. The primary key is preferred, then the original's
// other unique keys in order; a key whose rows would be addressed by their bytes (its collation
// changes: ComparedByBytes) only when no other kept key serves. When no key is in both, a unique
// key of the ghost that extends one of the original's is used (extendedSharedKey).
func chooseSharedKey(orig, ghost *table.Table, pairs []ColumnPair) (table.Key, table.Key, error) {
	return ChooseSharedKeyWith(orig, ghost, pairs, false)
}

// ChooseSharedKeyWith is chooseSharedKey; with generatedKeys a key may also hold STORED generated
// columns that the altered table keeps unchanged (generatedTwins): the ghost computes the same
// values from the columns the copy and the applier write, and the binary log's FULL row images
// carry them, to address rows by (MySQL; MariaDB 11.8 leaves generated columns out of images).
func ChooseSharedKeyWith(orig, ghost *table.Table, pairs []ColumnPair, generatedKeys bool) (table.Key, table.Key, error) {
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

// ChooseNullableSharedKey is chooseSharedKey's second choice: the first unique key of the
// original in both tables, usable but for nullable columns.
func ChooseNullableSharedKey(orig, ghost *table.Table, pairs []ColumnPair) (table.Key, table.Key, bool) {
	toGhost := map[string]string{}
	for _, p := range pairs {
		toGhost[strings.ToLower(p.Original)] = p.Ghost
	}
	for _, ok := range orig.UniqueKeys {
		if gk, why := matchKey(orig, ghost, ok, toGhost, true); why == "" {
			return ok, gk, true
		}
	}
	return table.Key{}, table.Key{}, false
}
