package chaos

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/go-sql-driver/mysql"
	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/cutover"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/loadgen"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// proxyDB is the database of TestProxy.
const proxyDB = "gl_chaos_proxy"

// proxyDeadline bounds one cut-over of TestProxy (its own bound is 1 s per wait, 14 s to recover).
const proxyDeadline = 20 * time.Second

// cutPath is the cut-over's network path: every connection the cut-over's pool opens before the
// cut goes through an in-process toxiproxy in front of the primary; cutting adds a "timeout"
// toxic with timeout 0 both ways, so those connections stop passing bytes without a FIN or RST
// (the server keeps the sessions and any queued RENAME). Connections the pool opens after the
// cut take a healthy direct path, as a new TCP connection would after a dead NAT entry or a hung
// middlebox: that is the "fresh connection" the tool must use to kill its sessions by id.
// No seam in the tool is needed: the routing lives in the pool's dialer (mysql.Config.DialFunc).
type cutPath struct {
	proxy  *toxiproxy.Proxy
	direct string
	cut    atomic.Bool
	mu     sync.Mutex
	viaCut []net.Conn // client ends dialed through the proxy
}

func newCutPath(t *testing.T, upstream string) *cutPath {
	t.Helper()
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(srv, "cutover", "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		t.Fatalf("start toxiproxy: %v", err)
	}
	c := &cutPath{proxy: p, direct: upstream}
	t.Cleanup(func() {
		c.mu.Lock()
		for _, conn := range c.viaCut {
			_ = conn.Close()
		}
		c.mu.Unlock()
		p.Stop()
	})
	return c
}

func (c *cutPath) dial(ctx context.Context, network, _ string) (net.Conn, error) {
	var d net.Dialer
	if c.cut.Load() {
		return d.DialContext(ctx, network, c.direct)
	}
	conn, err := d.DialContext(ctx, network, c.proxy.Listen)
	if err == nil {
		c.mu.Lock()
		c.viaCut = append(c.viaCut, conn)
		c.mu.Unlock()
	}
	return conn, err
}

// sever stops every byte on the proxied connections, both ways, without closing them.
func (c *cutPath) sever() error {
	c.cut.Store(true)
	for _, dir := range []string{"upstream", "downstream"} {
		js := fmt.Sprintf(`{"name":"cut_%s","type":"timeout","stream":%q,"toxicity":1,"attributes":{"timeout":0}}`, dir, dir)
		if _, err := c.proxy.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
			return fmt.Errorf("add timeout toxic %s: %w", dir, err)
		}
	}
	return nil
}

// openPool opens a pool on schema whose connections are dialed by c.
func (c *cutPath) openPool(t *testing.T, schema string) *sql.DB {
	t.Helper()
	mc, err := mysql.ParseDSN(testenv.PrimaryConfig().DSN(schema))
	if err != nil {
		t.Fatal(err)
	}
	mc.DialFunc = c.dial
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

// startInserts starts writers inserting unique ids (1,000,001 up) into q, each at most one write
// every 2 ms, and returns once 30 were acknowledged.
func startInserts(t *testing.T, db *sql.DB, q string, writers int) *loadgen.Load {
	t.Helper()
	var next atomic.Int64
	next.Store(1_000_000)
	l := startLoad(db, float64(writers)*500, writers, true, func(r *rand.Rand) (string, []any) {
		return "INSERT INTO " + q + " (id, w) VALUES (?, ?)", []any{next.Add(1), r.Intn(1000)}
	})
	t.Cleanup(func() { l.Stop() })
	if !l.WaitAcked(30, 5*time.Second) {
		t.Fatal("the write load did not start")
	}
	return l
}

// sentinelAt is a cutover.Sentinel that proves nothing (the ghost gets no copies in this test)
// but records when it last returned: an acknowledged write issued after that must not be in the
// old table, or the real tool's ghost would have missed it.
type sentinelAt struct{ at atomic.Int64 }

func (s *sentinelAt) Await(context.Context) error {
	s.at.Store(time.Now().UnixNano())
	return nil
}

// Hold and AwaitOn make it a cutover.LockedSentinel for lock-rename: no applier to hold.
func (s *sentinelAt) Hold(context.Context) (func(), error)           { return func() {}, nil }
func (s *sentinelAt) AwaitOn(ctx context.Context, _ *sql.Conn) error { return s.Await(ctx) }

// killedByID reports whether the cut-over's log records that it killed connection id and saw it
// gone (the "killed" line of its recovery, written after KILL CONNECTION from a fresh session).
func killedByID(logs string, id int64) bool {
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Message    string `json:"message"`
			Connection int64  `json:"connection"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "killed" && line.Connection == id {
			return true
		}
	}
	return false
}

// TestProxy silently cuts the network path of the cut-over's connections (C1, the renames and the
// observer) before a chosen step, for each algorithm the cutover package accepts. The tool sees
// neither an answer nor a FIN; the server keeps the sessions, and a RENAME already sent stays
// queued. The cut-over must end with no session of the severed path left on the server, having
// killed its queued renames by id from a fresh connection, the table under its name (swapped by a
// retry), and no acknowledged write lost.
func TestProxy(t *testing.T) {
	t.Parallel() // its own database (proxyDB) and proxy: the three chaos tests run side by side
	admin := testenv.Database(t, proxyDB)
	// Where to cut, per algorithm, and how many renames (Rename1, then Rename2) were issued by
	// then: those the tool must kill by id.
	type cut struct {
		step    cutover.Step
		renames int
	}
	cases := map[string][]cut{
		config.CutOverThreeStep:  {{cutover.StepSentinel, 0}, {cutover.StepObserve1, 1}, {cutover.StepObserve2, 2}, {cutover.StepUnlock, 2}},
		config.CutOverAtomic:     {{cutover.StepSentinel, 0}, {cutover.StepAtomicObserve, 1}, {cutover.StepDropSentry, 1}, {cutover.StepSentryDropped, 1}},
		config.CutOverTwoStep:    {{cutover.StepSentinel, 0}, {cutover.StepRenameAway, 0}, {cutover.StepRenameIn, 0}},
		config.CutOverLockRename: {{cutover.StepSentinel, 0}, {cutover.StepLockRename, 0}, {cutover.StepLockRenameUnlock, 0}},
	}
	algos := config.CutOverAlgorithms()
	for _, algo := range algos {
		for i, c := range cases[algo] {
			t.Run(fmt.Sprintf("%s/cut before %s", algo, c.step), func(t *testing.T) {
				testenv.FlavorLimit(t, func(f dbconn.Flavor) bool { return cutover.RefuseOn(algo, f) == nil }, "--cut-over="+algo+" is refused there")
				tbl := fmt.Sprintf("p_%s_%d", strings.ReplaceAll(algo, "-", ""), i)
				runProxyCase(t, admin, algo, tbl, c.step, c.renames)
			})
		}
	}
}

func runProxyCase(t *testing.T, admin *sql.DB, algo, tbl string, step cutover.Step, renames int) {
	tables := cutover.Tables{Schema: proxyDB, Original: tbl, Ghost: table.GhostName(tbl), Old: table.OldName(tbl, "")}
	q := table.Qualify(proxyDB, tbl)
	testenv.Exec(t, admin,
		fmt.Sprintf("CREATE TABLE %s (id BIGINT NOT NULL PRIMARY KEY, w INT NOT NULL) ENGINE=InnoDB", q),
		fmt.Sprintf("CREATE TABLE %s (id BIGINT NOT NULL PRIMARY KEY, w INT NOT NULL, marker VARCHAR(8) NOT NULL DEFAULT 'ghost') ENGINE=InnoDB", table.Qualify(proxyDB, tables.Ghost)),
		fmt.Sprintf("INSERT INTO %s (id, w) WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 100) SELECT n, 0 FROM s", q),
	)
	path := newCutPath(t, testenv.PrimaryConfig().Addr())
	db := path.openPool(t, proxyDB)
	writers := testenv.Open(t, testenv.PrimaryConfig(), proxyDB)

	var logs testenv.LogBuffer
	var severed cutover.StepInfo
	// The first attempt that reaches step is cut (on a busy machine an attempt may fail before it,
	// on its own lock timeout: the next one is cut then).
	hook := func(ctx context.Context, s cutover.Step, info cutover.StepInfo) error {
		if severed.Attempt != 0 || s != step {
			return nil
		}
		severed = info
		return path.sever()
	}
	sent := &sentinelAt{}
	load := startInserts(t, writers, q, 3)
	start := time.Now()
	// Every wait of the cut-over is bounded by LockTimeout (1 s) and recovery by 4 x LockTimeout
	// + 10 s: a cut-over still running after proxyDeadline hangs on the severed path.
	rctx, cancel := context.WithTimeout(context.Background(), proxyDeadline)
	defer cancel()
	cutErr := cutover.Run(rctx, algo, cutover.Config{
		DB: db, Tables: tables, LockTimeout: time.Second, Retries: 3,
		RetryBackoff: 100 * time.Millisecond,
		Logger:       zerolog.New(&logs).Level(zerolog.DebugLevel).With().Timestamp().Logger(),
		Seams:        cutover.TestSeams{BeforeStep: hook},
	}, sent)
	took := time.Since(start)
	time.Sleep(100 * time.Millisecond)
	load.Stop()
	acks, errs := map[int64]time.Time{}, map[uint16]int{} // id -> start of the acknowledged INSERT
	for _, w := range load.Writes() {
		if w.Acked() {
			acks[w.Args[0].(int64)] = w.Start
		} else {
			errs[w.Errno()]++
		}
	}
	defer func() {
		if t.Failed() {
			t.Logf("cut-over log:\n%s", logs.String())
		}
	}()
	if took >= proxyDeadline {
		t.Errorf("the cut-over hung on the severed connections until the test's deadline (%s): a wait is not bounded by the lock timeout", proxyDeadline)
	}
	if severed.Attempt == 0 {
		t.Fatalf("the path was never cut (err %v)", cutErr)
	}
	if cutErr != nil {
		// Keep checking: whether the table is under its name and no write was lost matters most.
		t.Errorf("cut-over after a silent cut before %s: %v", step, cutErr)
	}
	t.Logf("cut before %s: cut-over took %s; writes acked %d, errors %v", step, took.Round(time.Millisecond), len(acks), errs)

	// Not one session of the severed path is left on the server (the C1 session may only be
	// gone because of its own wait_timeout, but the renames must have been killed, by id).
	ctx := context.Background()
	for _, s := range []struct {
		name string
		id   int64
	}{{"C1", severed.Lock}, {"rename 1", severed.Rename1}, {"rename 2", severed.Rename2}} {
		if s.id == 0 {
			continue
		}
		if alive, err := testenv.InProcesslist(ctx, admin, s.id); err != nil || alive {
			t.Errorf("%s (connection %d) of the severed path is still on the server (%v)", s.name, s.id, err)
		}
	}
	for _, id := range []int64{severed.Rename1, severed.Rename2}[:renames] {
		if !killedByID(logs.String(), id) {
			t.Errorf("the queued rename (connection %d) was not killed by id from a fresh connection", id)
		}
	}

	// The table is under its name, swapped; no acknowledged write lost.
	names := testenv.Existing(t, admin, proxyDB, tables.Original, tables.Old, tables.Ghost)
	if !names[tables.Original] {
		t.Fatalf("after the cut-over %s is missing (%v): the application's writes fail until someone restores it", tables.Original, names)
	}
	if cutErr == nil && (!names[tables.Old] || names[tables.Ghost]) {
		t.Errorf("after the cut-over: %v; want %s and %s only", names, tables.Original, tables.Old)
	}
	if ok, cerr := hasColumn(ctx, admin, proxyDB, tables.Original, "marker"); cerr != nil || (cutErr == nil && !ok) {
		t.Errorf("%s is not the former ghost (%v)", tables.Original, cerr)
	}
	inNew, inOld := testenv.Int64s(t, admin, proxyDB, tables.Original, "id", "id"), map[int64]int64{}
	if names[tables.Old] {
		inOld = testenv.Int64s(t, admin, proxyDB, tables.Old, "id", "id")
	}
	lost := 0
	for id, started := range acks {
		_, old := inOld[id]
		_, cur := inNew[id]
		switch {
		case old && started.UnixNano() > sent.at.Load():
			t.Errorf("write %d issued after the sentinel landed in %s: the ghost would miss it", id, tables.Old)
		case old || cur:
		default:
			lost++
		}
	}
	if lost > 0 {
		t.Fatalf("%d acknowledged writes lost", lost)
	}
}
