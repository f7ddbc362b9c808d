package main

import (
	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// addSpeedFlags registers the speed flags (doc/performance.md): gh-ost's --attempt-instant-ddl
// and --analyze-ghost-table-before-cutover, and our --chunk-time and --copy-threads.
func addSpeedFlags(fs *pflag.FlagSet, cfg *migrator.Config, d migrator.Config) {
	fs.BoolVar(&cfg.AttemptInstantDDL, "attempt-instant-ddl", false, "first try the ALTER on the table with ALGORITHM=INSTANT (metadata only, no copy); when the server refuses, run the full migration")
	fs.BoolVar(&cfg.AnalyzeGhostTable, "analyze-ghost-table-before-cutover", false, "run ANALYZE TABLE on the ghost table before the cut-over, so the new table starts with fresh index statistics")
	fs.DurationVar(&cfg.ChunkTime, "chunk-time", d.ChunkTime, "go-ghostlite only: size copy chunks so that each takes about this long (e.g. 500ms): the first have --chunk-size rows, then the size follows the measured chunk times between 10 and 100000 rows, halving at once after a lock wait; 0: every chunk has --chunk-size rows")
	fs.IntVar(&cfg.CopyThreads, "copy-threads", d.CopyThreads, "go-ghostlite only: copy sessions copying chunks at once, each on its own connection, fixed for the run (1 to 32); 0: half the server's cores as MariaDB's @@thread_pool_size gives them (on Linux it defaults to the CPU count), from 1 to 8, and 1 on a server without it (MySQL)")
}
