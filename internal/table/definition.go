package table

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// autoIncOption is the table option that changes with every insert; it is not part of a table's
// definition.
var autoIncOption = regexp.MustCompile(` AUTO_INCREMENT=[0-9]+`)

// WithoutAutoIncrement is a SHOW CREATE TABLE text without its AUTO_INCREMENT table option.
func WithoutAutoIncrement(create string) string { return autoIncOption.ReplaceAllString(create, "") }

// Definition is schema.name's SHOW CREATE TABLE without its first line (the name) and without its
// AUTO_INCREMENT counter: two tables made the same way read the same whatever their names and
// rows. MySQL names a CHECK constraint after its table (name_chk_N; names are per schema there,
// so CREATE ... LIKE and RENAME give them the table's name): that prefix reads "_chk_".
func Definition(ctx context.Context, db dbconn.Querier, schema, name string) (string, error) {
	var n, create string
	if err := db.QueryRowContext(ctx, "SHOW CREATE TABLE "+Qualify(schema, name)).Scan(&n, &create); err != nil {
		return "", fmt.Errorf("read the definition of %s: %w", name, err)
	}
	if i := strings.IndexByte(create, '\n'); i >= 0 {
		create = create[i:]
	}
	prefix := "CONSTRAINT " + strings.TrimSuffix(QuoteIdent(name), "`") + "_chk_"
	return strings.ReplaceAll(WithoutAutoIncrement(create), prefix, "CONSTRAINT `_chk_"), nil
}

// Exists says whether schema.name exists (any table type).
func Exists(ctx context.Context, db dbconn.Querier, schema, name string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`,
		schema, name).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("look up table %s.%s: %w", schema, name, err)
	}
	return n > 0, nil
}
