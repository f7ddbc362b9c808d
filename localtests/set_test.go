package localtests

import (
	"fmt"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// Sets: a case with a statement file migrates the tables it names in one run (--statement), cut
// over together. Beside the comparison of each table with the server's own statement
// (oracle_test.go), a successful set case checks that the binary log holds one cut-over: the
// ghosts were renamed in by a single RENAME TABLE naming every one of them.

// statementArgs turns the common flags of a single table (testenv.MigrationArgs) into a set's:
// --statement instead of --table, and a --replica-server-id followed by as many free ids as the set
// has more tables (the binary gives the i-th table's stream the id + i).
func (r *runner) statementArgs(args []string) []string {
	out := []string{"--statement=" + r.c.StatementFlag()}
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--table="):
		case strings.HasPrefix(a, "--replica-server-id="):
			out = append(out, fmt.Sprintf("--replica-server-id=%d", consecutiveServerIDs(max(1, len(r.c.Statement)))))
		default:
			out = append(out, a)
		}
	}
	return out
}

// consecutiveServerIDs returns the first of n consecutive replica server ids handed out by
// testenv.NextServerID (retrying when another run took one in between, or the block wrapped).
func consecutiveServerIDs(n int) uint32 {
	for {
		first, ok := testenv.NextServerID(), true
		for i := 1; i < n; i++ {
			ok = ok && testenv.NextServerID() == first+uint32(i)
		}
		if ok {
			return first
		}
	}
}

// binlogPosition is a position in the primary's binary log.
type binlogPosition struct {
	File string
	Pos  int64
}

// binlogPosition is the primary's current binary log position.
func (r *runner) binlogPosition() binlogPosition {
	rows, err := r.admin.Query(testenv.Flavor(r.t).BinlogStatusSQL())
	if err != nil {
		r.t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		r.t.Fatal(err)
	}
	var p binlogPosition
	vals := make([]any, len(cols))
	vals[0], vals[1] = &p.File, &p.Pos
	for i := 2; i < len(cols); i++ {
		vals[i] = new(any)
	}
	if !rows.Next() {
		r.t.Fatalf("%s: no row (binary log off?)", testenv.Flavor(r.t).BinlogStatusSQL())
	}
	if err := rows.Scan(vals...); err != nil {
		r.t.Fatal(err)
	}
	return p
}

// renamesSince are the statements of the binary log from p on that RENAME a table of the case's
// database (the cases running beside this one write their own).
func (r *runner) renamesSince(p binlogPosition) []string {
	var out []string
	for _, f := range r.binlogFilesFrom(p.File) {
		q := fmt.Sprintf("SHOW BINLOG EVENTS IN '%s'", f)
		if f == p.File {
			q += fmt.Sprintf(" FROM %d", p.Pos)
		}
		out = append(out, r.renamesIn(q)...)
	}
	return out
}

// binlogFilesFrom lists the primary's binary logs from first on.
func (r *runner) binlogFilesFrom(first string) []string {
	rows, err := r.admin.Query("SHOW BINARY LOGS")
	if err != nil {
		r.t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		r.t.Fatal(err)
	}
	var files []string
	for rows.Next() {
		var name string
		vals := []any{&name}
		for range cols[1:] {
			vals = append(vals, new(any))
		}
		if err := rows.Scan(vals...); err != nil {
			r.t.Fatal(err)
		}
		if name >= first {
			files = append(files, name)
		}
	}
	if err := rows.Err(); err != nil {
		r.t.Fatal(err)
	}
	return files
}

// renamesIn runs q (a SHOW BINLOG EVENTS) and returns the RENAME TABLE statements of the case's database.
func (r *runner) renamesIn(q string) []string {
	rows, err := r.admin.Query(q)
	if err != nil {
		r.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var logName, typ, info string
		var pos, serverID, end any
		if err := rows.Scan(&logName, &pos, &typ, &serverID, &end, &info); err != nil {
			r.t.Fatal(err)
		}
		if typ == "Query" && strings.Contains(strings.ToUpper(info), "RENAME TABLE") && strings.Contains(info, quote(r.schema)+".") {
			out = append(out, info)
		}
	}
	if err := rows.Err(); err != nil {
		r.t.Fatal(err)
	}
	return out
}

// checkOneCutOver checks that the binary log from before holds one cut-over of the case's tables:
// exactly one statement renames a ghost in (swappedIn: an old table, for a --revert), and it
// renames every table's.
func (r *runner) checkOneCutOver(before binlogPosition) {
	var in []string
	for _, q := range r.renamesSince(before) {
		for _, tbl := range r.tables() {
			if strings.Contains(q, quote(r.swappedIn(tbl))+" TO ") {
				in = append(in, q)
				break
			}
		}
	}
	if len(in) != 1 {
		r.t.Errorf("want one RENAME TABLE of the ghosts in the binary log, got %d: %q", len(in), in)
		return
	}
	for _, tbl := range r.tables() {
		ghost := fmt.Sprintf("%s.%s TO %s.%s", quote(r.schema), quote(r.swappedIn(tbl)), quote(r.schema), quote(tbl))
		if !strings.Contains(in[0], ghost) {
			r.t.Errorf("the RENAME of the ghosts does not rename %s: %s", ghost, in[0])
		}
	}
	r.t.Logf("one cut-over: %s", in[0])
}
