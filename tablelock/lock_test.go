package tablelock

import (
	"strings"
	"testing"
)

func TestMutexName(t *testing.T) {
	if got := Name("gl", "t"); got != "go-ghostlite.gl.t" {
		t.Fatalf("short name: %q", got)
	}
	long1 := Name(strings.Repeat("s", 64), strings.Repeat("t", 64))
	long2 := Name(strings.Repeat("s", 64), strings.Repeat("t", 63)+"u")
	if len(long1) > maxLockNameLength || len(long2) > maxLockNameLength || long1 == long2 {
		t.Fatalf("long names: %q %q", long1, long2)
	}
	if Name(strings.Repeat("s", 64), strings.Repeat("t", 64)) != long1 {
		t.Fatal("mutex name is not deterministic")
	}
}
