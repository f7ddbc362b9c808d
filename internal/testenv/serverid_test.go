package testenv

import (
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Ids of one process are distinct until its block wraps; blocks of two processes never meet; the
// largest Linux pid still fits a uint32 server_id, and no id is the default 99999 or a sandbox
// server's own (1, 2).
func TestServerIDs(t *testing.T) {
	a, b := NextServerID(), NextServerID()
	if a == b || (a-serverIDFirst)/serverIDBlock != uint32(os.Getpid()) {
		t.Fatalf("two ids %d, %d: want distinct, in this process's block (pid %d)", a, b, os.Getpid())
	}
	seen := map[uint32]bool{}
	for _, pid := range []int{1, 2, 99, 100, 32768, 4194304} {
		for n := uint64(0); n < serverIDBlock; n++ {
			id := serverIDFor(pid, n)
			if seen[id] || id <= 99999 {
				t.Fatalf("pid %d, n %d: id %d taken or not above 99999", pid, n, id)
			}
			seen[id] = true
		}
	}
	if last := uint64(serverIDFor(4194304, serverIDBlock-1)); last != serverIDFirst+4194304*serverIDBlock+serverIDBlock-1 || last > math.MaxUint32 {
		t.Fatalf("the largest id %d does not fit a uint32", last)
	}
	if serverIDFor(7, serverIDBlock) != serverIDFor(7, 0) {
		t.Fatal("a process's block does not wrap")
	}
	args := MigrationArgs(PrimaryConfig(), "db", "tbl")
	if !slices.Contains(args, "--database=db") || !slices.Contains(args, "--allow-on-master") ||
		!strings.HasPrefix(args[len(args)-1], "--replica-server-id=") {
		t.Fatalf("MigrationArgs: %q", args)
	}
	if id, err := strconv.Atoi(strings.TrimPrefix(args[len(args)-1], "--replica-server-id=")); err != nil || uint32(id) <= b {
		t.Fatalf("MigrationArgs's id %d (%v): want one handed out after %d", id, err, b)
	}
}
