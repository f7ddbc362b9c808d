package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestCheckpointFlags(t *testing.T) {
	base := []string{"--database=d", "--table=t", "--alter=ENGINE=InnoDB", "--execute"}
	inv, err := parseArgs(append(base, "--checkpoint"), io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c := inv.Config; !c.Checkpoint || c.Resume || c.CheckpointInterval != 300*time.Second {
		t.Errorf("--checkpoint: checkpoint %v resume %v interval %s; want true false 5m0s", c.Checkpoint, c.Resume, c.CheckpointInterval)
	}
	inv, err = parseArgs(append(base, "--resume", "--checkpoint-seconds=10"), io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c := inv.Config; !c.Resume || c.CheckpointInterval != 10*time.Second {
		t.Errorf("--resume --checkpoint-seconds=10: resume %v interval %s", c.Resume, c.CheckpointInterval)
	}
	if _, err := parseArgs(append(base, "--checkpoint", "--checkpoint-seconds=9"), io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "--checkpoint-seconds must be at least 10") {
		t.Errorf("--checkpoint-seconds=9: %v", err)
	}
	inv, err = parseArgs(append(base, "--checkpoint", "--checkpoint-interval-millis=200"), io.Discard, io.Discard)
	if err != nil || inv.Config.CheckpointInterval != 200*time.Millisecond {
		t.Errorf("hidden --checkpoint-interval-millis=200: %v, %s", err, inv.Config.CheckpointInterval)
	}
}
