package onreplica

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const testDB = "gl_onreplica"

// The swap back is one RENAME: the original is under its name again and the migrated copy under
// the ghost's; when it cannot be done, the error says how to do it by hand. (Stopping and
// restarting replication are run end to end by migrator's --test-on-replica tests.)
func TestSwapBack(t *testing.T) {
	db := testenv.Database(t, testDB)
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, migrated INT)", "CREATE TABLE _t_del (id INT PRIMARY KEY)")
	r := Replica{DB: db, Flavor: testenv.Flavor(t), Addr: "replica"}
	sw := Swap{Schema: testDB, Table: "t", Ghost: "_t_gho", Old: "_t_del", LockWait: time.Second, Columns: []string{"id"}}
	if err := r.SwapBack(context.Background(), sw); err != nil {
		t.Fatal(err)
	}
	if !testenv.HasColumn(t, db, testDB, "_t_gho", "migrated") || testenv.HasColumn(t, db, testDB, "t", "migrated") {
		t.Fatalf("tables after the swap back: %v", testenv.TableNames(t, db, testDB, ""))
	}
	err := r.SwapBack(context.Background(), sw) // _t_del is gone now
	if err == nil || !strings.Contains(err.Error(), "swapping them back failed") ||
		!strings.Contains(err.Error(), "swap them by hand with RENAME TABLE `gl_onreplica`.`t` TO `gl_onreplica`.`_t_gho`, `gl_onreplica`.`_t_del` TO `gl_onreplica`.`t`") {
		t.Fatalf("failed swap back: %v", err)
	}
}
