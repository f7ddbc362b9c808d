package main

import (
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/go-ghostlite/go-ghostlite/status"
)

// liveView keeps a block of lines at the bottom of a terminal that shows the migration's progress
// (status.Status.View); log lines scroll above it (it is the console log's writer). The block is
// redrawn in place: erased by moving the cursor up over the rows it took, then written again,
// each line cut to the terminal's width so that it never wraps. Safe for concurrent use.
type liveView struct {
	out   io.Writer
	width func() int // the terminal's columns now

	mu    sync.Mutex
	block []string // what is drawn now (nil for nothing)
}

// Terminal escapes: to the start of the line and erase it; one row up.
const (
	clearLine = "\r\x1b[K"
	rowUp     = "\x1b[1A"
)

// newLiveView returns the live view on stderr when it is a terminal, the log is for people
// (console) and --progress is on; nil otherwise.
func newLiveView(stderr io.Writer, logFormat string, on bool) *liveView {
	if !on || logFormat != "console" || !isTerminal(stderr) {
		return nil
	}
	f, _ := stderr.(*os.File)
	return &liveView{out: stderr, width: func() int { return terminalWidth(f) }}
}

// terminalWidth is f's columns (80 when it cannot be read).
func terminalWidth(f *os.File) int {
	if f != nil {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	return 80
}

// Write writes a log line above the block. A failed write is returned as is.
func (v *liveView) Write(b []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.block == nil {
		return v.out.Write(b)
	}
	width := v.width()
	if _, err := io.WriteString(v.out, erase(v.block, width)); err != nil {
		return 0, err
	}
	n, err := v.out.Write(b)
	if err == nil {
		v.block = fit(v.block, width)
		_, err = io.WriteString(v.out, strings.Join(v.block, "\n"))
	}
	return n, err
}

// set draws block in place of the current one (nil erases it). The terminal is the only place it
// goes: a failed write has nowhere to be reported.
func (v *liveView) set(block func(width int) []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	width := v.width()
	next := fit(block(width), width)
	if slices.Equal(next, v.block) && (next == nil) == (v.block == nil) {
		return
	}
	text := ""
	if v.block != nil {
		text = erase(v.block, width)
	}
	v.block = next
	_, _ = io.WriteString(v.out, text+strings.Join(next, "\n"))
}

// follow redraws the block from status every interval until stop is closed, then erases it.
func (v *liveView) follow(status func() status.Status, interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			v.set(func(int) []string { return nil })
			return
		case <-t.C:
			st := status()
			v.set(func(width int) []string { return liveBlock(st, width) })
		}
	}
}

// liveBlock is the view of st, nil before the run has begun. It leaves the last column free: a
// line that fills the terminal's width would wrap the cursor on some terminals.
func liveBlock(st status.Status, width int) []string {
	if st.Phase == status.PhaseNone {
		return nil
	}
	return st.View(width - 1)
}

// fit is block with each line cut to width-1 characters: a line drawn for a wider terminal (the
// view asked for before a resize) must not wrap on this one.
func fit(block []string, width int) []string {
	if block == nil {
		return nil
	}
	lines := make([]string, len(block))
	for i, l := range block {
		lines[i] = l
		if utf8.RuneCountInString(l) >= width {
			lines[i] = string([]rune(l)[:max(0, width-1)])
		}
	}
	return lines
}

// erase is the text that erases block as the terminal shows it at width (a line drawn for a wider
// terminal may wrap onto more rows once it narrowed), leaving the cursor at its first row.
func erase(block []string, width int) string {
	rows := 0
	for _, l := range block {
		rows += max(1, (utf8.RuneCountInString(l)+width-1)/max(1, width))
	}
	return clearLine + strings.Repeat(rowUp+clearLine, max(0, rows-1))
}
