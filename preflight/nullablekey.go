package preflight

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/plan"
)

// A nullable shared key (--allow-nullable-unique-key, gh-ost's flag). The copy walks the key in
// ranges and the applier addresses rows by key = value: a row with a NULL in the key is in no
// range and matches no row image, so it would be lost or left stale, silently. gh-ost trusts the
// user; go-ghostlite proves it instead. Such a key is used only when no NOT NULL key can be, only
// with the flag, and only after one query proved the original holds no NULL in its columns; the
// same proof runs again at every cut-over attempt under the lock, on the ghost (it holds every row
// of the original then, those written during the migration included, and is not locked), and a
// NULL found then stops the migration (cutover.ErrUnsafe), original intact.

// chooseKeyAllowingNulls picks the shared key as plan.ChooseSharedKeyWith does and, when none is NOT NULL
// and allowNullable (--allow-nullable-unique-key), a nullable one whose columns hold no NULL in the original. nullable
// says the key chosen has nullable columns.
func chooseKeyAllowingNulls(ctx context.Context, db *sql.DB, p *plan.Plan, allowNullable bool) (nullable bool, err error) {
	var strictErr error
	if p.OriginalKey, p.GhostKey, strictErr = plan.ChooseSharedKeyWith(p.Original, p.Ghost, p.Columns, !p.Flavor.MariaDB); strictErr == nil {
		return false, nil
	}
	if !allowNullable {
		return false, strictErr
	}
	ok, gk, found := plan.ChooseNullableSharedKey(p.Original, p.Ghost, p.Columns)
	if !found {
		return false, strictErr
	}
	if err := checkNoNullKeys(ctx, db, p.Original.Schema, p.Original.Name, ok); err != nil {
		return false, err
	}
	p.OriginalKey, p.GhostKey = ok, gk
	return true, nil
}

// errNullInKey is wrapped by checkNoNullKeys' refusal.
var errNullInKey = errors.New("NULL in the shared key")

// checkNoNullKeys refuses when a row of schema.tbl has a NULL in a column of key k.
func checkNoNullKeys(ctx context.Context, db *sql.DB, schema, tbl string, k table.Key) error {
	conds := make([]string, len(k.Columns))
	for i, c := range k.Columns {
		conds[i] = table.QuoteIdent(c) + " IS NULL"
	}
	var n int64
	q := fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s", table.Qualify(schema, tbl), strings.Join(conds, " OR "))
	if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return fmt.Errorf("look for NULLs in key %s of %s.%s: %w", plan.DescribeKey(k), schema, tbl, err)
	}
	if n > 0 {
		return fmt.Errorf("%w: chosen key %s has nullable columns, and %d rows of %s.%s hold NULL in them despite --allow-nullable-unique-key: such rows cannot be copied or addressed by the key; fill them in (or add a NOT NULL unique key) first",
			errNullInKey, plan.DescribeKey(k), n, schema, tbl)
	}
	return nil
}

// recheckNoNullKeys is the proof again under the cut-over lock, on the ghost table tbl and its
// key k: a NULL found then is final (IsFinal).
func recheckNoNullKeys(ctx context.Context, db *sql.DB, schema, tbl string, k table.Key) error {
	err := checkNoNullKeys(ctx, db, schema, tbl, k)
	if errors.Is(err, errNullInKey) {
		return final{fmt.Errorf("rows written during the migration: %w", err)}
	}
	return err
}
