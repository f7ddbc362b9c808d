package config

// What the run reads from a Config beyond its fields: the modes several flags make together.
// (The packages that take settings take them as declared here: preflight reads the Config,
// throttle.Config embeds ThrottleSettings; nothing copies a setting by hand.)

// Checkpointing tells whether the run writes checkpoints (--checkpoint, or --resume, which keeps
// checkpointing).
func (c *Config) Checkpointing() bool { return c.Checkpoint || c.Resume }

// OnReplica says whether the whole migration runs on the --host replica.
func (c *Config) OnReplica() bool { return c.MigrateOnReplica || c.TestOnReplica }

// ReplicaModeFlag names the replica mode's flag, for messages.
func (c *Config) ReplicaModeFlag() string {
	if c.TestOnReplica {
		return "--test-on-replica"
	}
	return "--migrate-on-replica"
}

// ReplicaMode names the replica mode's flag, "" when the run is not in one (plan.Plan.Lines).
func (c *Config) ReplicaMode() string {
	if !c.OnReplica() {
		return ""
	}
	return c.ReplicaModeFlag()
}

// CountsBeforeCopy reports whether the exact row count (--exact-rowcount) runs in preparation,
// before the copy (not beside it: CountsConcurrently).
func (c *Config) CountsBeforeCopy() bool { return c.ExactRowcount && !c.CountsConcurrently() }

// CountsConcurrently reports whether the exact row count (--exact-rowcount) runs beside the copy
// (--concurrent-rowcount, ddl.CountRowsBeside) instead of in preparation. A dry run has no
// copy to run beside: it counts in preparation.
func (c *Config) CountsConcurrently() bool {
	return c.ExactRowcount && c.ConcurrentRowcount && c.Execute
}
