package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-ghostlite/go-ghostlite/control"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// The interactive commands' flags reach the server's configuration; the socket defaults to
// gh-ost's path for the table (in the temporary folder: /tmp unless TMPDIR says otherwise).
func TestControlFlags(t *testing.T) {
	inv, err := parse(t, required...)
	if err != nil {
		t.Fatal(err)
	}
	want := control.Config{SocketFile: filepath.Join(os.TempDir(), "gh-ost.db.tbl.sock"), Database: "db", Table: "tbl", Version: version}
	got := inv.Control
	got.Logger = want.Logger
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", got, want)
	}
	if !inv.Config.ConcurrentRowcount {
		t.Error("--concurrent-rowcount is off by default; gh-ost's default is on")
	}

	inv, err = parse(t, append(slices.Clone(required), "--serve-socket-file=/run/x.sock", "--serve-tcp-port=4321",
		"--force-named-cut-over", "--force-named-panic", "--initially-drop-socket-file",
		"--postpone-cut-over-flag-file=/tmp/pp", "--panic-flag-file=/tmp/pn")...)
	if err != nil {
		t.Fatal(err)
	}
	want = control.Config{SocketFile: "/run/x.sock", InitiallyDropSocketFile: true, TCPPort: 4321, Database: "db", Table: "tbl",
		ForceNamedCutOver: true, ForceNamedPanic: true, PostponeFlagFile: "/tmp/pp", PanicFlagFile: "/tmp/pn", Version: version}
	got = inv.Control
	got.Logger = want.Logger
	if !reflect.DeepEqual(got, want) {
		t.Errorf("set:\n got %+v\nwant %+v", got, want)
	}
}

// The status's named fields are for JSON: the console shows the status line alone.
func TestStatusFieldsOnlyInJSON(t *testing.T) {
	st := status.Status{Phase: status.PhaseCopy, RowsCopied: 50, RowsEstimate: 100, Elapsed: 3 * time.Second}
	for _, format := range []string{"console", "json"} {
		var out bytes.Buffer
		log, err := newLogger(&out, format, 0)
		if err != nil {
			t.Fatal(err)
		}
		log.Info().Dict(status.LogField, st.Fields()).Msg(st.Line())
		hasFields := strings.Contains(out.String(), `"rows_copied":50`)
		if hasFields != (format == "json") || !strings.Contains(out.String(), "Copy: 50/100 50.0%") {
			t.Errorf("%s: %s", format, out.String())
		}
	}
}

// On a terminal the live view stays at the bottom: a log line erases the block (up over its rows),
// is written, and the block is drawn again; a block drawn for a wider terminal is erased by the
// rows it wraps onto once the terminal narrowed, and drawn cut to the new width.
func TestLiveView(t *testing.T) {
	var out bytes.Buffer
	width := 20
	v := &liveView{out: &out, width: func() int { return width }}
	if _, err := v.Write([]byte("first log line\n")); err != nil {
		t.Fatal(err)
	}
	block := func(int) []string { return []string{"copy [###] 15%", "applier 3 events"} }
	v.set(block)
	if _, err := v.Write([]byte("second log line\n")); err != nil {
		t.Fatal(err)
	}
	width = 10 // each line now wraps onto two rows
	v.set(func(int) []string { return []string{"copy [####] 20%", "applier 4 events"} })
	v.set(func(int) []string { return nil })
	erase2 := clearLine + rowUp + clearLine
	erase4 := clearLine + strings.Repeat(rowUp+clearLine, 3)
	want := "first log line\n" + "copy [###] 15%\napplier 3 events" + erase2 + "second log line\ncopy [###] 15%\napplier 3 events" +
		erase4 + "copy [###\napplier 4" + clearLine + rowUp + clearLine
	if out.String() != want {
		t.Errorf("terminal got %q\nwant %q", out.String(), want)
	}
	if newLiveView(&out, "console", true) != nil {
		t.Error("a live view on a buffer (not a terminal)")
	}

	st := status.Status{Phase: status.PhaseCopy, RowsCopied: 9040, RowsEstimate: 20000, CopyRate: 1000,
		EventsApplied: 34, CopyElapsed: 9 * time.Second, BacklogLimit: 200, Lag: -1, HeartbeatLag: 20 * time.Millisecond}
	got := liveBlock(st, 101)
	want2 := []string{
		"copy      [#############.................]  45.2%  9040/20000 rows  1000 rows/s  ETA 11s  (0s)",
		"applier   34 events applied, backlog 0/200, lag n/a, heartbeat 0.02s",
		"throttle  none",
		"cut-over  after the copy",
	}
	if !slices.Equal(got, want2) {
		t.Errorf("live block:\n got %q\nwant %q", got, want2)
	}
	for _, l := range liveBlock(st, 30) {
		if utf8.RuneCountInString(l) > 29 {
			t.Errorf("a line longer than a 30-column terminal leaves: %q", l)
		}
	}
	if got := liveBlock(status.Status{Phase: status.PhaseNone}, 80); got != nil {
		t.Errorf("live block before the run: %q", got)
	}
}
