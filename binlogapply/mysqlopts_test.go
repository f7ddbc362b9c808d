package binlogapply

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// MySQL's session-settable binlog options that the applier cannot apply faithfully stop Run with
// one line naming the option, before anything of that transaction reaches the ghost: a partial
// JSON update (binlog_row_value_options=PARTIAL_JSON logs only the change of the document) and a
// compressed transaction (binlog_transaction_compression=ON). The pre-flight refuses them as
// server globals; an application session can still set them.
func TestMySQLBinlogOptionsRefused(t *testing.T) {
	testenv.OnlyMySQL(t, "binlog_row_value_options and binlog_transaction_compression are MySQL's")
	cases := []struct{ set, want string }{
		{"SET SESSION binlog_row_value_options = 'PARTIAL_JSON'", "binlog_row_value_options=PARTIAL_JSON"},
		{"SET SESSION binlog_transaction_compression = ON", "binlog_transaction_compression=ON"},
	}
	for i, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			f := newFixture(t, fmt.Sprintf("mysqlopt%d", i), `CREATE TABLE %s (id INT PRIMARY KEY, j JSON)`,
				fixtureOpts{})
			f.exec(`INSERT INTO {T} VALUES (1, _utf8mb4'{"a": 1, "b": "a long enough document to be patched in place"}')`)
			f.onOneConn(c.set, `UPDATE {T} SET j = JSON_SET(j, _utf8mb4'$.a', 2) WHERE id = 1`)
			err := f.runError(20 * time.Second)
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Run failed with %q, want one line naming %s", err, c.want)
			}
		})
	}
}
