package plan

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// The dry run's review: what an experienced DBA points out before such an ALTER runs, one line
// each (Plan.Review, ddl.ReviewLines). Every line is advice; none refuses. The reads that scan the table (clashes
// of a new unique key, values a narrowed column would change) run only on tables of at most
// reviewScanRows rows by the estimate: on a larger one the line says they were not counted.

// reviewScanRows bounds the tables whose rows the review counts.
const reviewScanRows = 1_000_000

// Review is the review of the prepared plan (the ghost exists, altered), read on db (the
// primary); the server's own ways to do the ALTER without a copy come first (ddl.ReviewLines).
// A read that fails becomes its line's text: the review never fails a dry run.
func (p *Plan) Review(ctx context.Context, db *sql.DB) []string {
	var lines []string
	lines = append(lines, p.newUniqueKeyReview(ctx, db)...)
	lines = append(lines, p.narrowedReview(ctx, db)...)
	lines = append(lines, p.addedTypeReview()...)
	lines = append(lines, p.droppedIndexReview(ctx, db)...)
	if len(p.ForeignKeys) > 0 || len(p.ReferencedBy) > 0 {
		lines = append(lines, "a foreign key is involved: the new table has none of the original's, and those referencing the original follow it to "+p.OldTable+" (doc/flags.md, Foreign keys)")
	}
	lines = append(lines, p.sizeReview(ctx, db))
	return lines
}

// newUniqueKeyReview counts, for each unique key of the ghost that the original lacks, the values
// that appear more than once in the original today (NULLs never clash).
func (p *Plan) newUniqueKeyReview(ctx context.Context, db *sql.DB) []string {
	var lines []string
	for _, k := range p.Ghost.UniqueKeys {
		if hasUniqueKeyOver(p.Original, k.Columns) || k.HasPrefix {
			continue
		}
		cols, ok := p.originalColumns(k.Columns)
		if !ok {
			continue
		}
		if p.EstimatedRows > reviewScanRows {
			lines = append(lines, fmt.Sprintf("the new unique key %s may drop rows: the original's duplicates were not counted (over %d rows); the run stops before the cut-over if any remain", table.QuoteIdent(k.Name), reviewScanRows))
			continue
		}
		var n int64
		q := fmt.Sprintf("SELECT COUNT(*) FROM (SELECT 1 FROM %s WHERE %s GROUP BY %s HAVING COUNT(*) > 1) d",
			table.Qualify(p.Original.Schema, p.Original.Name), notNull(cols), strings.Join(cols, ", "))
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			lines = append(lines, fmt.Sprintf("the new unique key %s: duplicates not counted: %v", table.QuoteIdent(k.Name), err))
			continue
		}
		if n > 0 {
			lines = append(lines, fmt.Sprintf("the new unique key %s would drop rows: %d values appear more than once in the original today; the run stops before the cut-over unless they are made unique", table.QuoteIdent(k.Name), n))
		} else {
			lines = append(lines, fmt.Sprintf("the new unique key %s holds for today's rows; a duplicate written during the run stops it before the cut-over", table.QuoteIdent(k.Name)))
		}
	}
	return lines
}

// narrowedReview counts, for each copied string or integer column whose new type holds less, the
// original's values that do not fit (the server's strict ALTER refuses them, as the run does).
func (p *Plan) narrowedReview(ctx context.Context, db *sql.DB) []string {
	var lines []string
	for _, c := range p.Columns {
		o, ok1 := p.Original.Column(c.Original)
		g, ok2 := p.Ghost.Column(c.Ghost)
		if !ok1 || !ok2 || o.ColumnType == g.ColumnType {
			continue
		}
		cond := narrowing(o, g, table.QuoteIdent(o.Name))
		if cond == "" {
			continue
		}
		what := fmt.Sprintf("column %s is narrowed (%s -> %s)", table.QuoteIdent(o.Name), o.ColumnType, g.ColumnType)
		if p.EstimatedRows > reviewScanRows {
			lines = append(lines, what+": the values that do not fit were not counted (over "+strconv.Itoa(reviewScanRows)+" rows)")
			continue
		}
		var n int64
		q := "SELECT COUNT(*) FROM " + table.Qualify(p.Original.Schema, p.Original.Name) + " WHERE " + cond
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			lines = append(lines, fmt.Sprintf("%s: values not counted: %v", what, err))
			continue
		}
		lines = append(lines, fmt.Sprintf("%s: %d values of the original do not fit (the run refuses them, as the server's strict ALTER does)", what, n))
	}
	return lines
}

// narrowing is the condition a value of column o (quoted col) meets when it does not fit g's
// type: a string longer than g's length, an integer out of g's range; "" when g holds every
// value o can.
func narrowing(o, g *table.Column, col string) string {
	if ol, gl := first(typeArgs(o.ColumnType)), first(typeArgs(g.ColumnType)); ol > 0 && gl > 0 && gl < ol && isString(o.DataType) && isString(g.DataType) {
		return fmt.Sprintf("CHAR_LENGTH(%s) > %d", col, gl)
	}
	omin, omax, ok1 := intRange(o)
	gmin, gmax, ok2 := intRange(g)
	if !ok1 || !ok2 || (gmin.Cmp(omin) <= 0 && gmax.Cmp(omax) >= 0) {
		return ""
	}
	return fmt.Sprintf("(%s < %s OR %s > %s)", col, gmin, col, gmax)
}

// addedTypeReview points at added columns of approximate or time-limited types.
func (p *Plan) addedTypeReview() []string {
	var lines []string
	for _, name := range p.Mapping.Added {
		c, ok := p.Ghost.Column(name)
		if !ok {
			continue
		}
		switch c.DataType {
		case "float", "double", "real":
			lines = append(lines, fmt.Sprintf("the added column %s is %s: an approximate number (DECIMAL keeps exact values)", table.QuoteIdent(name), strings.ToUpper(c.DataType)))
		case "timestamp":
			lines = append(lines, fmt.Sprintf("the added column %s is a TIMESTAMP: it cannot hold a moment after 2038-01-19 03:14:07 UTC (DATETIME can)", table.QuoteIdent(name)))
		}
	}
	return lines
}

// droppedIndexReview names the original's indexes the ALTER drops while they are visible: a
// query that uses one slows down at the cut-over, with no quick way back.
func (p *Plan) droppedIndexReview(ctx context.Context, db *sql.DB) []string {
	orig, err := visibleIndexes(ctx, db, p.Original.Schema, p.Original.Name)
	if err != nil {
		return []string{"indexes not compared: " + err.Error()}
	}
	ghost, err := visibleIndexes(ctx, db, p.Original.Schema, p.GhostTable)
	if err != nil {
		return []string{"indexes not compared: " + err.Error()}
	}
	hide := "ALTER INDEX <name> INVISIBLE"
	if p.Flavor.MariaDB {
		hide = "ALTER INDEX <name> IGNORED"
	}
	var lines []string
	for name, visible := range orig {
		if _, kept := ghost[name]; !kept && visible {
			lines = append(lines, fmt.Sprintf("the index %s is dropped while queries may use it: make it invisible first (%s), watch, then drop it", table.QuoteIdent(name), hide))
		}
	}
	return lines
}

// visibleIndexes maps each index of schema.name to whether it is visible (MariaDB: not IGNORED).
func visibleIndexes(ctx context.Context, db *sql.DB, schema, name string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SHOW INDEX FROM "+table.Qualify(schema, name))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for rows.Next() {
		row, err := dbconn.RowMap(rows, cols)
		if err != nil {
			return nil, err
		}
		// MySQL: Visible YES/NO; MariaDB 10.6+: Ignored YES/NO.
		out[row["Key_name"]] = !strings.EqualFold(row["Visible"], "NO") && !strings.EqualFold(row["Ignored"], "YES")
	}
	return out, rows.Err()
}

// sizeReview is the original's size on disk as the server reports it.
func (p *Plan) sizeReview(ctx context.Context, db *sql.DB) string {
	var data, index sql.NullInt64
	err := db.QueryRowContext(ctx, "SELECT DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
		p.Original.Schema, p.Original.Name).Scan(&data, &index)
	if err != nil {
		return "table size unknown: " + err.Error()
	}
	return fmt.Sprintf("the table holds about %d rows in %.1f MiB of data and %.1f MiB of indexes (the server's estimate); the copy writes as much again, and the binary log about as much",
		p.EstimatedRows, float64(data.Int64)/(1<<20), float64(index.Int64)/(1<<20))
}

// hasUniqueKeyOver says t has a unique key over exactly cols.
func hasUniqueKeyOver(t *table.Table, cols []string) bool {
	for _, k := range t.UniqueKeys {
		if SameColumns(k.Columns, cols) {
			return true
		}
	}
	return false
}

// originalColumns are the original's columns (quoted) copied into the ghost's columns gcols; ok is
// false when one of them is filled otherwise (an added or generated column).
func (p *Plan) originalColumns(gcols []string) (cols []string, ok bool) {
	for _, g := range gcols {
		found := false
		for _, c := range p.Columns {
			if strings.EqualFold(c.Ghost, g) {
				cols, found = append(cols, table.QuoteIdent(c.Original)), true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return cols, true
}

// notNull is "a IS NOT NULL AND b IS NOT NULL" over cols.
func notNull(cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c + " IS NOT NULL"
	}
	return strings.Join(parts, " AND ")
}

// isString is true for the types whose length counts characters or bytes up to a declared length.
func isString(dataType string) bool {
	switch dataType {
	case "char", "varchar", "binary", "varbinary":
		return true
	}
	return false
}

// first is the first of two values.
func first(a, _ int) int { return a }

// intRange is the smallest and largest value of an integer column.
func intRange(c *table.Column) (lo, hi *big.Int, ok bool) {
	bits, ok := integerBits[c.DataType]
	if !ok {
		return nil, nil, false
	}
	one := big.NewInt(1)
	if c.Unsigned {
		return big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(one, uint(bits)), one), true
	}
	hi = new(big.Int).Sub(new(big.Int).Lsh(one, uint(bits-1)), one)
	return new(big.Int).Neg(new(big.Int).Add(hi, one)), hi, true
}
