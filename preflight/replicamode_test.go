package preflight

import (
	"strings"
	"testing"
)

// TestCheckGTIDDomain: a MariaDB replica in gtid_strict_mode is refused only when its own
// gtid_domain_id is one it replicates (the migration's writes would take GTIDs there).
func TestCheckGTIDDomain(t *testing.T) {
	vars := func(strict, domain, slavePos string) map[string]string {
		return map[string]string{"gtid_strict_mode": strict, "gtid_domain_id": domain, "gtid_slave_pos": slavePos,
			"gtid_binlog_state": "0-1-592,0-2-17,1-2-4,9-2-40"}
	}
	cases := []struct {
		name   string
		vars   map[string]string
		ioPos  string
		refuse string // "" means accepted
		warn   bool
	}{
		{"strict, own domain", vars("ON", "9", "0-1-592"), "0-1-600", "", false},
		{"strict, own domain, several replicated", vars("1", "9", "0-1-592,3-5-10"), "", "", false},
		{"strict, replicated domain", vars("ON", "0", "0-1-592"), "0-1-592",
			"gtid_strict_mode is ON on replica r:1 and its gtid_domain_id 0 is a domain it replicates from its primary (gtid_slave_pos 0-1-592)", false},
		{"strict, domain only received so far", vars("ON", "3", "0-1-592"), "0-1-600,\n3-7-1",
			"its gtid_domain_id 3 is a domain it replicates", false},
		{"strict, nothing replicated yet", vars("ON", "0", ""), "", "", false},
		{"not strict, replicated domain", vars("OFF", "0", "0-1-592"), "", "", true},
		{"not strict, own domain", vars("OFF", "9", "0-1-592"), "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			warning, err := checkGTIDDomain("r:1", c.vars, c.ioPos)
			switch {
			case c.refuse == "" && err != nil:
				t.Errorf("%s: refused: %v", c.name, err)
			case c.refuse != "" && (err == nil || !strings.Contains(err.Error(), c.refuse)):
				t.Errorf("%s: got %v, want %q", c.name, err, c.refuse)
			case (warning != "") != c.warn:
				t.Errorf("%s: warning %q, want one: %v", c.name, warning, c.warn)
			}
		})
	}
	// The suggested domain is free: not replicated, not in the binlog (0, 1 and 9 are used).
	_, err := checkGTIDDomain("r:1", vars("ON", "0", "0-1-592"), "")
	if err == nil || !strings.Contains(err.Error(), "SET GLOBAL gtid_domain_id=2)") {
		t.Errorf("suggested domain: %v", err)
	}
	if _, err := checkGTIDDomain("r:1", vars("ON", "0", "garbage"), ""); err == nil {
		t.Error("an unreadable gtid_slave_pos was accepted")
	}
}
