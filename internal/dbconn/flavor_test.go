package dbconn

import "testing"

func TestFlavorStatements(t *testing.T) {
	cases := []struct {
		version, comment      string
		mariadb               bool
		binlogStatus, replica string
		supported             bool
	}{
		{"10.11.19-MariaDB-0+deb12u1-log", "Debian 12", true, "SHOW MASTER STATUS", "SHOW SLAVE STATUS", true},
		{"10.5.1-MariaDB", "", true, "SHOW MASTER STATUS", "SHOW SLAVE STATUS", false},
		{"11.4.2-MariaDB", "", true, "SHOW MASTER STATUS", "SHOW SLAVE STATUS", true},
		{"8.0.21", "MySQL Community Server - GPL", false, "SHOW MASTER STATUS", "SHOW SLAVE STATUS", true},
		{"8.0.36", "MySQL Community Server - GPL", false, "SHOW MASTER STATUS", "SHOW REPLICA STATUS", true},
		{"8.4.3", "MySQL Community Server - GPL", false, "SHOW BINARY LOG STATUS", "SHOW REPLICA STATUS", true},
		{"5.7.44-log", "MySQL Community Server (GPL)", false, "SHOW MASTER STATUS", "SHOW SLAVE STATUS", false},
	}
	for _, c := range cases {
		f, err := ParseFlavor(c.version, c.comment)
		if err != nil {
			t.Fatalf("%s: %v", c.version, err)
		}
		if f.MariaDB != c.mariadb {
			t.Errorf("%s: MariaDB=%v", c.version, f.MariaDB)
		}
		if got := f.BinlogStatusSQL(); got != c.binlogStatus {
			t.Errorf("%s: BinlogStatusSQL=%q want %q", c.version, got, c.binlogStatus)
		}
		if got := f.ReplicaStatusSQL(); got != c.replica {
			t.Errorf("%s: ReplicaStatusSQL=%q want %q", c.version, got, c.replica)
		}
		if got, want := f.ReplicasSQL(), map[bool]string{true: "SHOW REPLICAS", false: "SHOW SLAVE HOSTS"}[c.replica == "SHOW REPLICA STATUS"]; got != want {
			t.Errorf("%s: ReplicasSQL=%q want %q", c.version, got, want)
		}
		if (f.Supported() == nil) != c.supported {
			t.Errorf("%s: Supported()=%v", c.version, f.Supported())
		}
	}
	if _, err := ParseFlavor("garbage", ""); err == nil {
		t.Fatal("garbage version accepted")
	}
}

func TestSessionSettingsSQL(t *testing.T) {
	for _, c := range []struct{ version, want string }{
		{"10.11.19-MariaDB-0+deb12u1", "SET SESSION tx_isolation = 'REPEATABLE-READ', SESSION max_statement_time = 0"},
		{"11.8.9-MariaDB-0+deb13u1", "SET SESSION transaction_isolation = 'REPEATABLE-READ', SESSION max_statement_time = 0"},
		{"9.7.4", "SET SESSION transaction_isolation = 'REPEATABLE-READ', SESSION max_execution_time = 0"},
	} {
		f, err := ParseFlavor(c.version, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := f.SessionSettingsSQL(); got != c.want {
			t.Errorf("%s: %s, want %s", c.version, got, c.want)
		}
	}
}
