// Package migrator orchestrates one online schema migration: pre-flight inspection and validation,
// the ghost and changelog tables, the row copy, the binlog applier, status, and the cut-over.
// It owns the state machine of a migration; binlogapply, cutover and throttle do one job each
// and never import one another.
//
// Invariants:
//   - the original table is never written or renamed before the cut-over, and after any failure
//     it is left in place, under its name, with its data;
//   - a per-table GET_LOCK mutex, held on a dedicated connection for the whole run, keeps two
//     migrations off one table;
//   - the binlog reader is positioned before the first row is copied;
//   - the copy uses INSERT IGNORE ... SELECT and a chunk is done only when proven complete: no
//     warning at all, or a full warning list of duplicate keys only and every row of the chunk
//     present in the ghost by its shared key (copycheck.go); any other warning fails the run, so
//     no row is merged, dropped or truncated silently;
//   - the shared key compares alike in both tables (sharedKeyComparable): same type, charset and
//     collation, or a widening that keeps distinct keys distinct;
//   - a dry run (no --execute) leaves the server exactly as it found it.
package migrator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/binlogapply"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// ErrUsage marks a configuration that is wrong before any server is asked (a missing or
// contradictory flag value): the command line exits 2 for it, as for a flag it cannot parse.
// Refusals that come from inspecting the server (missing table, unsafe ALTER, server settings)
// are ordinary failures: exit 1.
var ErrUsage = errors.New("usage")

// Migrator runs one migration.
type Migrator struct {
	cfg Config
	log zerolog.Logger
}

// New checks the configuration and returns a Migrator.
func New(cfg Config) (*Migrator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Migrator{cfg: cfg, log: cfg.Logger.With().Str("component", "migrator").Logger()}, nil
}

// Validate checks the configuration without touching a server.
func (c *Config) Validate() error {
	switch {
	case c.Database == "":
		return fmt.Errorf("%w: --database is required", ErrUsage)
	case c.Table == "":
		return fmt.Errorf("%w: --table is required", ErrUsage)
	case c.Alter == "" && !c.RecoverCutOver:
		return fmt.Errorf("%w: --alter is required", ErrUsage)
	case c.ChunkSize < 10 || c.ChunkSize > 100000:
		return fmt.Errorf("%w: --chunk-size must be between 10 and 100000 (got %d)", ErrUsage, c.ChunkSize)
	case c.DMLBatchSize < 1 || c.DMLBatchSize > 100:
		return fmt.Errorf("%w: --dml-batch-size must be between 1 and 100 (got %d)", ErrUsage, c.DMLBatchSize)
	case c.DefaultRetries < 1:
		return fmt.Errorf("%w: --default-retries must be at least 1 (got %d)", ErrUsage, c.DefaultRetries)
	case c.ApproveRenamedColumns && c.SkipRenamedColumns:
		return fmt.Errorf("%w: --approve-renamed-columns and --skip-renamed-columns contradict each other: give one", ErrUsage)
	case c.CutOver != cutover.AlgorithmThreeStep && c.CutOver != cutover.AlgorithmAtomic && c.CutOver != cutover.AlgorithmTwoStep:
		return fmt.Errorf("%w: --cut-over=%q is not supported; use three-step, atomic or two-step", ErrUsage, c.CutOver)
	case c.CutOverLockTimeout <= 0:
		return fmt.Errorf("%w: --cut-over-lock-timeout-seconds must be positive", ErrUsage)
	}
	if len(table.GhostName(c.Table)) > table.MaxIdentifierLength {
		return fmt.Errorf("%w: table name %q is too long for its ghost table name (64 characters at most)", ErrUsage, c.Table)
	}
	if c.TimestampOldTable && len(table.OldName(c.Table, "20060102150405")) > table.MaxIdentifierLength {
		return fmt.Errorf("%w: table name %q is too long for a timestamped old table name (64 characters at most): drop --timestamp-old-table", ErrUsage, c.Table)
	}
	if c.StorageEngine != "" && !strings.EqualFold(c.StorageEngine, "innodb") {
		return fmt.Errorf("%w: --storage-engine=%q is not supported; use innodb", ErrUsage, c.StorageEngine)
	}
	if err := c.validateReplicaModes(); err != nil {
		return err
	}
	if c.AssumeMasterHost != "" {
		if _, _, err := parseHostPort(c.AssumeMasterHost, c.Conn.Port); err != nil {
			return fmt.Errorf("%w: --assume-master-host: %v", ErrUsage, err)
		}
	}
	return nil
}

// Run performs the migration and returns nil on success. Without --execute it is a dry run: it
// prepares (every check, the ALTER proven on the ghost table), prints the plan, drops the ghost
// and releases the lock, leaving the server as it found it.
func (m *Migrator) Run(ctx context.Context) error {
	if m.cfg.RecoverCutOver {
		return m.recoverCutOver(ctx)
	}
	s, err := m.prepare(ctx)
	if err != nil {
		return err
	}
	if !m.cfg.Execute {
		return m.dryRun(ctx, s)
	}
	defer s.close()
	err = m.execute(ctx, s)
	if errors.Is(err, binlogapply.ErrOriginalAltered) {
		return fmt.Errorf("%w; nothing was swapped and the original is in place with its rows: restart the migration once the change is done (check --alter against the table's new definition)", err)
	}
	return err
}
