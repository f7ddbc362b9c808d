package main

import (
	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/control"
	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// controlFlags are the interactive commands' flags (package control). They stay in this package:
// the server watches and steers the run from outside, through migrator.Controls.
type controlFlags struct {
	socketFile        string
	tcpPort           int
	forceNamedCutOver bool
	forceNamedPanic   bool
}

// addControlFlags registers the interactive commands' and the status's flags, as gh-ost's.
func addControlFlags(fs *pflag.FlagSet, cfg *migrator.Config, v *controlFlags) {
	d := migrator.DefaultConfig()
	fs.StringVar(&v.socketFile, "serve-socket-file", "", "unix socket serving interactive commands (default /tmp/gh-ost.<database>.<table>.sock; see doc/interactive-commands.md)")
	fs.IntVar(&v.tcpPort, "serve-tcp-port", 0, "also serve interactive commands on this TCP port of 127.0.0.1 (0: not at all)")
	fs.BoolVar(&v.forceNamedCutOver, "force-named-cut-over", false, "the unpostpone and cut-over commands must name the table: cut-over=<table>")
	fs.BoolVar(&v.forceNamedPanic, "force-named-panic", false, "the panic command must name the table: panic=<table>")
	fs.BoolVar(&cfg.ConcurrentRowcount, "concurrent-rowcount", d.ConcurrentRowcount, "with --exact-rowcount, count the rows while the copy runs (progress uses the optimizer's estimate until the count is done) instead of before it")
}

// controlConfig is the interactive server's configuration for a migration of cfg.
func (v controlFlags) controlConfig(cfg migrator.Config) control.Config {
	socket := v.socketFile
	if socket == "" {
		socket = control.DefaultSocketFile(cfg.Database, cfg.Table)
	}
	return control.Config{
		SocketFile:              socket,
		InitiallyDropSocketFile: cfg.InitiallyDropSocketFile,
		TCPPort:                 v.tcpPort,
		Database:                cfg.Database,
		Table:                   cfg.Table,
		ForceNamedCutOver:       v.forceNamedCutOver,
		ForceNamedPanic:         v.forceNamedPanic,
		PostponeFlagFile:        cfg.PostponeCutOverFlagFile,
		PanicFlagFile:           cfg.PanicFlagFile,
		Version:                 versionText(),
		Logger:                  cfg.Logger,
	}
}
