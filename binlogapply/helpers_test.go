package binlogapply

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/changelog"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

const testSchema = "glr_binlogapply"

// fixture is one original/ghost/changelog trio with an Applier running on it.
type fixture struct {
	t         *testing.T
	db        *sql.DB // primary, testSchema
	flavor    dbconn.Flavor
	orig      string
	ghost     string
	changelog string
	cfg       Config
	app       *Applier
	errc      chan error
	cancel    context.CancelFunc
	done      bool
	// afterEvent is handed to the Applier before Run (set it with noStart, then call start).
	afterEvent func(*replication.BinlogEvent) error
	opts       fixtureOpts
}

type fixtureOpts struct {
	ghostDDL  string            // CREATE TABLE for the ghost with %s for its name; "" = same as original
	columnMap map[string]string // nil: identity over non-generated columns
	sharedKey []string          // nil: id
	source    *dbconn.Config    // nil: primary
	useGTID   bool
	batch     int
	noStart   bool // create everything but do not start Run
	// statementByStatement applies without OneTrip (the path taken after a clash or a warning).
	statementByStatement bool
	// cutOver calls BeginCutOver before Run: the cut-over's RENAMEs are expected from the start.
	cutOver bool
}

func newFixture(t *testing.T, name, origDDL string, o fixtureOpts) *fixture {
	t.Helper()
	db := testenv.Database(t, testSchema)
	f := &fixture{t: t, db: db, orig: name, ghost: table.GhostName(name), changelog: table.ChangelogName(name), opts: o}
	ctx := context.Background()
	var err error
	if f.flavor, err = dbconn.DetectFlavor(ctx, db); err != nil {
		t.Fatal(err)
	}
	ghostDDL := o.ghostDDL
	if ghostDDL == "" {
		ghostDDL = origDDL
	}
	testenv.Exec(t, db,
		fmt.Sprintf(origDDL, table.Qualify(testSchema, f.orig)),
		fmt.Sprintf(ghostDDL, table.Qualify(testSchema, f.ghost)))
	if err := changelog.Of(testSchema, name).Create(ctx, db); err != nil {
		t.Fatal(err)
	}
	orig, err := table.Inspect(ctx, db, testSchema, f.orig)
	if err != nil {
		t.Fatal(err)
	}
	ghost, err := table.Inspect(ctx, db, testSchema, f.ghost)
	if err != nil {
		t.Fatal(err)
	}
	cm := o.columnMap
	if cm == nil {
		cm = map[string]string{}
		for _, c := range orig.Columns {
			if !c.Generated {
				cm[c.Name] = c.Name
			}
		}
	}
	key := o.sharedKey
	if key == nil {
		key = []string{"id"}
	}
	src := testenv.PrimaryConfig()
	posDB := db
	if o.source != nil {
		src = *o.source
		posDB = testenv.Open(t, src, "")
		testenv.WaitReplica(t) // the tables exist there before the position is read
	}
	start, err := CurrentPosition(ctx, posDB, f.flavor)
	if err != nil {
		t.Fatal(err)
	}
	if o.batch == 0 {
		o.batch = 50
	}
	target := db
	if !o.statementByStatement {
		tc := testenv.PrimaryConfig()
		tc.MultiStatements = true
		target = testenv.Open(t, tc, testSchema)
		t.Cleanup(func() { target.Close() })
	}
	f.cfg = Config{
		Source: src, Flavor: f.flavor, ServerID: testenv.NextServerID(), UseGTID: o.useGTID, Start: start,
		Target: target, OneTrip: !o.statementByStatement, Schema: testSchema, Original: orig, Ghost: ghost, ColumnMap: cm, SharedKey: key,
		Changelog: f.changelog, DMLBatchSize: o.batch,
		Logger:          zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel),
		HeartbeatPeriod: 200 * time.Millisecond, ReadTimeout: 2 * time.Second,
		ReconnectDelay: 100 * time.Millisecond,
	}
	if !o.noStart {
		f.start()
	}
	return f
}

func (f *fixture) start() {
	f.t.Helper()
	app, err := New(f.cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	f.app = app
	app.afterEvent = f.afterEvent
	if f.opts.cutOver {
		app.BeginCutOver()
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.errc = make(chan error, 1)
	go func() { f.errc <- app.Run(ctx) }()
	f.t.Cleanup(func() { f.stop() })
}

// stop cancels Run and checks it returns nil (an error had to be collected with runError).
func (f *fixture) stop() {
	if f.done {
		return
	}
	f.done = true
	f.cancel()
	select {
	case err := <-f.errc:
		if err != nil {
			f.t.Errorf("Run returned %v after cancel", err)
		}
	case <-time.After(15 * time.Second):
		f.t.Errorf("Run did not return after cancel")
	}
}

// runError waits for Run to fail.
func (f *fixture) runError(timeout time.Duration) error {
	f.t.Helper()
	select {
	case err := <-f.errc:
		f.done = true
		f.cancel()
		if err == nil {
			f.t.Fatal("Run returned nil, want an error")
		}
		return err
	case <-time.After(timeout):
		f.t.Fatal("Run did not fail")
	}
	return nil
}

func (f *fixture) exec(stmts ...string) {
	f.t.Helper()
	for _, s := range stmts {
		s = strings.ReplaceAll(s, "{T}", table.Qualify(testSchema, f.orig))
		if _, err := f.db.Exec(s); err != nil {
			f.t.Fatalf("%s: %v", s, err)
		}
	}
}

// sentinel writes a sentinel to the changelog and waits until the applier has applied it.
func (f *fixture) sentinel(timeout time.Duration) {
	f.t.Helper()
	value := fmt.Sprintf("sentinel-%d", time.Now().UnixNano())
	ch := f.app.ExpectSentinel(value)
	if err := changelog.Of(testSchema, f.orig).WriteSentinel(context.Background(), f.db, value); err != nil {
		f.t.Fatal(err)
	}
	select {
	case <-ch:
	case err := <-f.errc:
		f.done = true
		f.t.Fatalf("Run stopped before the sentinel: %v", err)
	case <-time.After(timeout):
		f.t.Fatalf("sentinel not applied within %s; stats %+v", timeout, f.app.Stats())
	}
}

// compare checks the ghost equals the original over the mapped columns, on the server: a checksum
// of hex values, and EXCEPT both ways (exact for floats).
func (f *fixture) compare(origCols, ghostCols []string, origOrder, ghostOrder string) {
	f.t.Helper()
	n1, s1 := testenv.Checksum(f.t, f.db, testSchema, f.orig, origCols, origOrder)
	n2, s2 := testenv.Checksum(f.t, f.db, testSchema, f.ghost, ghostCols, ghostOrder)
	if n1 != n2 || s1 != s2 {
		f.t.Errorf("checksum differs: original %d rows %s, ghost %d rows %s", n1, s1, n2, s2)
	}
	f.compareExcept(origCols, ghostCols)
	if n1 == 0 {
		f.t.Error("compared empty tables")
	}
}

// compareExcept compares as values (SELECT ... EXCEPT both ways): exact for floats, and across
// charsets (text compared as text).
func (f *fixture) compareExcept(origCols, ghostCols []string) {
	f.t.Helper()
	oq := fmt.Sprintf("SELECT %s FROM %s", table.QuoteIdents(origCols), table.Qualify(testSchema, f.orig))
	gq := fmt.Sprintf("SELECT %s FROM %s", table.QuoteIdents(ghostCols), table.Qualify(testSchema, f.ghost))
	for _, q := range []string{oq + " EXCEPT " + gq, gq + " EXCEPT " + oq} {
		var n int
		if err := f.db.QueryRow("SELECT COUNT(*) FROM (" + q + ") d").Scan(&n); err != nil {
			f.t.Fatalf("except: %v", err)
		}
		if n != 0 {
			f.t.Errorf("%d rows differ: %s", n, q)
		}
	}
}

// mappedColumns lists the original and ghost names of the column map, in original order.
func (f *fixture) mappedColumns() (orig, ghost []string) {
	for _, c := range f.cfg.Original.Columns {
		if g, ok := f.cfg.ColumnMap[c.Name]; ok {
			orig = append(orig, c.Name)
			ghost = append(ghost, g)
		}
	}
	return orig, ghost
}
