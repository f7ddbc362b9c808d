package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The shared key must compare alike in the original and in the ghost. The copy takes a duplicate
// on the ghost's shared key as "this row is in the ghost already" and the applier addresses ghost
// rows by it; both hold only when two keys distinct in the original stay distinct in the ghost.
// A key that changes collation ('a' and 'A' under a _ci collation), loses precision (DATETIME(6)
// to DATETIME) or changes type ('1' and '01' as INT) would merge rows silently, where the server's
// own ALTER fails with a duplicate-key error. So a key column is accepted only when its conversion
// is proven injective: the same type, charset and collation, or a widening of the same kind
// (a longer string, more decimal or fractional digits), any integer type into any other (a value
// either keeps its value or is refused by the strict copy and applier, as by the server's ALTER:
// a negative id into UNSIGNED), a character set and collation change under which values equal in the
// altered table were equal in the original (KeysStayDistinct), an ENUM that keeps every
// member (the copy converts by text: members may be added or reordered, so numbers change, but two
// distinct values stay distinct), or a SET that keeps every member in the same relative order (so
// each value keeps its text). Any other character set or collation of a character column is
// accepted too, with the ghost's rows addressed by their exact key bytes (ComparedByBytes): the
// conversion keeps every character distinct as bytes, so a row maps to one ghost row whatever
// the collation equates, and two rows that collide under the new collation fail the run as a
// clash on a new unique key does. Anything else is refused.

// sharedKeyComparable says why the original's key ok and the ghost's key gk (the same columns,
// in order, after renames) may not compare alike, or "" when every column converts injectively.
func sharedKeyComparable(orig, ghost *table.Table, ok, gk table.Key) string {
	for i, name := range ok.Columns {
		oc, found := orig.Column(name)
		if !found || i >= len(gk.Columns) {
			return "names an unknown column " + name
		}
		gc, found := ghost.Column(gk.Columns[i])
		if !found {
			return "names an unknown column " + gk.Columns[i] + " of the altered table"
		}
		if why := keyColumnConversion(oc, gc); why != "" {
			return fmt.Sprintf("column %s changes from %s to %s, %s", name, describeKeyType(oc), describeKeyType(gc), why)
		}
	}
	return ""
}

// extendedSharedKey finds a unique key gk of the ghost that extends a unique key ok of the
// original: gk has no column prefix, each of its columns is copied from a column of the original,
// usable as a key column in both tables and converting injectively, and those columns include
// every column of ok. Two rows of the original differ on ok, so they differ on gk in the ghost:
// gk identifies rows there as ok does in the original (DROP PRIMARY KEY, ADD PRIMARY KEY (grp, id)
// over a primary key (id)). The copy walks ok; the ghost's rows are addressed by gk, whose values
// every row image holds. The ghost's primary key is preferred, then its other unique keys, each
// with the original's first key it extends.
func extendedSharedKey(orig, ghost *table.Table, pairs []ColumnPair) (table.Key, table.Key, bool) {
	toOrig := map[string]string{}
	for _, p := range pairs {
		toOrig[strings.ToLower(p.Ghost)] = p.Original
	}
	for _, gk := range ghost.UniqueKeys {
		origCols, usable := extendedKeyColumns(orig, ghost, gk, toOrig)
		if !usable {
			continue
		}
		for _, ok := range orig.UniqueKeys {
			if !ok.HasPrefix && containsColumns(origCols, ok.Columns) {
				return ok, gk, true
			}
		}
	}
	return table.Key{}, table.Key{}, false
}

// extendedKeyColumns names the original's columns copied into the columns of ghost key gk, and
// says whether gk can address rows: no prefix, every column copied, usable in both tables and
// converting injectively.
func extendedKeyColumns(orig, ghost *table.Table, gk table.Key, toOrig map[string]string) ([]string, bool) {
	if gk.HasPrefix {
		return nil, false
	}
	cols := make([]string, len(gk.Columns))
	for i, g := range gk.Columns {
		o, found := toOrig[strings.ToLower(g)]
		if !found {
			return nil, false
		}
		oc, found := orig.Column(o)
		if !found || unusableKeyColumn(oc) != "" {
			return nil, false
		}
		gc, found := ghost.Column(g)
		if !found || unusableKeyColumn(gc) != "" {
			return nil, false
		}
		cols[i] = o
	}
	if sharedKeyComparable(orig, ghost, table.Key{Columns: cols}, gk) != "" {
		return nil, false
	}
	return cols, true
}

// containsColumns says every column of sub is in cols.
func containsColumns(cols, sub []string) bool {
	for _, s := range sub {
		found := false
		for _, c := range cols {
			found = found || strings.EqualFold(c, s)
		}
		if !found {
			return false
		}
	}
	return len(sub) > 0
}

// keyColumnConversion says why converting a key column from o to g may make two distinct values
// equal, or "" when it cannot.
func keyColumnConversion(o, g *table.Column) string {
	const merges = "so keys distinct in the original may be equal in the altered table"
	if collationChanges(o, g) && !KeysStayDistinct(o, g) && !(isCharacterString(o) && isCharacterString(g)) {
		return merges + " (another character set or collation)"
	}
	if strings.EqualFold(o.ColumnType, g.ColumnType) {
		return ""
	}
	ok := false
	switch {
	case integerBits[o.DataType] > 0 && integerBits[g.DataType] > 0:
		// Any integer type: a value that fits keeps its value, one that does not (a negative id into
		// UNSIGNED, a narrowing) is refused by the strict copy and applier as by the server's ALTER.
		ok = true
	case o.DataType != g.DataType:
	case o.DataType == "decimal" || o.DataType == "numeric":
		op, os := typeArgs(o.ColumnType)
		gp, gs := typeArgs(g.ColumnType)
		ok = gs >= os && gp-gs >= op-os && (g.Unsigned == o.Unsigned || !g.Unsigned)
	case o.DataType == "char" || o.DataType == "varchar" || o.DataType == "binary" || o.DataType == "varbinary":
		ol, _ := typeArgs(o.ColumnType)
		gl, _ := typeArgs(g.ColumnType)
		ok = gl >= ol
	case o.DataType == "datetime" || o.DataType == "time" || o.DataType == "timestamp":
		ok = g.FracDigits >= o.FracDigits
	case o.DataType == "enum" || o.DataType == "set":
		if !keepsMembers(o, g) {
			return merges + " (a member is dropped or respelled, or a SET's members are reordered)"
		}
		return ""
	}
	if ok {
		return ""
	}
	return merges
}

// keepsMembers says every member of ENUM or SET column o is a member of g, spelled alike. A SET's
// members must also keep their relative order: a SET value's text lists its members in declaration
// order, so 'x,z' of SET('x','y','z') would be 'z,x' in SET('z','y','x') and not match by text.
func keepsMembers(o, g *table.Column) bool {
	if o.DataType == "set" {
		next := 0
		for _, m := range g.EnumValues {
			if next < len(o.EnumValues) && o.EnumValues[next] == m {
				next++
			}
		}
		return next == len(o.EnumValues) && next > 0
	}
	have := map[string]bool{}
	for _, m := range g.EnumValues {
		have[m] = true
	}
	for _, m := range o.EnumValues {
		if !have[m] {
			return false
		}
	}
	return len(o.EnumValues) > 0
}

// integerBits is the width of each integer type.
var integerBits = map[string]int{"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}

// KeysStayDistinct says two values of character column o that differ under o's collation stay
// different once converted into g, the condition for the shared key to address rows (see the top).
// Then the original, unique under o's collation, is unique under g's at every moment too, and a
// key that changes its bytes within o's equality ('a' to 'A' under a _ci collation) is an update
// the applier replays by deleting both keys: the copy and the applier work as with an unchanged
// key. Either:
//   - the same weights: utf8mb3 into utf8mb4 under the same collation family (utf8mb3_general_ci
//     into utf8mb4_general_ci, ..._bin into ..._bin), whose weights agree on every character
//     utf8mb3 can hold (CONVERT TO CHARACTER SET utf8mb4 on MariaDB 10.11 does this); or
//   - a finer collation: g's is binary (_bin) and every character of o's character set converts
//     into g's as a distinct character. A NO PAD binary collation (utf8mb4_0900_bin,
//     utf8mb4_nopad_bin) equates identical strings only; a PAD SPACE one (utf8mb4_bin, latin1_bin)
//     also equates strings that differ in trailing spaces, as o's does when it is PAD SPACE.
//
// Anything else is refused. A collation that is neither (utf8mb3_general_ci into MySQL's
// utf8mb4_0900_ai_ci or MariaDB 11.8's utf8mb4_uca1400_ai_ci, the utf8mb4 defaults) equates
// values o tells apart ('ss' and 'ß', 'ae' and 'æ', full-width and ASCII letters, 'a' and
// 'a ' the other way round): two live rows of the original may then share one ghost key, and
// neither the copy nor the applier can tell that from a row they wrote earlier.
func KeysStayDistinct(o, g *table.Column) bool {
	oc, gc := strings.ToLower(o.Charset), strings.ToLower(g.Charset)
	ol, gl := strings.ToLower(o.Collation), strings.ToLower(g.Collation)
	if oc == "utf8" {
		oc = "utf8mb3"
	}
	if oc == "utf8mb3" && gc == "utf8mb4" {
		for _, prefix := range []string{"utf8mb3_", "utf8_"} {
			if suffix, found := strings.CutPrefix(ol, prefix); found && gl == "utf8mb4_"+suffix {
				return true
			}
		}
	}
	if ol == "" || !strings.HasSuffix(gl, "_bin") || !(oc == gc || convertsDistinctly[oc] && gc == "utf8mb4") {
		return false
	}
	return noPad(gl) || !noPad(ol)
}

// ComparedByBytes says ghost rows are addressed by the exact bytes of key column g, copied from
// o: both are character columns and g's collation may equate values o's tells apart, or tell
// apart values o's equates (KeysStayDistinct does not hold: 'ss' and 'ß' from utf8mb3_general_ci
// into utf8mb4_0900_ai_ci, 'a' and 'a ' from utf8mb4_0900_ai_ci into utf8mb4_bin). The ghost's
// key is then treated like a new unique key: the copy proves each row present by its bytes, the
// applier deletes by bytes, and a replayed row that clashes on the key with a row of other bytes
// moves that row aside (binlogapply's displaced rows), so two live rows of the original that share
// one ghost key fail the run before the cut-over, as the server's ALTER fails (a duplicate key).
func ComparedByBytes(o, g *table.Column) bool {
	return collationChanges(o, g) && isCharacterString(o) && isCharacterString(g) && !KeysStayDistinct(o, g)
}

// collationChanges says column g has another character set or collation than o.
func collationChanges(o, g *table.Column) bool {
	return !strings.EqualFold(o.Charset, g.Charset) || !strings.EqualFold(o.Collation, g.Collation)
}

// isCharacter says c holds character strings (a character set other than binary).
func isCharacter(c *table.Column) bool {
	return c.Charset != "" && !strings.EqualFold(c.Charset, "binary")
}

// isCharacterString says c is a CHAR or VARCHAR column of a character set: the key columns whose
// exact bytes can address rows (an ENUM or SET is matched by member text, not by bytes).
func isCharacterString(c *table.Column) bool {
	return isCharacter(c) && (c.DataType == "char" || c.DataType == "varchar")
}

// convertsDistinctly are the character sets whose every character is a distinct character of
// utf8mb4.
var convertsDistinctly = map[string]bool{"ascii": true, "latin1": true, "utf8mb3": true, "utf8mb4": true}

// noPad says collation name is NO PAD (trailing spaces count): MySQL's UCA 9.0.0 collations
// (_0900_) and MariaDB's _nopad_ ones. The others are PAD SPACE (MySQL's PAD_ATTRIBUTE agrees
// with the names on 9.7; MariaDB names every NO PAD collation so).
func noPad(name string) bool {
	return strings.Contains(name, "_0900_") || strings.Contains(name, "_nopad_")
}

// typeArgs reads "decimal(10,2)" as 10, 2 and "varchar(20)" as 20, 0.
func typeArgs(columnType string) (first, second int) {
	open, end := strings.IndexByte(columnType, '('), strings.IndexByte(columnType, ')')
	if open < 0 || end < open {
		return 0, 0
	}
	parts := strings.Split(columnType[open+1:end], ",")
	first, _ = strconv.Atoi(strings.TrimSpace(parts[0]))
	if len(parts) > 1 {
		second, _ = strconv.Atoi(strings.TrimSpace(parts[1]))
	}
	return first, second
}

// describeKeyType is the column's type with its collation, as the messages show it.
func describeKeyType(c *table.Column) string {
	if c.Collation != "" {
		return c.ColumnType + " COLLATE " + c.Collation
	}
	return c.ColumnType
}
