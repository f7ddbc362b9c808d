package status

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// View is the live progress view of s: the block a terminal shows below the log while a
// migration runs (and go-ghostlite --attach shows from another terminal), each line at most width
// characters (cut, never wrapped: the block is redrawn in place by counting its lines):
//
//	copy      [##########..........]  45.2%  9040/20000 rows  1234 rows/s  ETA 12s  (2m3s)
//	applier   34 events applied, backlog 0/200, lag 0.00s, heartbeat 0.01s
//	throttle  none
//	cut-over  after the copy (three more phases: postponed, checksum, cut-over)
func (s Status) View(width int) []string {
	bar := max(10, min(40, width-70))
	filled := int(s.Progress() * float64(bar) / 100)
	rate := ""
	if s.CopyRate > 0 {
		rate = fmt.Sprintf("  %.0f rows/s", s.CopyRate)
	}
	lines := []string{
		fmt.Sprintf("%-9s [%s%s] %5.1f%%  %d/%d rows%s  ETA %s  (%s)", s.Phase, strings.Repeat("#", filled), strings.Repeat(".", bar-filled),
			s.Progress(), s.RowsCopied, s.RowsEstimate, rate, s.ETAText(), s.Elapsed.Round(time.Second)),
		fmt.Sprintf("%-9s %d events applied, backlog %d/%d%s, lag %s, heartbeat %s", "applier", s.EventsApplied, s.Backlog, s.BacklogLimit,
			displacedText(s.Displaced), secondsText(s.Lag), secondsText(s.HeartbeatLag)),
		fmt.Sprintf("%-9s %s", "throttle", s.throttleText()),
		fmt.Sprintf("%-9s %s", "cut-over", s.cutOverText()),
	}
	for i, l := range lines {
		lines[i] = cut(l, width)
	}
	return lines
}

func (s Status) throttleText() string {
	if !s.Throttled {
		return "none"
	}
	return "throttled: " + s.ThrottleReason
}

// cutOverText is where the cut-over stands.
func (s Status) cutOverText() string {
	switch {
	case s.Instant:
		return "none needed: the ALTER was done instantly"
	case s.Phase == PhasePostponed || s.Postponed && s.Phase == PhaseCopy:
		return "postponed: remove the flag file or send unpostpone to cut over"
	case s.Phase == PhaseCutOver:
		return "in progress: the original is locked for a moment"
	case s.Phase == PhaseDone:
		return "done: the migrated table is in place"
	case s.Phase == PhaseFailed:
		return "not done: the run failed"
	case s.Phase == PhaseChecksum:
		return "after the checksum"
	}
	return "after the copy"
}

func displacedText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d displaced", n)
}

func secondsText(d time.Duration) string {
	if d < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// cut is s cut to at most width characters (runes); width < 1 leaves it whole.
func cut(s string, width int) string {
	if width < 1 || utf8.RuneCountInString(s) <= width {
		return s
	}
	return string([]rune(s)[:width])
}
