package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/config"
)

// supportedFlags is the brief's list of flags go-ghostlite implements.
var supportedFlags = []string{
	"host", "port", "user", "password", "conf", "database", "table", "alter", "execute",
	"allow-on-master", "assume-master-host", "assume-rbr", "exact-rowcount", "chunk-size",
	"default-retries", "initially-drop-ghost-table", "initially-drop-old-table",
	"initially-drop-socket-file", "ok-to-drop-table", "approve-renamed-columns",
	"skip-renamed-columns", "discard-foreign-keys", "skip-foreign-key-checks", "allow-cascading-foreign-keys-data-loss",
	"timestamp-old-table", "storage-engine", "verbose", "debug", "quiet", "stack", "version", "help",
	"heartbeat-interval-millis", "replica-server-id", "gtid", "dml-batch-size", "cut-over",
	"cut-over-lock-timeout-seconds", "postpone-cut-over-flag-file", "panic-flag-file", "log-format", "allow-lock-bypassing-plugins",
	"cut-over-exponential-backoff", "exponential-backoff-max-interval", "recover-cut-over",
	"migrate-on-replica", "test-on-replica", "test-on-replica-skip-replica-stop",
	"skip-metadata-lock-check", "allow-setup-metadata-lock-instruments",
	// throttling (flags_table_throttle.go)
	"max-load", "critical-load", "critical-load-interval-millis", "critical-load-hibernate-seconds",
	"max-lag-millis", "throttle-control-replicas", "throttle-query", "throttle-http",
	"throttle-flag-file", "throttle-additional-flag-file", "nice-ratio", "replication-lag-query",
	"throttle-http-interval-millis", "throttle-http-timeout-millis", "ignore-http-errors",
	"hooks-path", "hooks-hint", "hooks-hint-owner", "hooks-hint-token", "hooks-status-interval", "metrics-addr",
	"serve-socket-file", "serve-tcp-port", "force-named-cut-over", "force-named-panic", "concurrent-rowcount",
	"checksum",
	"checkpoint", "checkpoint-seconds", "resume", // flags_table_migration.go
	// security (flags_table_connection.go)
	"ssl", "ssl-ca", "ssl-cert", "ssl-key", "ssl-allow-insecure", "ask-pass", "master-user", "master-password",
	// speed (flags_table_migration.go)
	"attempt-instant-ddl", "analyze-ghost-table-before-cutover", "chunk-time", "copy-threads",
	"statement", // flags_table_migration.go
}

var required = []string{"--database=db", "--table=tbl", "--alter=ADD COLUMN c INT"}

func parse(t *testing.T, args ...string) (invocation, error) {
	t.Helper()
	return parseArgs(args, io.Discard, io.Discard)
}

func mustParse(t *testing.T, args ...string) config.Config {
	t.Helper()
	inv, err := parse(t, args...)
	if err != nil {
		t.Fatalf("parseArgs(%q): %v", args, err)
	}
	if inv.Action != actionRun {
		t.Fatalf("parseArgs(%q): action %v, want run", args, inv.Action)
	}
	return inv.Config
}

// withoutLogger blanks the logger so two configs compare with reflect.DeepEqual.
func withoutLogger(c config.Config) config.Config {
	c.Logger = zerolog.Logger{}
	return c
}

func TestDefaultsAreGhOsts(t *testing.T) {
	ghost := map[string]string{ // gh-ost's defaults, as pflag prints them
		"host": "127.0.0.1", "port": "3306", "chunk-size": "1000", "default-retries": "60",
		"storage-engine": "innodb", "heartbeat-interval-millis": "100", "replica-server-id": "99999",
		"dml-batch-size": "10", "cut-over-lock-timeout-seconds": "3", "execute": "false",
		"user": "", "password": "", "database": "", "table": "", "alter": "", "conf": "",
		"max-lag-millis": "1500", "throttle-control-replicas": "", "throttle-query": "", "throttle-http": "",
		"throttle-http-interval-millis": "100", "throttle-http-timeout-millis": "1000", "ignore-http-errors": "false",
		"throttle-flag-file": "", "throttle-additional-flag-file": "/tmp/gh-ost.throttle", "max-load": "",
		"critical-load": "", "critical-load-interval-millis": "0", "critical-load-hibernate-seconds": "0",
		"nice-ratio": "0", "replication-lag-query": "",
		// ours
		"cut-over": "three-step", "log-format": "console", "allow-lock-bypassing-plugins": "false",
		"concurrent-rowcount": "true", "serve-tcp-port": "0", "force-named-cut-over": "false", "force-named-panic": "false",
		"statement": "",
	}
	cfg := config.Default()
	fs := newFlagSet(&cfg, &flagValues{})
	for name, want := range ghost {
		f := fs.Lookup(name)
		if f == nil {
			t.Errorf("--%s is not registered", name)
			continue
		}
		if f.DefValue != want {
			t.Errorf("--%s defaults to %q, want %q", name, f.DefValue, want)
		}
	}

	got := mustParse(t, required...)
	want := config.Default()
	want.Database, want.Table, want.Alter = "db", "tbl", "ADD COLUMN c INT"
	want.ChunkTime = config.DefaultChunkTime // ours, not gh-ost's: chunks sized by their time
	if !reflect.DeepEqual(withoutLogger(got), withoutLogger(want)) {
		t.Fatalf("defaults:\n got %+v\nwant %+v", withoutLogger(got), withoutLogger(want))
	}
	if got.Logger.GetLevel() != zerolog.InfoLevel {
		t.Fatalf("default log level %v, want info", got.Logger.GetLevel())
	}
}

func TestEveryFlagMapsIntoConfig(t *testing.T) {
	got := mustParse(t,
		"--host=db1", "--port", "3307", "--user=u", "--password=p", "--database=shop", "--table=orders",
		"--alter", "ADD COLUMN note TEXT", "--execute", "--allow-on-master", "--assume-master-host=primary:3306",
		"--assume-rbr", "--exact-rowcount", "--chunk-size=500", "--default-retries=7", "--dml-batch-size=20",
		"--initially-drop-ghost-table", "--initially-drop-old-table", "--initially-drop-socket-file",
		"--ok-to-drop-table", "--timestamp-old-table", "--approve-renamed-columns", "--skip-renamed-columns",
		"--discard-foreign-keys", "--skip-foreign-key-checks", "--allow-cascading-foreign-keys-data-loss", "--allow-zero-in-date", "--skip-strict-mode", "--storage-engine=InnoDB",
		"--heartbeat-interval-millis=250", "--replica-server-id=4242", "--gtid", "--cut-over=two-step",
		"--cut-over-lock-timeout-seconds=9", "--allow-lock-bypassing-plugins",
		"--postpone-cut-over-flag-file=/tmp/postpone", "--panic-flag-file=/tmp/panic",
		"--cut-over-exponential-backoff", "--exponential-backoff-max-interval=16", "--recover-cut-over",
		"--migrate-on-replica", "--test-on-replica", "--test-on-replica-skip-replica-stop",
		"--skip-metadata-lock-check", "--allow-setup-metadata-lock-instruments",
		"--max-lag-millis=2500", "--throttle-control-replicas=r1,r2:3307", "--replication-lag-query=select 1",
		"--throttle-query=select 0", "--throttle-http=http://freno/check", "--throttle-http-interval-millis=250",
		"--throttle-http-timeout-millis=300", "--ignore-http-errors", "--throttle-flag-file=/tmp/th",
		"--throttle-additional-flag-file=/tmp/shared.throttle", "--max-load=Threads_running=25",
		"--critical-load=Threads_running=1000,Threads_connected=2000", "--critical-load-interval-millis=500",
		"--critical-load-hibernate-seconds=30", "--nice-ratio=0.5",
		"--concurrent-rowcount=false", "--checksum=false",
		"--checkpoint", "--checkpoint-seconds=60", "--resume", "--revert", "--old-table=_orders_del",
		"--include-triggers", "--trigger-suffix=_new", "--remove-trigger-suffix-if-exists", "--allow-nullable-unique-key",
		"--switch-to-rbr", "--tungsten", "--binlogsyncer-max-reconnect-attempts=3", "--mysql-timeout=2.5",
		"--master-user=mu", "--master-password=mp",
		"--attempt-instant-ddl", "--analyze-ghost-table-before-cutover", "--chunk-time=300ms", "--copy-threads=4",
	)
	want := config.Default()
	want.Conn.Host, want.Conn.Port, want.Conn.User, want.Conn.Password = "db1", 3307, "u", "p"
	want.Database, want.Table, want.Alter = "shop", "orders", "ADD COLUMN note TEXT"
	want.Execute, want.AllowOnMaster, want.AssumeMasterHost = true, true, "primary:3306"
	want.AssumeRBR, want.ExactRowcount = true, true
	want.ChunkSize, want.DefaultRetries, want.DMLBatchSize = 500, 7, 20
	want.InitiallyDropGhostTable, want.InitiallyDropOldTable, want.InitiallyDropSocketFile = true, true, true
	want.OkToDropTable, want.TimestampOldTable = true, true
	want.ApproveRenamedColumns, want.SkipRenamedColumns = true, true // contradiction: Validate's to refuse
	want.DiscardForeignKeys, want.SkipForeignKeyChecks, want.AllowCascadingForeignKeysDataLoss = true, true, true
	want.AllowZeroInDate, want.SkipStrictMode = true, true
	want.StorageEngine = "innodb"
	want.HeartbeatInterval, want.ReplicaServerID, want.UseGTID = 250*time.Millisecond, 4242, true
	want.CutOver, want.CutOverLockTimeout = "two-step", 9*time.Second
	want.AllowPlugins = true
	want.PostponeCutOverFlagFile, want.PanicFlagFile = "/tmp/postpone", "/tmp/panic"
	want.CutOverExponentialBackoff, want.ExponentialBackoffMaxInterval, want.RecoverCutOver = true, 16*time.Second, true
	want.MigrateOnReplica, want.TestOnReplica, want.TestOnReplicaSkipReplicaStop = true, true, true
	want.SkipMetadataLockCheck, want.AllowSetupMetadataLockInstruments = true, true
	want.MaxLag, want.ThrottleControlReplicas, want.ReplicationLagQuery = 2500*time.Millisecond, "r1,r2:3307", "select 1"
	want.ThrottleQuery, want.ThrottleHTTP, want.IgnoreHTTPErrors = "select 0", "http://freno/check", true
	want.ThrottleHTTPInterval, want.ThrottleHTTPTimeout = 250*time.Millisecond, 300*time.Millisecond
	want.ThrottleFlagFile, want.ThrottleAdditionalFlagFile = "/tmp/th", "/tmp/shared.throttle"
	want.MaxLoad, want.CriticalLoad = "Threads_running=25", "Threads_running=1000,Threads_connected=2000"
	want.CriticalLoadInterval, want.CriticalLoadHibernate, want.NiceRatio = 500*time.Millisecond, 30*time.Second, 0.5
	want.ConcurrentRowcount = false
	want.Checksum = false
	want.Checkpoint, want.CheckpointInterval, want.Resume = true, 60*time.Second, true
	want.Revert, want.OldTableName = true, "_orders_del"
	want.IncludeTriggers, want.TriggerSuffix, want.RemoveTriggerSuffix = true, "_new", true
	want.AllowNullableUniqueKey, want.SwitchToRBR, want.Tungsten, want.BinlogReconnectAttempts = true, true, true, 3
	want.Conn.Timeout = 2500 * time.Millisecond
	want.MasterUser, want.MasterPassword = "mu", "mp"
	want.AttemptInstantDDL, want.AnalyzeGhostTable, want.ChunkTime, want.CopyThreads = true, true, 300*time.Millisecond, 4
	if !reflect.DeepEqual(withoutLogger(got), withoutLogger(want)) {
		t.Fatalf("mapping:\n got %+v\nwant %+v", withoutLogger(got), withoutLogger(want))
	}

	// A Config field that no flag sets is a flag forgotten: every field must differ from its
	// default after the command line above, unless it is listed here with the reason.
	exempt := map[string]string{
		"Logger":           "built from --log-format/--verbose/--debug/--quiet, tested below",
		"StorageEngine":    "innodb is the only value accepted",
		"FlagFileInterval": "no gh-ost flag: tests shorten it",
		"Statement":        "contradicts --table and --alter, and is read into them: TestStatementFlag maps it",
		"SetTables":        "no flag: migrator.NewSet fills it from --statement (TestSetRefusals, TestSameSet)",
	}
	fields := 0
	eachConfigField(reflect.ValueOf(got), reflect.ValueOf(config.Default()), func(f reflect.StructField, g, d reflect.Value) {
		fields++
		if _, ok := exempt[f.Name]; ok {
			return
		}
		if !f.IsExported() {
			t.Errorf("Config.%s is unexported: Config holds only what a user can set (test seams live on the Migrator)", f.Name)
		} else if reflect.DeepEqual(g.Interface(), d.Interface()) {
			t.Errorf("Config.%s is not set by any flag of this test: map it to a flag (and test it) or exempt it", f.Name)
		}
	})
	if fields < 70 {
		t.Errorf("walked %d Config fields: the walk misses the embedded settings", fields)
	}
}

// eachConfigField calls fn with each field of the configs got and def (both config.Config), the
// fields of the embedded settings structs in place of those structs (Conn is one field).
func eachConfigField(got, def reflect.Value, fn func(f reflect.StructField, g, d reflect.Value)) {
	for i := range got.NumField() {
		f := got.Type().Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			eachConfigField(got.Field(i), def.Field(i), fn)
			continue
		}
		fn(f, got.Field(i), def.Field(i))
	}
}

func TestSupportedFlagsAreListed(t *testing.T) {
	cfg := config.Default()
	fs := newFlagSet(&cfg, &flagValues{})
	var help bytes.Buffer
	writeHelp(&help, fs)
	for _, name := range supportedFlags {
		f := fs.Lookup(name)
		switch {
		case f == nil:
			t.Errorf("--%s is not registered", name)
		case f.Hidden:
			t.Errorf("--%s is hidden", name)
		case !strings.Contains(help.String(), "--"+name+" "):
			t.Errorf("--help does not list --%s", name)
		}
	}
}

func TestBadUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "unknown flag: --nope (see go-ghostlite --help)"},
		{[]string{"--chunk-size=abc"}, `invalid argument "abc" for "--chunk-size" flag`},
		{[]string{"--port=x"}, `invalid argument "x" for "--port" flag`},
		{[]string{"--max-lag-millis=1.5s"}, `invalid argument "1.5s" for "--max-lag-millis" flag`},
		{[]string{"--critical-load-hibernate-seconds=x"}, `invalid argument "x" for "--critical-load-hibernate-seconds" flag`},
		{[]string{"--nice-ratio=lots"}, `invalid argument "lots" for "--nice-ratio" flag`},
		{[]string{"--replica-server-id=-1"}, `invalid argument "-1" for "--replica-server-id" flag`},
		{[]string{"--replica-server-id=0"}, "--replica-server-id must not be 0"},
		{[]string{"--heartbeat-interval-millis=0"}, "--heartbeat-interval-millis must be positive"},
		{[]string{"--storage-engine=rocksdb"}, "--storage-engine=rocksdb is not supported"},
		{[]string{"--log-format=xml"}, "--log-format=xml: use console or json"},
		{[]string{"--quiet", "--debug"}, "--quiet contradicts"},
		{[]string{"--alter", "ADD", "COLUMN", "c", "INT"}, `unexpected argument "COLUMN"`},
		{[]string{"--table"}, "flag needs an argument: --table"},
		{[]string{"--conf=/nonexistent/ghostlite.cnf"}, "read --conf file: open /nonexistent/ghostlite.cnf"},
	}
	for _, c := range cases {
		_, err := parse(t, append(slices.Clone(required), c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	var out bytes.Buffer
	inv, err := parseArgs([]string{"--chunk-size=5", "--help"}, &out, io.Discard)
	if err != nil || inv.Action != actionHelp {
		t.Fatalf("--help: action %v, err %v", inv.Action, err)
	}
	help := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{
		"Usage:", "Example:", "Exit codes: 0 success, 1", "2 bad usage",
		"--chunk-size int rows copied per chunk (10 to 100000); given, every chunk has that many rows (gh-ost), else chunks start there and follow --chunk-time (default 1000)",
		`--host string`, `(default "127.0.0.1")`,
	} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	inv, err = parseArgs([]string{"--version"}, &out, io.Discard)
	if err != nil || inv.Action != actionVersion || out.String() != "go-ghostlite dev\n" {
		t.Fatalf("--version: action %v, err %v, output %q", inv.Action, err, out.String())
	}
}

func TestConfFileAndCommandLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "my.cnf")
	if err := os.WriteFile(path, []byte("[client]\nuser = fileuser\npassword = 'file pw'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := mustParse(t, append(slices.Clone(required), "--conf="+path)...)
	if cfg.Conn.User != "fileuser" || cfg.Conn.Password != "file pw" {
		t.Fatalf("from file: got %q/%q", cfg.Conn.User, cfg.Conn.Password)
	}
	cfg = mustParse(t, append(slices.Clone(required), "--conf", path, "--user=cli")...)
	if cfg.Conn.User != "cli" || cfg.Conn.Password != "file pw" {
		t.Fatalf("--user wins: got %q/%q", cfg.Conn.User, cfg.Conn.Password)
	}
	cfg = mustParse(t, append(slices.Clone(required), "--password=", "--conf="+path)...)
	if cfg.Conn.User != "fileuser" || cfg.Conn.Password != "" {
		t.Fatalf("--password= wins: got %q/%q", cfg.Conn.User, cfg.Conn.Password)
	}
}

func TestLogging(t *testing.T) {
	levels := map[string]zerolog.Level{
		"": zerolog.InfoLevel, "--verbose": zerolog.InfoLevel,
		"--debug": zerolog.DebugLevel, "--quiet": zerolog.ErrorLevel,
	}
	for flag, want := range levels {
		args := slices.Clone(required)
		if flag != "" {
			args = append(args, flag)
		}
		if got := mustParse(t, args...).Logger.GetLevel(); got != want {
			t.Errorf("%q: level %v, want %v", flag, got, want)
		}
	}

	var stderr bytes.Buffer
	inv, err := parseArgs(append(slices.Clone(required), "--log-format=json"), io.Discard, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	inv.Config.Logger.Info().Str("component", "test").Msg("hello")
	inv.Config.Logger.Debug().Msg("hidden at info level")
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(stderr.Bytes()), &line); err != nil {
		t.Fatalf("json log is not one JSON line: %v: %q", err, stderr.String())
	}
	if line["message"] != "hello" || line["level"] != "info" || line["component"] != "test" || line["time"] == nil {
		t.Fatalf("json log line: %v", line)
	}

	stderr.Reset()
	inv, err = parseArgs(slices.Clone(required), io.Discard, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	inv.Config.Logger.Warn().Msg("console line")
	if out := stderr.String(); !strings.Contains(out, "console line") || !strings.Contains(out, "WRN") ||
		strings.Contains(out, "\x1b[") || strings.HasPrefix(out, "{") {
		t.Fatalf("console log (no colour off a terminal): %q", out)
	}
}

// TestFlagsAreDocumented keeps doc/flags.md in step with the flag table.
func TestFlagsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "doc", "flags.md"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	newFlagSet(&cfg, &flagValues{}).VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(string(doc), "`--"+f.Name+"`") {
			t.Errorf("doc/flags.md does not mention `--%s`", f.Name)
		}
	})
}

// --allow-zero-in-date and --skip-strict-mode are gh-ost's, default off, and reach the config.
func TestSQLModeFlags(t *testing.T) {
	cfg := mustParse(t, required...)
	if cfg.AllowZeroInDate || cfg.SkipStrictMode {
		t.Errorf("defaults: allow-zero-in-date %v, skip-strict-mode %v; want both off", cfg.AllowZeroInDate, cfg.SkipStrictMode)
	}
	cfg = mustParse(t, append([]string{"--allow-zero-in-date", "--skip-strict-mode"}, required...)...)
	if !cfg.AllowZeroInDate || !cfg.SkipStrictMode {
		t.Errorf("set: allow-zero-in-date %v, skip-strict-mode %v; want both on", cfg.AllowZeroInDate, cfg.SkipStrictMode)
	}
}
