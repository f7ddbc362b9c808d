package binlogapply

import (
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// colPlan is one original column that is decoded from row images and, when ghost is set, written.
type colPlan struct {
	idx   int           // 0-based position in the row image
	col   *table.Column // the original's column: decoding follows it
	ghost string        // ghost column name
	expr  string        // SQL placeholder expression: "?" or a CONVERT of it
	// keyExpr is how the value is compared with the ghost column when it addresses a row: in the
	// ghost column's charset and collation, so the comparison follows the ghost's unique index.
	keyExpr string
	// keyBytes, set for a shared key column in Config.KeyByBytes, is the exact bytes of keyExpr:
	// the ghost's collation may equate this value with another row's, so rows are addressed by
	// their bytes too (table.KeyBytes).
	keyBytes string
	// bytesCol is the ghost column when keyBytes is set: its stored value's bytes are taken alike
	// (table.ColumnBytes).
	bytesCol *table.Column
	// ghostEnum says the ghost column is an ENUM: index 0 of the original's ENUM is written
	// relaxed (enumzero.go).
	ghostEnum bool
	// byNumber says an ENUM or SET value is written as its number (index, bitmask): the ghost
	// column is numeric, and the server's ALTER stores the number (table.BindsByNumber).
	byNumber bool
	// bitBytes says a BIT value is written as its bytes: the ghost column holds strings
	// (table.BindsBitAsBytes).
	bitBytes bool
	// zeroExpr, when set, writes a value the writers' sql_mode refuses as a zero date (or a zero
	// month or day) as the server's ALTER converts it, bound to its number, its time part or its
	// text (zeroArg, zerodate.go).
	zeroExpr string
	zeroArg  table.ZeroArg
}

// plan is what New derives from Config once: which columns are written where, and how.
type plan struct {
	ncols      int       // columns in the original (and in every row image of it)
	write      []colPlan // written columns, in original order
	key        []colPlan // shared key columns, in key order
	keyPos     []int     // index in write of each key column
	ghostTable string    // `schema`.`ghost`
	ghostName  string    // the ghost's bare name
	columnList string    // quoted ghost column names of write
	rowExpr    string    // "(?, CONVERT(? USING latin1), ...)" for one row of write
	mariaDB    bool      // the target is MariaDB (SET STATEMENT) rather than MySQL (SET_VAR hint)
	exprs      []string  // the expressions of rowExpr, one per column of write, then the fills
	byBytes    bool      // some key column is addressed by its exact bytes (colPlan.keyBytes)
	// noZeroDate and noZeroInDate are the writers' NO_ZERO_DATE and NO_ZERO_IN_DATE; zeroWrites
	// says some column has a zeroExpr (zerodate.go).
	noZeroDate, noZeroInDate, zeroWrites bool
}

func newPlan(cfg *Config) (*plan, error) {
	p := &plan{ncols: len(cfg.Original.Columns), ghostTable: table.Qualify(cfg.Schema, cfg.Ghost.Name), ghostName: cfg.Ghost.Name,
		mariaDB: cfg.Flavor.MariaDB, noZeroDate: cfg.NoZeroDate, noZeroInDate: cfg.NoZeroInDate}
	byName := map[string]int{}
	var names, exprs []string
	for i := range cfg.Original.Columns {
		c := &cfg.Original.Columns[i]
		if c.Position != i+1 {
			return nil, fmt.Errorf("original column %s is at position %d, expected %d", c.Name, c.Position, i+1)
		}
		g, ok := lookupMap(cfg.ColumnMap, c.Name)
		if !ok {
			continue
		}
		gc, ok := cfg.Ghost.Column(g)
		if !ok {
			return nil, fmt.Errorf("column map: ghost has no column %s (for %s)", g, c.Name)
		}
		if c.Generated || gc.Generated {
			return nil, fmt.Errorf("column map: generated column %s cannot be written", c.Name)
		}
		expr, err := valueExpr(cfg, c, gc)
		if err != nil {
			return nil, err
		}
		if c.DataType == "json" && (strings.Count(expr, "?") != 1 || !strings.Contains(expr, jsonPlaceholder)) {
			return nil, fmt.Errorf("column map: JSON column %s is written as %s, which does not type its value as JSON", c.Name, expr)
		}
		cp := colPlan{idx: i, col: c, ghost: gc.Name, expr: expr, keyExpr: keyExpr(expr, gc),
			ghostEnum: gc.DataType == "enum", byNumber: table.BindsByNumber(c, gc), bitBytes: table.BindsBitAsBytes(c, gc)}
		if ze, arg, ok := table.ZeroDateWrite(c, gc, cfg.Flavor.MariaDB); ok && (cfg.NoZeroDate || cfg.NoZeroInDate) {
			cp.zeroExpr, cp.zeroArg, p.zeroWrites = ze, arg, true
		}
		byName[strings.ToLower(c.Name)] = len(p.write)
		p.write = append(p.write, cp)
		names = append(names, gc.Name)
		exprs = append(exprs, expr)
	}
	if len(p.write) == 0 {
		return nil, fmt.Errorf("column map writes no column of %s", cfg.Original.Name)
	}
	if len(cfg.SharedKey) == 0 {
		return nil, fmt.Errorf("no shared key")
	}
	for _, k := range cfg.SharedKey {
		if w, ok := byName[strings.ToLower(k)]; ok {
			if containsName(cfg.KeyByBytes, p.write[w].ghost) {
				gc, _ := cfg.Ghost.Column(p.write[w].ghost)
				p.write[w].keyBytes, p.write[w].bytesCol = table.KeyBytes(p.write[w].expr, gc), gc
				p.byBytes = true
			}
			p.key = append(p.key, p.write[w])
			p.keyPos = append(p.keyPos, w)
			continue
		}
		cp, err := generatedKeyColumn(cfg, k)
		if err != nil {
			return nil, err
		}
		p.key = append(p.key, cp)
		p.keyPos = append(p.keyPos, -1)
	}
	for _, f := range cfg.Fills {
		if _, ok := cfg.Ghost.Column(f.Column); !ok || strings.Contains(f.Expr, "?") {
			return nil, fmt.Errorf("fill of ghost column %s: no such column, or a placeholder in %q", f.Column, f.Expr)
		}
		names = append(names, f.Column)
		exprs = append(exprs, f.Expr)
	}
	p.columnList = table.QuoteIdents(names)
	p.exprs = exprs
	p.rowExpr = "(" + strings.Join(exprs, ", ") + ")"
	return p, nil
}

// generatedKeyColumn plans a shared key column that is not written: a STORED generated column of
// the original that the ghost computes alike (plan's generatedTwins). Its value is read from
// the row images, to address ghost rows; never inserted.
func generatedKeyColumn(cfg *Config, name string) (colPlan, error) {
	for i := range cfg.Original.Columns {
		c := &cfg.Original.Columns[i]
		if !strings.EqualFold(c.Name, name) {
			continue
		}
		gc, ok := cfg.Ghost.Column(c.Name)
		if !c.Generated || !ok || !gc.Generated {
			break
		}
		expr, err := placeholderExpr(c)
		if err != nil {
			return colPlan{}, err
		}
		return colPlan{idx: i, col: c, ghost: gc.Name, expr: expr, keyExpr: keyExpr(expr, gc)}, nil
	}
	return colPlan{}, fmt.Errorf("shared key column %s is not in the column map", name)
}

// valueExpr is the SQL expression that writes a binlog value of original column c into ghost
// column gc: its placeholder, shifted between time zones, cast as the server's ALTER converts it,
// padded where the server pads CHAR values.
func valueExpr(cfg *Config, c, gc *table.Column) (string, error) {
	expr, err := placeholderExpr(c)
	if err != nil {
		return "", err
	}
	shift, err := table.ZoneShiftOf(c, gc)
	if err != nil {
		return "", fmt.Errorf("column map: %w", err)
	}
	if shift != table.ZoneNone {
		zone := cfg.TimeZone
		if zone == "" {
			zone = "+00:00"
		}
		expr = table.ZoneValueExpr(shift, zone, c.FracDigits)
		expr = table.WallClockExpr(c, gc, shift, expr, !cfg.Flavor.MariaDB)
	} else if fe := table.FloatValueExpr(c, gc, !cfg.Flavor.MariaDB); fe != "?" {
		expr = fe // FLOAT/DOUBLE to text: typed as the original's column, as the copy converts it
	} else {
		if table.BindsByNumber(c, gc) {
			expr = "?" // the ENUM's index, the SET's bitmask (decodeWrite)
		}
		if expr == "?" {
			expr = table.BindAsOriginal(c, gc)
			if !cfg.Flavor.MariaDB {
				expr = table.TemporalAsNumber(c, gc, expr)
			}
		}
		expr = table.ConvertExpr(c, gc, expr, !cfg.Flavor.MariaDB)
	}
	if cfg.PadChar {
		pad, err := table.PadCharOf(c, gc)
		if err != nil {
			return "", fmt.Errorf("column map: %w", err)
		}
		expr = pad.Expr(expr)
	}
	return expr, nil
}

// containsName says names holds name (case-insensitively).
func containsName(names []string, name string) bool {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

func lookupMap(m map[string]string, name string) (string, bool) {
	if g, ok := m[name]; ok {
		return g, true
	}
	for k, g := range m {
		if strings.EqualFold(k, name) {
			return g, true
		}
	}
	return "", false
}

// placeholderExpr is how a value of original column c enters SQL. The writer connection's charset
// is binary, so a character value is tagged with the ORIGINAL column's charset and the server
// converts it if the ghost column uses another one (as INSERT ... SELECT would). ENUM and SET
// members come from information_schema, in utf8. A MySQL JSON value (data type "json": MariaDB's
// JSON is a LONGTEXT) is the tool's compact rendering of the binary JSON ({"k":[1,2]}, where MySQL
// prints {"k": [1, 2]}), or an expression that builds it with the scalars its text does not
// type (jsonwrite.go): it is typed JSON again, so the server converts a JSON value into the ghost's
// column as its ALTER does (text with MySQL's spacing, a number, a time...).
func placeholderExpr(c *table.Column) (string, error) {
	switch c.DataType {
	case "enum", "set":
		return "CONVERT(? USING utf8mb4)", nil
	case "json":
		return "CAST(CONVERT(? USING utf8mb4) AS JSON)", nil
	}
	if c.Charset == "" || c.Charset == "binary" {
		return "?", nil
	}
	for _, r := range c.Charset {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '_' {
			return "", fmt.Errorf("column %s: unexpected charset name %q", c.Name, c.Charset)
		}
	}
	return "CONVERT(? USING " + c.Charset + ")", nil
}

// keyExpr wraps a character value's expression so it compares in the ghost column's own charset
// and collation: without it the comparison mixes the charset's default collation with the
// column's (error 1267), or follows another collation than the unique index does.
func keyExpr(expr string, ghost *table.Column) string {
	if ghost.Charset == "" || ghost.Charset == "binary" || ghost.Collation == "" || expr == "?" {
		return expr
	}
	return "CONVERT(" + expr + " USING " + ghost.Charset + ") COLLATE " + ghost.Collation
}

// decodeValue turns a go-mysql row value of column c into a value ready to write (nil, int64,
// uint64, float64, string for exact decimal/temporal text, or []byte owned by the caller).
// Errors name the column, never the value.
func decodeValue(c *table.Column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	bad := func() (any, error) {
		return nil, fmt.Errorf("column %s (%s): unexpected binlog value of type %T; was the table changed?", c.Name, c.ColumnType, v)
	}
	switch c.DataType {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
		if r, ok := decodeInt(c, v); ok {
			return r, nil
		}
		return bad()
	case "float":
		switch x := v.(type) {
		case float32:
			return float64(x), nil
		case float64:
			return x, nil
		}
		return bad()
	case "double", "real", "double precision":
		if x, ok := v.(float64); ok {
			return x, nil
		}
		return bad()
	case "decimal", "numeric":
		if x, ok := v.(string); ok {
			return strings.Clone(x), nil
		}
		return bad()
	case "bit":
		if x, ok := v.(int64); ok {
			return uint64(x), nil
		}
		return bad()
	case "year":
		if x, ok := v.(int); ok {
			return int64(x), nil
		}
		return bad()
	case "enum":
		if x, ok := v.(int64); ok {
			return enumMember(c, x)
		}
		return bad()
	case "set":
		if x, ok := v.(int64); ok {
			return setMembers(c, uint64(x))
		}
		return bad()
	case "date", "datetime", "timestamp", "time":
		if x, ok := v.(string); ok {
			return strings.Clone(x), nil
		}
		return bad()
	case "json":
		r, err := decodeJSON(v) // jsonrows.go
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.Name, err)
		}
		return r, nil
	case "binary":
		b, ok := asBytes(v)
		if !ok {
			return bad()
		}
		// The binlog drops BINARY(N)'s trailing zero bytes: pad them back.
		if n := int(c.OctetLength); n > len(b) {
			b = append(b, make([]byte, n-len(b))...)
		}
		return b, nil
	}
	if b, ok := asBytes(v); ok {
		return b, nil
	}
	if r, ok := decodeInt(c, v); ok {
		return r, nil
	}
	return bad()
}

// decodeNumber is the number of an ENUM (its 1-based index) or SET (its bitmask) value.
func decodeNumber(c *table.Column, v any) (any, error) {
	if x, ok := v.(int64); ok {
		if c.DataType == "set" {
			return uint64(x), nil
		}
		return x, nil
	}
	return nil, fmt.Errorf("column %s (%s): unexpected binlog value of type %T; was the table changed?", c.Name, c.ColumnType, v)
}

// bitValueBytes is BIT value x (decodeValue's uint64) as the column's bytes, big-endian.
func bitValueBytes(c *table.Column, x uint64) []byte {
	b := make([]byte, table.BitBytes(c))
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte(x)
		x >>= 8
	}
	return b
}

// asBytes copies string and []byte values (go-mysql's may alias its packet buffer).
func asBytes(v any) ([]byte, bool) {
	switch x := v.(type) {
	case string:
		return []byte(x), true
	case []byte:
		return append(make([]byte, 0, len(x)), x...), true
	}
	return nil, false
}

// decodeInt returns int64, or uint64 for unsigned columns. Without the table map's signedness
// (binlog_row_metadata=MINIMAL) unsigned values arrive as signed Go types of the column's width.
func decodeInt(c *table.Column, v any) (any, bool) {
	if !c.Unsigned {
		switch x := v.(type) {
		case int8:
			return int64(x), true
		case int16:
			return int64(x), true
		case int32:
			return int64(x), true
		case int64:
			return x, true
		case int:
			return int64(x), true
		}
		return nil, false
	}
	switch x := v.(type) {
	case int8:
		return uint64(uint8(x)), true
	case int16:
		return uint64(uint16(x)), true
	case int32:
		if c.DataType == "mediumint" {
			return uint64(uint32(x) & 0xFFFFFF), true
		}
		return uint64(uint32(x)), true
	case int64:
		return uint64(x), true
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case uint64:
		return x, true
	}
	return nil, false
}

// enumMember maps a 1-based ENUM index to its member; 0 is the empty "error value".
func enumMember(c *table.Column, idx int64) (any, error) {
	if idx == 0 {
		return []byte{}, nil
	}
	if idx < 0 || int(idx) > len(c.EnumValues) {
		return nil, fmt.Errorf("column %s: ENUM index %d out of range (%d members); was the table changed?", c.Name, idx, len(c.EnumValues))
	}
	return []byte(c.EnumValues[idx-1]), nil
}

// setMembers maps a SET bitmask to its comma-joined members ("" for the empty set).
func setMembers(c *table.Column, mask uint64) (any, error) {
	var b []byte
	for i := 0; mask != 0; i++ {
		if mask&1 == 1 {
			if i >= len(c.EnumValues) {
				return nil, fmt.Errorf("column %s: SET bit %d beyond its %d members; was the table changed?", c.Name, i, len(c.EnumValues))
			}
			if len(b) > 0 {
				b = append(b, ',')
			}
			b = append(b, c.EnumValues[i]...)
		}
		mask >>= 1
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}
