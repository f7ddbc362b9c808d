package dbconn

import "testing"

func TestParseHostPort(t *testing.T) {
	cases := []struct {
		in   string
		host string
		port int
		bad  bool
	}{
		{"db1", "db1", 3306, false},
		{"db1:3310", "db1", 3310, false},
		{"[::1]:3310", "::1", 3310, false},
		{"::1", "::1", 3306, false},
		{"db1:x", "", 0, true},
		{"db1:0", "", 0, true},
		{"", "", 0, true},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			h, p, err := ParseHostPort(c.in, 3306)
			if (err != nil) != c.bad || h != c.host || p != c.port {
				t.Errorf("ParseHostPort(%q) = %q %d %v", c.in, h, p, err)
			}
		})
	}
}
