package main

import (
	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/control"
)

// controlFlags are the interactive commands' flags (package control). They stay in this package:
// the server watches and steers the run from outside, through observe.Controls.
type controlFlags struct {
	socketFile        string
	tcpPort           int
	forceNamedCutOver bool
	forceNamedPanic   bool
}

// controlConfig is the interactive server's configuration for a migration of cfg.
func (v controlFlags) controlConfig(cfg config.Config) control.Config {
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
