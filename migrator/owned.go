package migrator

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// A run drops only tables it created (the ghost, the changelog) or migrated (the original, as the
// old table after the swap). It records each one's identity when it creates it (or before the
// cut-over, for the original) and, before dropping a name, checks both that it still holds the
// migration lock and that the table under the name is still the one it recorded. A second run
// that took the lock after this one lost it may have replaced the tables under the same names.

// tableIdentity identifies the table schema.name: its id when the server shows it (dbconn.TableIDSources)
// (it survives RENAME and changes when the table is re-created), else its creation time. It is
// "" when the table does not exist.
func tableIdentity(ctx context.Context, db *sql.DB, schema, name string) (string, error) {
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

// own records the identity of the table under name as this run's, under the key as (the name
// the table will have when it is dropped: the old table's name for the original).
func (s *session) own(ctx context.Context, as, name string) {
	id, err := tableIdentity(ctx, s.primary, s.plan.Original.Schema, name)
	if err != nil || id == "" {
		s.log.Warn().Err(err).Str("table", name).Msg("could not record the table's identity: it will not be dropped automatically")
		return
	}
	if s.owned == nil {
		s.owned = map[string]string{}
	}
	s.owned[as] = id
}

// dropOwned drops schema.name when this run still holds its lock and the table under the name is
// the one it recorded; a missing table is not an error. Anything else is an error and nothing is
// dropped.
func (s *session) dropOwned(ctx context.Context, name string) error {
	schema := s.plan.Original.Schema
	if err := s.checkMutex(ctx); err != nil {
		return fmt.Errorf("not dropping %s.%s: %w", schema, name, err)
	}
	want, ok := s.owned[name]
	got, err := tableIdentity(ctx, s.primary, schema, name)
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
	if _, err := s.primary.ExecContext(dctx, "DROP TABLE IF EXISTS "+table.Qualify(schema, name)); err != nil {
		return fmt.Errorf("drop %s.%s: %w", schema, name, err)
	}
	return nil
}
