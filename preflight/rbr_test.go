package preflight

import "testing"

// log_slave_updates is not needed when the server is not a replica, or with --tungsten (the
// --switch-to-rbr case itself runs in migrator's TestSwitchToRBR).
func TestCheckBinlogWaivesLogSlaveUpdates(t *testing.T) {
	if err := checkBinlog("r:1", map[string]string{"log_bin": "ON", "binlog_format": "ROW", "binlog_row_image": "FULL", "log_slave_updates": "OFF"}, false, false); err != nil {
		t.Errorf("log_slave_updates waived (--tungsten, or not a replica): %v", err)
	}
}
