package dbconn

import (
	"context"
	"database/sql"
	"fmt"
)

// MetadataLocksVisible reports whether performance_schema.metadata_locks shows metadata locks on
// the server of db (the cut-over's checks that a rename waits on the right table need them), and
// when not, why.
func MetadataLocksVisible(ctx context.Context, db *sql.DB) (visible bool, why string) {
	var on int
	if err := db.QueryRowContext(ctx, "SELECT @@performance_schema").Scan(&on); err != nil || on != 1 {
		return false, "performance_schema is off"
	}
	var enabled string
	err := db.QueryRowContext(ctx, "SELECT ENABLED FROM performance_schema.setup_instruments WHERE NAME = 'wait/lock/metadata/sql/mdl'").Scan(&enabled)
	if err != nil || enabled != "YES" {
		return false, "instrument wait/lock/metadata/sql/mdl is not enabled"
	}
	err = db.QueryRowContext(ctx, "SELECT ENABLED FROM performance_schema.setup_consumers WHERE NAME = 'global_instrumentation'").Scan(&enabled)
	if err != nil || enabled != "YES" {
		return false, "consumer global_instrumentation is not enabled"
	}
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM performance_schema.metadata_locks m
		JOIN performance_schema.threads t ON t.THREAD_ID = m.OWNER_THREAD_ID`).Scan(&n); err != nil {
		return false, "performance_schema.metadata_locks is not readable: " + err.Error()
	}
	return true, ""
}

// EnableMetadataLockInstruments turns on the instrument and the consumer that make metadata locks
// visible (gh-ost's --allow-setup-metadata-lock-instruments). It changes the server until its next
// restart; it cannot turn performance_schema itself on.
func EnableMetadataLockInstruments(ctx context.Context, db *sql.DB) error {
	for _, q := range []string{
		"UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' WHERE NAME = 'wait/lock/metadata/sql/mdl'",
		"UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'global_instrumentation'",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
