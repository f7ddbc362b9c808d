package copier

import (
	"strings"
	"testing"
)

// --copy-threads=0 takes half the cores @@thread_pool_size counts, from 1 to 8, and 1 without it.
func TestAutoThreads(t *testing.T) {
	for _, c := range []struct {
		vars map[string]string
		want int
	}{
		{map[string]string{}, 1}, // MySQL
		{map[string]string{"thread_pool_size": "1"}, 1},
		{map[string]string{"thread_pool_size": "2"}, 1},
		{map[string]string{"thread_pool_size": "5"}, 2},
		{map[string]string{"thread_pool_size": "16"}, 8},
		{map[string]string{"thread_pool_size": "64"}, 8},
		{map[string]string{"thread_pool_size": "x"}, 1},
	} {
		if n, why := autoThreads(c.vars); n != c.want || !strings.HasPrefix(why, "auto: ") {
			t.Errorf("%v: %d (%s), want %d", c.vars, n, why, c.want)
		}
	}
}
