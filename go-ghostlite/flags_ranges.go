package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// Every numeric flag has a range: the values the server accepts where the number becomes a
// session setting (the cut-over's lock_wait_timeout and wait_timeout are derived from
// --cut-over-lock-timeout-seconds: 9 times it plus 2 seconds must stay far below their maximum
// of a year), and values a duration holds without wrapping around (a number of seconds times 10^9
// overflows int64 nanoseconds past 292 years: 18446744074 seconds used to become 0.29 s). They
// are checked right after parsing, before anything is created; a value out of range is refused in
// one line naming the flag and its range. Flags whose range the migrator checks (chunk-size,
// dml-batch-size, copy-threads, nice-ratio) are not repeated here.

type flagRange struct {
	name     string
	min, max float64
	// minChecked: the flag's own check refuses a value below min, with its own message.
	minChecked bool
}

var flagRanges = []flagRange{
	{"port", 1, 65535, false},
	{"heartbeat-interval-millis", 1, 3_600_000, true},
	{"default-retries", 1, 10_000, false},
	{"cut-over-lock-timeout-seconds", 1, 3600, false},
	{"exponential-backoff-max-interval", 1, 86_400, true},
	{"checkpoint-seconds", 10, 86_400, true},
	{"checkpoint-interval-millis", 0, 86_400_000, false},
	{"binlogsyncer-max-reconnect-attempts", 0, 1_000_000, false},
	{"serve-tcp-port", 0, 65535, false},
	{"hooks-status-interval", 1, 86_400, true},
	{"runtime-metrics-interval", 0, 86_400, false},
	{"mysql-timeout", 0, 3600, false},
}

// checkRanges refuses the first numeric flag of fs whose value is out of its range.
func checkRanges(fs *pflag.FlagSet) error {
	for _, r := range flagRanges {
		f := fs.Lookup(r.name)
		if f == nil {
			continue
		}
		v, err := strconv.ParseFloat(f.Value.String(), 64)
		if err != nil {
			return fmt.Errorf("--%s: %q is not a number", r.name, f.Value.String())
		}
		if (v < r.min && !r.minChecked) || v > r.max {
			return fmt.Errorf("--%s must be from %s to %s (got %s)", r.name, fmtNum(r.min), fmtNum(r.max), f.Value.String())
		}
	}
	return nil
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// maxFlagDuration bounds every duration given as a number of a unit (durationFlag): a day.
const maxFlagDuration = 24 * time.Hour
