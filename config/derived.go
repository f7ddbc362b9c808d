package config

import (
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/preflight"
	"github.com/go-ghostlite/go-ghostlite/throttle"
)

// What the run reads from a Config beyond its fields: the settings of the packages it hands
// them to, and the modes several flags make together.

// Checkpointing tells whether the run writes checkpoints (--checkpoint, or --resume, which keeps
// checkpointing).
func (c *Config) Checkpointing() bool { return c.Checkpoint || c.Resume }

// OnReplica says whether the whole migration runs on the --host replica.
func (c *Config) OnReplica() bool { return c.MigrateOnReplica || c.TestOnReplica }

// ReplicaModeFlag names the replica mode's flag, for messages.
func (c *Config) ReplicaModeFlag() string { return c.PreflightOptions().ReplicaModeFlag() }

// CountsConcurrently reports whether the exact row count (--exact-rowcount) runs beside the copy
// (--concurrent-rowcount, ddl.CountRowsBeside) instead of in preparation. A dry run has no
// copy to run beside: it counts in preparation.
func (c *Config) CountsConcurrently() bool {
	return c.ExactRowcount && c.ConcurrentRowcount && c.Execute
}

// PreflightOptions are the settings the checks read.
func (c Config) PreflightOptions() preflight.Options {
	return preflight.Options{
		Conn: c.Conn, Database: c.Database, Table: c.Table, Alter: c.Alter,
		Execute: c.Execute, AllowOnMaster: c.AllowOnMaster, AssumeMasterHost: c.AssumeMasterHost,
		MasterUser: c.MasterUser, MasterPassword: c.MasterPassword,
		AssumeRBR: c.AssumeRBR, SwitchToRBR: c.SwitchToRBR, Tungsten: c.Tungsten, AllowPlugins: c.AllowPlugins,
		ExactRowcount:    c.ExactRowcount && !c.CountsConcurrently(),
		MigrateOnReplica: c.MigrateOnReplica, TestOnReplica: c.TestOnReplica,
		InitiallyDropGhostTable: c.InitiallyDropGhostTable, InitiallyDropOldTable: c.InitiallyDropOldTable,
		TimestampOldTable:     c.TimestampOldTable,
		ApproveRenamedColumns: c.ApproveRenamedColumns, SkipRenamedColumns: c.SkipRenamedColumns,
		DiscardForeignKeys: c.DiscardForeignKeys, SkipForeignKeyChecks: c.SkipForeignKeyChecks,
		AllowCascadingForeignKeysDataLoss: c.AllowCascadingForeignKeysDataLoss,
		AllowZeroInDate:                   c.AllowZeroInDate, SkipStrictMode: c.SkipStrictMode,
		AllowNullableUniqueKey: c.AllowNullableUniqueKey,
		IncludeTriggers:        c.IncludeTriggers, TriggerSuffix: c.TriggerSuffix, RemoveTriggerSuffix: c.RemoveTriggerSuffix,
		CutOverRefusal: func(f dbconn.Flavor) error { return cutover.RefuseOn(c.CutOver, f) },
		AtomicCutOver:  c.CutOver == cutover.AlgorithmAtomic, CutOverLockTimeout: c.CutOverLockTimeout, DefaultRetries: c.DefaultRetries,
		SkipMetadataLockCheck:             c.SkipMetadataLockCheck,
		AllowSetupMetadataLockInstruments: c.AllowSetupMetadataLockInstruments,
		AttemptInstantDDL:                 c.AttemptInstantDDL, AnalyzeGhostTable: c.AnalyzeGhostTable,
		Checkpoint: c.Checkpoint, Resume: c.Resume, Revert: c.Revert,
	}
}

// ThrottleConfig is the throttle Monitor's configuration from c's throttle flags (without the
// run's wiring: its logger and backlog).
func (c *Config) ThrottleConfig() throttle.Config {
	return throttle.Config{
		MaxLag: c.MaxLag, MaxLoad: c.MaxLoad, CriticalLoad: c.CriticalLoad,
		CriticalLoadInterval: c.CriticalLoadInterval, CriticalLoadHibernate: c.CriticalLoadHibernate,
		NiceRatio: c.NiceRatio, Query: c.ThrottleQuery,
		HTTPURL: c.ThrottleHTTP, HTTPInterval: c.ThrottleHTTPInterval, HTTPTimeout: c.ThrottleHTTPTimeout,
		IgnoreHTTPErrors: c.IgnoreHTTPErrors,
		FlagFile:         c.ThrottleFlagFile, AdditionalFlagFile: c.ThrottleAdditionalFlagFile,
		ControlReplicas: c.ThrottleControlReplicas, HeartbeatInterval: c.HeartbeatInterval,
	}
}
