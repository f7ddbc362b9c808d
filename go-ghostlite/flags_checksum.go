package main

import (
	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// addChecksumFlags registers the checksum's flag (doc/checksum.md).
func addChecksumFlags(fs *pflag.FlagSet, cfg *migrator.Config, d migrator.Config) {
	fs.BoolVar(&cfg.Checksum, "checksum", d.Checksum, "before the cut-over, compare the original and the ghost table chunk by chunk in one consistent snapshot and copy again any chunk that differs (--checksum=false skips it; see doc/checksum.md)")
}
