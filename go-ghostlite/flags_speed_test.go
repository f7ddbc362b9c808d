package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/config"
)

// --chunk-time takes a Go duration; a value out of range is refused in one line naming the flag.
func TestChunkTimeFlag(t *testing.T) {
	inv, err := parse(t, append(slices.Clone(required), "--chunk-time=1s")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := inv.Config.Validate(); err != nil || inv.Config.ChunkTime.String() != "1s" {
		t.Errorf("--chunk-time=1s: %v, %v", inv.Config.ChunkTime, err)
	}
	for _, bad := range []string{"--chunk-time=5ms", "--chunk-time=2m", "--chunk-time=-1s"} {
		inv, err := parse(t, append(slices.Clone(required), bad)...)
		if err == nil {
			err = inv.Config.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "--chunk-time must be 0 (off) or between 10ms and 1m") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v", bad, err)
		}
	}
}

// Without --chunk-size chunks follow --chunk-time's default; a gh-ost command line that gives
// --chunk-size alone keeps fixed chunks of that size; both given, both count.
func TestChunkTimeDefault(t *testing.T) {
	cases := []struct {
		args []string
		want time.Duration
	}{
		{nil, config.DefaultChunkTime},
		{[]string{"--chunk-size=500"}, 0},
		{[]string{"-chunk-size", "500"}, 0},
		{[]string{"--chunk-size=500", "--chunk-time=300ms"}, 300 * time.Millisecond},
		{[]string{"--chunk-time=0"}, 0},
	}
	for _, c := range cases {
		inv, err := parse(t, append(slices.Clone(required), c.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if inv.Config.ChunkTime != c.want {
			t.Errorf("%v: chunk time %v, want %v", c.args, inv.Config.ChunkTime, c.want)
		}
	}
}

// --copy-threads takes 0 (auto) or 1 to 32; anything else is refused in one line naming the flag.
func TestCopyThreadsFlag(t *testing.T) {
	inv, err := parse(t, required...)
	if err != nil || inv.Config.CopyThreads != 0 {
		t.Fatalf("default --copy-threads: %d, %v; want 0 (auto)", inv.Config.CopyThreads, err)
	}
	inv, err = parse(t, append(slices.Clone(required), "--copy-threads=3")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := inv.Config.Validate(); err != nil || inv.Config.CopyThreads != 3 {
		t.Errorf("--copy-threads=3: %d, %v", inv.Config.CopyThreads, err)
	}
	for _, bad := range []string{"--copy-threads=-1", "--copy-threads=33"} {
		inv, err := parse(t, append(slices.Clone(required), bad)...)
		if err == nil {
			err = inv.Config.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "--copy-threads must be 0 (auto) or between 1 and 32") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v", bad, err)
		}
	}
}
