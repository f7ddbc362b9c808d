package testenv

import (
	"fmt"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

// Replica server ids. A binlog reader (the migration's stream, a binlogapply fixture) registers
// with a server id, and a server keeps one dump thread per id: a second reader with the same id
// makes the server drop the first one's stream. So two streams that may be open at the same time
// on one server must have different ids, whether they belong to one test, to two tests running in
// parallel, to two test binaries (`go test` without -p 1 runs packages at once against the same
// sandbox) or to a binary a test runs in a subprocess (localtests, chaos).
//
// NextServerID hands them out as
//
//	serverIDFirst + pid×serverIDBlock + n      (n = 0, 1, 2, ... < serverIDBlock)
//
// pid is the test process's own, unique among the processes running on the machine, so two
// test binaries never share a block; n counts the ids this process handed out. A subprocess does
// not pick its own id: it is given one of its test's (--replica-server-id), so its stream is
// counted in its test's block. Linux pids are below 2^22 (pid_max ≤ 4194304), which keeps every
// id inside the uint32 server_id; and ids start above 99999 (the tool's default
// --replica-server-id) and so far from the sandbox servers' own ids (1 and 2). Reading an id
// back: (id - serverIDFirst) / 1000 is the pid of the test binary that owns it.
//
// A process that hands out more than serverIDBlock ids (the conversion matrix runs over a
// thousand migrations in one process) starts its block again from n = 0: an id comes back only
// after a thousand later ones, long after its stream has ended. The scheme assumes the test
// binaries sharing a server run on one machine, in one pid namespace (script/test and CI do).
const (
	serverIDFirst = 100_000
	serverIDBlock = 1000
)

var serverIDs atomic.Uint64

// NextServerID returns a replica server id no other stream of this process or of another test
// process can be using: call it once per binlog reader (each migration run, each fixture).
func NextServerID() uint32 {
	return serverIDFor(os.Getpid(), serverIDs.Add(1)-1)
}

// serverIDFor is the n-th id of process pid.
func serverIDFor(pid int, n uint64) uint32 {
	return uint32(serverIDFirst + uint64(pid)*serverIDBlock + n%serverIDBlock)
}

// MigrationArgs are the command-line flags of a migration of database.tbl on the server c: its
// connection (--host, --port, --user, --password), the table, --allow-on-master and a
// --replica-server-id of its own (NextServerID). The caller adds --alter, --execute and the rest.
func MigrationArgs(c dbconn.Config, database, tbl string) []string {
	return []string{
		"--host=" + c.Host, "--port=" + strconv.Itoa(c.Port), "--user=" + c.User, "--password=" + c.Password,
		"--database=" + database, "--table=" + tbl, "--allow-on-master",
		fmt.Sprintf("--replica-server-id=%d", NextServerID()),
	}
}
