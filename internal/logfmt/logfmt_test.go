package logfmt

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                      "0s",
		1234567 * time.Nanosecond:              "1ms",
		120 * time.Millisecond:                 "120ms",
		6537491234 * time.Nanosecond:           "6.54s",
		42345 * time.Millisecond:               "42.3s",
		63*time.Minute + 3400*time.Millisecond: "1h3m3s",
		-1500 * time.Millisecond:               "-1.5s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%d) = %q, want %q", d, got, want)
		}
	}
}
