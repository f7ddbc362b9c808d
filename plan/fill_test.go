package plan

import "testing"

func TestRefusesZeroDate(t *testing.T) {
	for mode, want := range map[string]bool{
		"STRICT_TRANS_TABLES,NO_ZERO_DATE": true, "STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE": true, "TRADITIONAL": false,
		"NO_ZERO_DATE": false, "STRICT_TRANS_TABLES": false, "": false,
	} {
		if got := refusesZeroDate(mode); got != want {
			t.Errorf("refusesZeroDate(%q) = %v, want %v", mode, got, want)
		}
	}
}
