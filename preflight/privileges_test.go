package preflight

import (
	"testing"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
)

func TestMissingPrivileges(t *testing.T) {
	need := []privilege{{[]string{"BINLOG MONITOR", "SUPER"}, "status"}, {[]string{"LOCK TABLES"}, "cut-over"}, {[]string{"DROP"}, "renames"}}
	names, grant := missingPrivileges(need, map[string]bool{"SUPER": true}, map[string]bool{"DROP": true}, "`d`.*", "'u'@'%'")
	if len(names) != 1 || names[0] != "LOCK TABLES (cut-over)" || grant != "GRANT LOCK TABLES ON `d`.* TO 'u'@'%'" {
		t.Errorf("got %q, %q", names, grant)
	}
	if names, grant := missingPrivileges(need, map[string]bool{"SUPER": true, "LOCK TABLES": true, "DROP": true}, nil, "*.*", "u"); names != nil || grant != "" {
		t.Errorf("all held: %q %q", names, grant)
	}
}

// --master-user and --master-password log in to the --assume-master-host primary; --host keeps
// its own account.
func TestMasterCredentials(t *testing.T) {
	var cfg config.Config
	cfg.Conn = dbconn.Config{Host: "127.0.0.1", Port: 3306}
	cfg.Conn.Host, cfg.Conn.User, cfg.Conn.Password = "replica1", "ro", "ropw"
	cfg.Database, cfg.Table, cfg.Alter = "d", "t", "ADD COLUMN c INT"
	cfg.AssumeMasterHost, cfg.MasterUser, cfg.MasterPassword = "primary1:3307", "rw", "rwpw"
	primary, isReplica, err := resolvePrimary(cfg, nil)
	if err != nil || !isReplica || primary.Addr() != "primary1:3307" || primary.User != "rw" || primary.Password != "rwpw" {
		t.Fatalf("primary %+v, replica %v, err %v", primary, isReplica, err)
	}
	if cfg.Conn.User != "ro" || cfg.Conn.Password != "ropw" {
		t.Fatalf("--host's account changed: %+v", cfg.Conn)
	}
}
