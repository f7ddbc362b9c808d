// Package cutover swaps the ghost table in place of the original without losing a committed write.
// It knows nothing about copying: the migrator hands it a Sentinel that proves the ghost is in sync.
//
// CONTRACT (used by migrator; keep these signatures):
//
//	ThreeStep(ctx, Config, Sentinel) error
package cutover

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/rs/zerolog"
)

// Tables names the tables of one cut-over, all in Schema.
type Tables struct {
	Schema   string
	Original string // tbl
	Ghost    string // _tbl_gho
	Old      string // _tbl_del: the name the original takes
}

// Sentinel proves the ghost is in sync: Await writes a unique sentinel row to the changelog and
// returns once every binlog event before it has been applied to the ghost (or ctx ends).
type Sentinel interface {
	Await(ctx context.Context) error
}

// Config is what a cut-over needs.
type Config struct {
	DB          *sql.DB // pool on the primary where the tables live
	Tables      Tables
	LockTimeout time.Duration // bounds every wait (--cut-over-lock-timeout-seconds)
	Retries     int           // attempts before giving up (--default-retries)
	Logger      zerolog.Logger
}

// ThreeStep runs the LOCK / RENAME / RENAME cut-over, retrying a failed attempt after restoring
// the original. On success the original is named Tables.Old and the ghost Tables.Original.
func ThreeStep(ctx context.Context, cfg Config, s Sentinel) error {
	return errors.New("not implemented")
}
