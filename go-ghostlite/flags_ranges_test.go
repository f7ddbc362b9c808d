package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/config"
)

// validatedByMigrator are the numeric flags whose range the migrator checks (Config validation).
var validatedByMigrator = []string{"chunk-size", "dml-batch-size", "copy-threads", "nice-ratio", "replica-server-id"}

// TestNumericFlagRanges: every numeric flag has a range, checked at parse time, before anything is
// created. --cut-over-lock-timeout-seconds=100000000000 used to fail after the whole copy and
// =18446744074 wrapped to 0.29 s. Generated over every numeric flag the command line has: the
// largest value in range is accepted, the next is refused in one line naming the flag and its range,
// and a duration flag refuses a value that would wrap around.
func TestNumericFlagRanges(t *testing.T) {
	ranged := map[string]flagRange{}
	for _, r := range flagRanges {
		ranged[r.name] = r
	}
	var cfg config.Config
	fs := newFlagSet(&cfg, &flagValues{})
	fs.VisitAll(func(f *pflag.Flag) {
		switch f.Value.Type() {
		case "int", "int64", "uint32", "float64":
		default:
			return
		}
		if slices.Contains(validatedByMigrator, f.Name) {
			return
		}
		t.Run(f.Name, func(t *testing.T) {
			if ranged[f.Name].aDay { // a duration with no narrower range than a day
				for _, v := range []string{"18446744074", "100000000000000", "-1"} {
					if _, err := parse(t, append(slices.Clone(required), "--"+f.Name+"="+v)...); err == nil || !strings.Contains(err.Error(), "must be from 0 to") {
						t.Errorf("--%s=%s: %v, want a refusal naming the range", f.Name, v, err)
					}
				}
				return
			}
			r, ok := ranged[f.Name]
			if !ok {
				t.Fatalf("--%s has no range (flagRanges)", f.Name)
			}
			if _, err := parse(t, append(slices.Clone(required), "--"+f.Name+"="+fmtNum(r.max))...); err != nil && strings.Contains(err.Error(), "must be from") {
				t.Errorf("--%s=%s (its maximum) refused: %v", f.Name, fmtNum(r.max), err)
			}
			for _, v := range []string{fmtNum(r.max + 1), "100000000000", "18446744074"} {
				want := fmt.Sprintf("--%s must be from %s to %s (got ", f.Name, fmtNum(r.min), fmtNum(r.max))
				_, err := parse(t, append(slices.Clone(required), "--"+f.Name+"="+v)...)
				if err == nil || (!strings.Contains(err.Error(), want) && !strings.Contains(err.Error(), "out of range")) || strings.Contains(err.Error(), "\n") {
					t.Errorf("--%s=%s: %v, want one line saying %q", f.Name, v, err, want)
				}
			}
		})
	})
}
