package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/go-ghostlite/go-ghostlite/status"
)

// progressLine keeps one line at the bottom of a terminal that shows the migration's progress at
// a glance; log lines are written above it (it is the console log's writer). Safe for concurrent
// use.
type progressLine struct {
	out io.Writer

	mu   sync.Mutex
	line string // what is drawn now ("" for nothing)
}

// clearLine moves to the start of the line and erases it.
const clearLine = "\r\x1b[K"

// newProgressLine returns a progress line on stderr when it is a terminal and the log is for
// people (console), nil otherwise.
func newProgressLine(stderr io.Writer, logFormat string) *progressLine {
	if logFormat != "console" || !isTerminal(stderr) {
		return nil
	}
	return &progressLine{out: stderr}
}

// Write writes a log line above the progress line. A failed write is returned as is.
func (p *progressLine) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.line == "" {
		return p.out.Write(b)
	}
	if _, err := io.WriteString(p.out, clearLine); err != nil {
		return 0, err
	}
	n, err := p.out.Write(b)
	if err == nil {
		_, err = io.WriteString(p.out, p.line)
	}
	return n, err
}

// set draws line in place of the current one ("" erases it). The terminal is the only place
// it goes: a failed write has nowhere to be reported.
func (p *progressLine) set(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if line == p.line {
		return
	}
	p.line = line
	_, _ = io.WriteString(p.out, clearLine+line)
}

// follow redraws the line from status every interval until stop is closed, then erases it.
func (p *progressLine) follow(status func() status.Status, interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			p.set("")
			return
		case <-t.C:
			p.set(progressText(status()))
		}
	}
}

// progressText is the line for st, e.g.
// "copy [#########...........] 45.2% 9040/20000 rows; ETA 12s; migrating; applied 34, backlog 0",
// or "" before the copy starts.
func progressText(st status.Status) string {
	switch st.Phase {
	case status.PhaseCopy, status.PhasePostponed, status.PhaseChecksum, status.PhaseCutOver:
	default:
		return ""
	}
	const width = 20
	filled := int(st.Progress() * width / 100)
	bar := strings.Repeat("#", filled) + strings.Repeat(".", width-filled)
	return fmt.Sprintf("%s [%s] %.1f%% %d/%d rows; ETA %s; %s; applied %d, backlog %d",
		st.Phase, bar, st.Progress(), st.RowsCopied, st.RowsEstimate, st.ETAText(), st.State(), st.EventsApplied, st.Backlog)
}
