package dbconn

import (
	"testing"
	"time"
)

func TestCeilSeconds(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{{0, 1}, {-time.Second, 1}, {time.Millisecond, 1}, {time.Second, 1}, {1500 * time.Millisecond, 2}, {3 * time.Second, 3}} {
		if got := CeilSeconds(c.d); got != c.want {
			t.Errorf("CeilSeconds(%s) = %d, want %d", c.d, got, c.want)
		}
	}
}
