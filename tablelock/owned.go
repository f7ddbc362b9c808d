package tablelock

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// Owned is the tables a run created (or migrated), each under the name it will be dropped by,
// with the identity it had when recorded. The zero value has recorded nothing.
type Owned struct {
	ids map[string]string // table name -> identity of the table this run created
}

// Record records the identity of the table schema.name on db as this run's, under the key as
// (the name the table will have when it is dropped: the old table's name for the original). It
// reports false, with the reason when there is one, when the identity could not be read or the
// table does not exist: nothing is recorded, so the table will not be dropped automatically.
func (o *Owned) Record(ctx context.Context, db *sql.DB, schema, as, name string) (bool, error) {
	id, err := Identity(ctx, db, schema, name)
	if err != nil || id == "" {
		return false, err
	}
	if o.ids == nil {
		o.ids = map[string]string{}
	}
	o.ids[as] = id
	return true, nil
}

// Has reports whether the run recorded a table under name.
func (o *Owned) Has(name string) bool {
	_, ok := o.ids[name]
	return ok
}

// Recorded is the identity recorded under name, if any.
func (o *Owned) Recorded(name string) (string, bool) {
	id, ok := o.ids[name]
	return id, ok
}

// Drop drops schema.name on db when lock is still held and the table under the name is the one
// recorded; a missing table is not an error. Anything else is an error and nothing is dropped.
func (o *Owned) Drop(ctx context.Context, db *sql.DB, lock *Lock, schema, name string) error {
	if err := lock.Check(ctx); err != nil {
		return fmt.Errorf("not dropping %s.%s: %w", schema, name, err)
	}
	want, ok := o.ids[name]
	got, err := Identity(ctx, db, schema, name)
	switch {
	case err != nil:
		return fmt.Errorf("not dropping %s.%s: %w", schema, name, err)
	case got == "":
		return nil
	case !ok:
		return fmt.Errorf("not dropping %s.%s: this run did not record creating it", schema, name)
	case got != want:
		return fmt.Errorf("not dropping %s.%s: it is not the table this run created (%s, this run's was %s)", schema, name, got, want)
	}
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(dctx, "DROP TABLE IF EXISTS "+table.Qualify(schema, name)); err != nil {
		return fmt.Errorf("drop %s.%s: %w", schema, name, err)
	}
	return nil
}

// Identity identifies the table schema.name: its id when the server shows it
// (dbconn.TableIDSources) (it survives RENAME and changes when the table is re-created), else its
// creation time. It is "" when the table does not exist.
func Identity(ctx context.Context, db *sql.DB, schema, name string) (string, error) {
	found, created, err := tableCreated(ctx, db, schema, name)
	if err != nil || !found {
		return "", err
	}
	// A table not found by its id falls back to the creation time.
	if src := dbconn.ReadableTableIDSource(ctx, db); src != "" {
		if id, err := dbconn.TableID(ctx, db, src, schema, name); err == nil && id != 0 {
			return fmt.Sprintf("table id %d", id), nil
		}
	}
	return "created " + created, nil
}

// tableCreated reads whether schema.name exists and its creation time. information_schema may
// compare names case-insensitively: only the table spelled so counts (or, where the server stores
// names in lower case, the name in lower case).
func tableCreated(ctx context.Context, db *sql.DB, schema, name string) (found bool, created string, err error) {
	rows, err := db.QueryContext(ctx, `SELECT TABLE_NAME, CAST(CREATE_TIME AS CHAR) FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, schema, name)
	if err != nil {
		return false, "", fmt.Errorf("read identity of %s.%s: %w", schema, name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var got string
		var c sql.NullString
		if err := rows.Scan(&got, &c); err != nil {
			return false, "", fmt.Errorf("read identity of %s.%s: %w", schema, name, err)
		}
		if got == name || (!found && got == strings.ToLower(name)) {
			found, created = true, c.String
		}
	}
	if err := rows.Err(); err != nil {
		return false, "", fmt.Errorf("read identity of %s.%s: %w", schema, name, err)
	}
	return found, created, nil
}
