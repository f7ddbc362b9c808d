package cutover

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// ErrNeverSucceeds is returned (wrapped) when a failed attempt's server error says no retry can
// succeed: the tables are as the recovery left them (the original in place) and the run stops
// after that attempt instead of trying --default-retries times.
var ErrNeverSucceeds = errors.New("the cut-over can never succeed")

// permanent is why a server error of a cut-over statement can never go away by retrying, and
// what a person does about it.
type permanent struct{ reason, fix string }

// permanentErrors are the server errors that the tables' definitions or the account's grants
// cause, which no later attempt changes. Measured: MySQL 9.7 refuses RENAME TABLE t TO _t_del
// with 3822 when another table of the schema has a CHECK constraint named _t_del_chk_1 (t's
// t_chk_1 takes that name), and with 1826 for a foreign key named _t_del_ibfk_1; MariaDB 10.11
// says 1050 "Table './db/_t_del' already exists" (the engine's own table path) for the latter.
// Lock waits, deadlocks, killed or lost connections are not here: they may pass.
var permanentErrors = map[uint16]permanent{
	3822: {"a CHECK constraint would take a name another table of the schema has (MySQL renames a <table>_chk_N constraint with its table, and names are unique per schema)",
		"rename or drop that other table's constraint"},
	1826: {"a foreign key would take a name another table of the schema has (a <table>_ibfk_N foreign key is renamed with its table, and names are unique per schema)",
		"rename or drop that other table's foreign key"},
	1025: {"the storage engine refuses the rename (errno 150: a foreign key would be malformed; errno 121: a duplicate key or foreign key name)",
		"fix the foreign keys of the migrated table and of the tables referencing it"},
	1142: {"the account lacks a privilege on a table (RENAME TABLE needs ALTER and DROP on the original, CREATE and INSERT on the new name)",
		"grant them"},
	1044: {"the account lacks a privilege on the schema", "grant it"},
	1814: {"a table's tablespace is discarded", "import or recreate the tablespace (ALTER TABLE ... IMPORT TABLESPACE)"},
	1059: {"a table or constraint name is longer than 64 characters", "migrate the table under a shorter name"},
}

// engineRenameError is "Error on rename of ... (errno: N ...)": permanent for errno 150 and 121.
const engineRenameError = 1025

// engineDuplicate is MariaDB's 1050 for a name clash inside the engine: the table named by its
// path ('./db/name'), where a table that really exists is named alone.
const engineDuplicate = 1050

// neverSucceeds says why err, a failed attempt's error, can never go away by retrying ("" when
// it may): the first server error of its chain decides.
func neverSucceeds(err error) string {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return ""
	}
	p, ok := permanentErrors[me.Number]
	if me.Number == engineRenameError && !strings.Contains(me.Message, "errno: 150") && !strings.Contains(me.Message, "errno: 121") {
		ok = false // another errno may be the file system's, for a moment
	}
	if me.Number == engineDuplicate && strings.Contains(me.Message, "'./") {
		p, ok = permanent{"a foreign key would take a name another table of the schema has (the engine's duplicate name, MariaDB)",
			"rename or drop that other table's foreign key"}, true
	}
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s: %s (Error %d: %s)", p.reason, p.fix, me.Number, oneLine(me.Message))
}

// oneLine joins a message's lines.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
