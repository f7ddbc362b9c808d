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
	fs.DurationVar(&cfg.ChunkTime, "chunk-time", migrator.DefaultChunkTime, "go-ghostlite only: size copy chunks so that each takes about this long: the first have --chunk-size rows, then the size follows the measured chunk times between 10 and 100000 rows, halving at once after a lock wait; 0: every chunk has --chunk-size rows. Given --chunk-size and not --chunk-time, chunks keep --chunk-size rows, as in gh-ost")
	fs.IntVar(&cfg.CopyThreads, "copy-threads", d.CopyThreads, "go-ghostlite only: copy sessions copying chunks at once, each on its own connection, fixed for the run (1 to 32); 0: half the server's cores as MariaDB's @@thread_pool_size gives them (on Linux it defaults to the CPU count), from 1 to 8, and 1 on a server without it (MySQL)")
}

// applyChunkDefaults keeps gh-ost's meaning of an explicit --chunk-size: a command line that
// gives it and not --chunk-time copies chunks of exactly that many rows. Without either, chunks
// start at --chunk-size's default and follow --chunk-time's default (doc/performance.md).
func applyChunkDefaults(fs *pflag.FlagSet, cfg *migrator.Config) {
	if fs.Changed("chunk-size") && !fs.Changed("chunk-time") {
		cfg.ChunkTime = 0
	}
}
