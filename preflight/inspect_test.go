package preflight

import (
	"context"
	"strings"
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

func TestCheckBinlog(t *testing.T) {
	good := func() map[string]string {
		return map[string]string{"log_bin": "ON", "binlog_format": "ROW", "binlog_row_image": "FULL", "log_slave_updates": "ON"}
	}
	with := func(k, v string) map[string]string {
		m := good()
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name      string
		vars      map[string]string
		onReplica bool
		assumeRBR bool
		phrase    string // "" means accepted
	}{
		{"MariaDB defaults as the sandbox has them", good(), true, false, ""},
		{"primary without log_slave_updates", with("log_slave_updates", "OFF"), false, false, ""},
		{"binlog off", with("log_bin", "OFF"), false, false, "h:1 must have binary logs enabled: go-ghostlite reads the table's changes from its binary log (log_bin=OFF there)"},
		{"statement", with("binlog_format", "STATEMENT"), false, false,
			"you must be using ROW binlog format. I can switch it for you, provided --switch-to-rbr and that h:1 doesn't have replicas: it writes STATEMENT events, and only row events can be applied faithfully"},
		{"mixed", with("binlog_format", "MIXED"), true, false, "it writes MIXED events"},
		{"mixed with --assume-rbr", with("binlog_format", "MIXED"), true, true, ""},
		{"minimal image", with("binlog_row_image", "MINIMAL"), false, false, "h:1 has 'MINIMAL' binlog_row_image, and only 'FULL' is supported: the applier writes whole rows from the row images"},
		{"noblob image even with --assume-rbr", with("binlog_row_image", "NOBLOB"), false, true, "has 'NOBLOB' binlog_row_image"},
		{"replica without log_slave_updates", with("log_slave_updates", "OFF"), true, false, "h:1 must have log_slave_updates enabled for executing migration: without it"},
		{"MySQL 8 log_replica_updates wins", with("log_replica_updates", "OFF"), true, false, "must have log_slave_updates enabled"},
		{"MySQL 8.4 has only log_replica_updates", func() map[string]string {
			m := with("log_slave_updates", "")
			m["log_replica_updates"] = "ON"
			return m
		}(), true, false, ""},
		{"partial JSON (applied)", with("binlog_row_value_options", "PARTIAL_JSON"), false, false, ""},
		{"empty row value options", with("binlog_row_value_options", ""), false, false, ""},
		{"compression (decoded)", with("binlog_transaction_compression", "ON"), false, false, ""},
		{"compression off", with("binlog_transaction_compression", "OFF"), false, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkBinlog("h:1", c.vars, c.onReplica, c.assumeRBR)
			switch {
			case c.phrase == "" && err != nil:
				t.Errorf("%s: refused: %v", c.name, err)
			case c.phrase != "" && (err == nil || !strings.Contains(err.Error(), c.phrase)):
				t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.phrase)
			}
		})
	}
}

func TestResolvePrimary(t *testing.T) {
	base := config.Config{}
	base.Conn = dbconn.Config{Host: "10.0.0.2", Port: 3307, User: "u", Password: "p"}
	running := &dbconn.ReplicaStatus{SourceHost: "10.0.0.1", SourcePort: 3306, IORunning: "Yes", SQLRunning: "Yes"}

	p, onReplica, err := resolvePrimary(base, running)
	if err != nil || !onReplica || p.Addr() != "10.0.0.1:3306" || p.User != "u" || p.Password != "p" {
		t.Fatalf("replica: %+v %v %v", p, onReplica, err)
	}
	stopped := *running
	stopped.IORunning = "No"
	if _, _, err := resolvePrimary(base, &stopped); err == nil || !strings.Contains(err.Error(), "replication is not running on 10.0.0.2:3307 (IO thread: No") {
		t.Fatalf("stopped replica: %v", err)
	}
	if _, _, err := resolvePrimary(base, nil); err == nil ||
		err.Error() != "it seems like this migration attempt to run directly on master: 10.0.0.2:3307 is a primary (not replicating); pass --allow-on-master to migrate on it, or point --host at a replica" {
		t.Fatalf("primary: %v", err)
	}
	onMaster := base
	onMaster.AllowOnMaster = true
	if p, onReplica, err := resolvePrimary(onMaster, nil); err != nil || onReplica || p.Addr() != "10.0.0.2:3307" {
		t.Fatalf("allow-on-master: %+v %v %v", p, onReplica, err)
	}
	assumed := base
	assumed.AssumeMasterHost = "10.0.0.9"
	if p, onReplica, err := resolvePrimary(assumed, nil); err != nil || !onReplica || p.Addr() != "10.0.0.9:3307" {
		t.Fatalf("assume-master-host without port: %+v %v %v", p, onReplica, err)
	}
	assumed.AssumeMasterHost = "10.0.0.9:4000"
	if p, _, err := resolvePrimary(assumed, running); err != nil || p.Addr() != "10.0.0.9:4000" {
		t.Fatalf("assume-master-host wins over detection: %+v %v", p, err)
	}
	assumed.AssumeMasterHost = "10.0.0.2:3307"
	if _, onReplica, err := resolvePrimary(assumed, nil); err != nil || onReplica {
		t.Fatalf("assume-master-host naming the server itself: %v %v", onReplica, err)
	}
}

func TestCheckLockBypassingPlugins(t *testing.T) {
	plain := []plugin{{"InnoDB", "ACTIVE"}, {"partition", "ACTIVE"}}
	if err := checkLockBypassingPlugins("h:1", plain, false); err != nil {
		t.Fatalf("plain server refused: %v", err)
	}
	hs := append(plain, plugin{"handlersocket", "ACTIVE"})
	err := checkLockBypassingPlugins("h:1", hs, false)
	if err == nil || !strings.Contains(err.Error(), "the handlersocket plugin is active on h:1") ||
		!strings.Contains(err.Error(), "--allow-lock-bypassing-plugins") {
		t.Fatalf("HandlerSocket: %v", err)
	}
	if err := checkLockBypassingPlugins("h:1", hs, true); err != nil {
		t.Fatalf("allowed HandlerSocket refused: %v", err)
	}
	inactive := append(plain, plugin{"HANDLERSOCKET", "DISABLED"})
	if err := checkLockBypassingPlugins("h:1", inactive, false); err != nil {
		t.Fatalf("disabled plugin refused: %v", err)
	}
}

func TestCheckForeignKeys(t *testing.T) {
	own := []foreignKey{{Name: "fk_c_p", Parent: "p", OnUpdate: "RESTRICT", OnDelete: "NO ACTION"}}
	refs := []string{"gl.c.fk_c_p"}
	flags := func(discard, skip, allowLoss bool) config.Config {
		cfg := config.Config{}
		cfg.DiscardForeignKeys, cfg.SkipForeignKeyChecks, cfg.AllowCascadingForeignKeysDataLoss = discard, skip, allowLoss
		return cfg
	}
	if err := checkForeignKeys(flags(false, false, false), "gl.t", nil, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := checkForeignKeys(flags(false, false, false), "gl.c", own, nil, false); err == nil || !strings.Contains(err.Error(), "gl.c has foreign keys (fk_c_p -> p)") {
		t.Fatalf("child: %v", err)
	}
	if err := checkForeignKeys(flags(true, false, false), "gl.c", own, nil, false); err != nil {
		t.Fatalf("child with --discard-foreign-keys: %v", err)
	}
	if err := checkForeignKeys(flags(false, true, false), "gl.c", own, nil, false); err != nil {
		t.Fatalf("child with --skip-foreign-key-checks: %v", err)
	}
	if err := checkForeignKeys(flags(true, false, false), "gl.p", nil, refs, false); err == nil || !strings.Contains(err.Error(), "gl.p is referenced by foreign keys (gl.c.fk_c_p)") {
		t.Fatalf("parent with --discard-foreign-keys: %v", err)
	}
	if err := checkForeignKeys(flags(false, true, false), "gl.p", nil, refs, false); err != nil {
		t.Fatalf("parent with --skip-foreign-key-checks: %v", err)
	}
	// A cascading parent is still refused as a parent, whatever the loss flag says.
	if err := checkForeignKeys(flags(true, false, true), "gl.p", nil, refs, false); err == nil || !strings.Contains(err.Error(), "gl.p is referenced by foreign keys") {
		t.Fatalf("parent with --allow-cascading-foreign-keys-data-loss: %v", err)
	}
}

// TestCheckForeignKeysCascadingActions: every server-side referential action is
// refused under --discard-foreign-keys and --skip-foreign-key-checks, naming the key and the
// action; only --allow-cascading-foreign-keys-data-loss lets it through.
func TestCheckForeignKeysCascadingActions(t *testing.T) {
	for _, c := range []struct {
		fk   foreignKey
		want string // the key as named in the refusal; "" = no server-side action, accepted
	}{
		{foreignKey{"fk_a", "p", "RESTRICT", "CASCADE"}, "fk_a -> p ON DELETE CASCADE"},
		{foreignKey{"fk_b", "p", "CASCADE", "RESTRICT"}, "fk_b -> p ON UPDATE CASCADE"},
		{foreignKey{"fk_c", "p", "SET NULL", "SET NULL"}, "fk_c -> p ON DELETE SET NULL ON UPDATE SET NULL"},
		{foreignKey{"fk_d", "p", "NO ACTION", "SET DEFAULT"}, "fk_d -> p ON DELETE SET DEFAULT"},
		{foreignKey{"fk_e", "c", "RESTRICT", "cascade"}, "fk_e -> c ON DELETE CASCADE"}, // self-reference
		{foreignKey{"fk_f", "p", "NO ACTION", "RESTRICT"}, ""},
	} {
		t.Run(c.fk.Name, func(t *testing.T) {
			for _, skip := range []bool{false, true} {
				cfg := config.Config{}
				cfg.DiscardForeignKeys, cfg.SkipForeignKeyChecks = !skip, skip
				own := []foreignKey{{"fk_0", "q", "RESTRICT", "RESTRICT"}, c.fk}
				err := checkForeignKeys(cfg, "gl.c", own, nil, false)
				switch {
				case c.want == "" && err != nil:
					t.Errorf("%s refused: %v", c.fk.Name, err)
				case c.want != "" && (err == nil || !strings.Contains(err.Error(), "gl.c has foreign keys with actions the server runs inside InnoDB, outside the row binlog ("+c.want+")") ||
					!strings.Contains(err.Error(), "--allow-cascading-foreign-keys-data-loss") || strings.Contains(err.Error(), "\n")):
					t.Errorf("%s (skip %v): got %v, want the key %q and the flag on one line", c.fk.Name, skip, err, c.want)
				}
				// Where the server logs the actions (MySQL's SQL-layer foreign keys), the key is a
				// child-side key like any other: --discard-foreign-keys or --skip-foreign-key-checks.
				if err := checkForeignKeys(cfg, "gl.c", own, nil, true); err != nil {
					t.Errorf("%s, actions logged: %v", c.fk.Name, err)
				}
				if err := checkForeignKeys(config.Config{}, "gl.c", own, nil, true); err == nil || !strings.Contains(err.Error(), "--discard-foreign-keys") ||
					strings.Contains(err.Error(), "--allow-cascading-foreign-keys-data-loss") {
					t.Errorf("%s, actions logged, no flag: got %v, want the child-side refusal", c.fk.Name, err)
				}
				cfg.AllowCascadingForeignKeysDataLoss = true
				if err := checkForeignKeys(cfg, "gl.c", own, nil, false); err != nil {
					t.Errorf("%s with --allow-cascading-foreign-keys-data-loss: %v", c.fk.Name, err)
				}
			}
		})
	}
}

func TestSameLayout(t *testing.T) {
	a := &table.Table{Schema: "gl", Name: "t", Columns: []table.Column{{Name: "id", ColumnType: "int(11)"}, {Name: "v", ColumnType: "varchar(10)"}}}
	b := &table.Table{Schema: "gl", Name: "t", Columns: []table.Column{{Name: "id", ColumnType: "int(11)"}, {Name: "v", ColumnType: "varchar(20)"}}}
	if err := sameLayout(a, a, "r:1", "p:1"); err != nil {
		t.Fatal(err)
	}
	err := sameLayout(a, b, "r:1", "p:1")
	if err == nil || !strings.Contains(err.Error(), "gl.t has different columns on r:1 (id int(11), v varchar(10)) and on its primary p:1 (id int(11), v varchar(20))") {
		t.Fatalf("got %v", err)
	}
}

// TestSandboxPassesServerChecks reads the real settings of both sandbox servers through the same
// functions preparation uses: the sandbox is what a supported setup looks like.
func TestSandboxPassesServerChecks(t *testing.T) {
	for _, c := range []struct {
		name      string
		onReplica bool
		conn      func() dbconn.Config
	}{
		{"primary", false, testenv.PrimaryConfig},
		{"replica", true, testenv.ReplicaConfig},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := testenv.Open(t, c.conn(), "")
			ctx := context.Background()
			vars, err := dbconn.ReadVariables(ctx, db, binlogVariables...)
			if err != nil {
				t.Fatal(err)
			}
			if vars["binlog_format"] == "" || vars["log_bin"] == "" {
				t.Fatalf("%s: variables not read: %v", c.name, vars)
			}
			if err := checkBinlog(c.conn().Addr(), vars, c.onReplica, false); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			plugins, err := readPlugins(ctx, db)
			if err != nil || len(plugins) == 0 {
				t.Fatalf("%s: plugins %v (%v)", c.name, plugins, err)
			}
			if err := checkLockBypassingPlugins(c.conn().Addr(), plugins, false); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			flavor, err := dbconn.DetectFlavor(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := dbconn.ReadReplicaStatus(ctx, db, flavor, c.conn().Addr())
			if err != nil {
				t.Fatal(err)
			}
			if (rs != nil) != c.onReplica {
				t.Errorf("%s: replica status %+v", c.name, rs)
			}
			if rs != nil && (rs.SourcePort != testenv.PrimaryConfig().Port || rs.IORunning != "Yes" || rs.SQLRunning != "Yes") {
				t.Errorf("%s: replica status %+v", c.name, rs)
			}
		})
	}
}

func TestResolvePrimaryOnReplica(t *testing.T) {
	cfg := config.Config{}
	cfg.Conn = dbconn.Config{Host: "10.0.0.2", Port: 3307, User: "u"}
	cfg.MigrateOnReplica = true
	if _, _, err := resolvePrimary(cfg, nil); err == nil || !strings.Contains(err.Error(), "--migrate-on-replica needs --host to be a replica: 10.0.0.2:3307 does not replicate") {
		t.Fatalf("not a replica: got %v", err)
	}
	stopped := &dbconn.ReplicaStatus{SourceHost: "10.0.0.1", SourcePort: 3306, IORunning: "Yes", SQLRunning: "No"}
	if _, _, err := resolvePrimary(cfg, stopped); err == nil || !strings.Contains(err.Error(), "needs replication running on 10.0.0.2:3307 (IO thread: Yes, SQL thread: No)") {
		t.Fatalf("stopped replica: got %v", err)
	}
	running := &dbconn.ReplicaStatus{SourceHost: "10.0.0.1", SourcePort: 3306, IORunning: "Yes", SQLRunning: "Yes"}
	p, isReplica, err := resolvePrimary(cfg, running)
	if err != nil || isReplica || p.Addr() != "10.0.0.2:3307" || p.User != "u" {
		t.Fatalf("replica mode writes to the replica itself: got %+v %v %v", p, isReplica, err)
	}
}
