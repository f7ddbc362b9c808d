package main

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/control"
	"github.com/go-ghostlite/go-ghostlite/status"
)

// The interactive commands' flags reach the server's configuration; the socket defaults to
// gh-ost's path for the table.
func TestControlFlags(t *testing.T) {
	inv, err := parse(t, required...)
	if err != nil {
		t.Fatal(err)
	}
	want := control.Config{SocketFile: "/tmp/gh-ost.db.tbl.sock", Database: "db", Table: "tbl", Version: version}
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

// On a terminal the progress line stays at the bottom: a log line clears it, is written, and the
// line is drawn again.
func TestProgressLine(t *testing.T) {
	var out bytes.Buffer
	p := &progressLine{out: &out}
	if _, err := p.Write([]byte("first log line\n")); err != nil {
		t.Fatal(err)
	}
	p.set("copy [###] 15%")
	if _, err := p.Write([]byte("second log line\n")); err != nil {
		t.Fatal(err)
	}
	p.set("")
	want := "first log line\n" + clearLine + "copy [###] 15%" + clearLine + "second log line\ncopy [###] 15%" + clearLine
	if out.String() != want {
		t.Errorf("terminal got %q\nwant %q", out.String(), want)
	}
	if newProgressLine(&out, "console") != nil {
		t.Error("a progress line on a buffer (not a terminal)")
	}

	st := status.Status{Phase: status.PhaseCopy, RowsCopied: 9040, RowsEstimate: 20000, CopyRate: 1000,
		EventsApplied: 34, CopyElapsed: 9 * time.Second}
	if got, want := progressText(st), "copy [#########...........] 45.2% 9040/20000 rows; ETA 11s; migrating; applied 34, backlog 0"; got != want {
		t.Errorf("progressText:\n got %q\nwant %q", got, want)
	}
	if got := progressText(status.Status{Phase: status.PhasePrepare}); got != "" {
		t.Errorf("progressText in preparation: %q", got)
	}
}
