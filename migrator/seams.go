package migrator

import (
	"context"

	"github.com/go-ghostlite/go-ghostlite/cutover"
)

// seams let tests act at chosen moments of a run, or shrink a session setting; the command line
// never sets them, and the zero value (none) is a normal run. They are on the Migrator, not in
// Config, which holds only what a user can set: the package's tests set them through
// newWithSeams, other packages' tests the cut-over's through SetCutOverSeams.
type seams struct {
	beforeChunk   func(ctx context.Context, n int64) error // runs before each planned chunk
	maxErrorCount int                                      // the copy session's max_error_count (0: the largest)
	beforeStream  func(ctx context.Context) error          // runs after preparation, before the binlog position is read
	// afterChangelog runs once the changelog is created, before the checkpoint table is.
	afterChangelog func(ctx context.Context) error
	// beforeSnapshot runs before each of the checksum's consistent snapshots.
	beforeSnapshot func(ctx context.Context, round int) error
	// cutOver acts at a chosen step of the cut-over.
	cutOver cutover.TestSeams
}

// SetCutOverSeams lets a test act at a chosen step of the cut-over (the chaos trials kill the
// sessions it names). For tests only: the command line never calls it. Call it before Run.
func (m *Migrator) SetCutOverSeams(s cutover.TestSeams) { m.seams.cutOver = s }
