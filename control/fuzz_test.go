package control

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/config"
	"github.com/go-ghostlite/go-ghostlite/migrator"
)

// maxReply bounds a reply: the status block and help are the longest; an echo of the client's
// input is clipped.
const maxReply = 8 << 10

// FuzzCommand feeds arbitrary bytes to the command path a connection takes (readLine, then
// Command) on a real, unstarted migration: every setting's parser is the migrator's own. No input
// may panic, hang, or go unanswered; a reply is text ending in a newline and bounded in size.
// Run: go test -run XXX -fuzz FuzzCommand -fuzztime 60s ./control/
func FuzzCommand(f *testing.F) {
	for _, seed := range []string{"help", "status", "sup", "coordinates", "applier", "inspector", "version",
		"chunk-size=500", "chunk-size=?", "chunk-size?", "dml-batch-size=7", "nice-ratio=0.5", "max-lag-millis=2000",
		"max-load=Threads_running=30", "critical-load=Threads_running=1000", "throttle-query=select 1",
		"throttle-http=http://127.0.0.1:1/", "throttle-control-replicas=r1:3306,r2", "throttle", "no-throttle",
		"postpone", "unpostpone=t", "cut-over", "panic=other", "chunk-size=\"100\"", "", "\n", "=", "==?",
		"\x00", "chunk-size=" + strings.Repeat("9", 40), "status\r\nsup\n"} {
		f.Add([]byte(seed + "\n"))
	}
	cfg := config.Default()
	cfg.Database, cfg.Table, cfg.Alter = "db", "t", "ADD COLUMN c INT NULL"
	cfg.Logger = zerolog.Nop()
	m, err := migrator.New(cfg)
	if err != nil {
		f.Fatal(err)
	}
	s := New(Config{Database: "db", Table: "t", Version: "test", Logger: zerolog.Nop()}, m)
	f.Fuzz(func(t *testing.T, input []byte) {
		done := make(chan string, 1)
		go func() {
			line, err := readLine(bytes.NewReader(input))
			switch {
			case err == errLineTooLong:
				done <- "too long\n"
			case err != nil && line == "":
				done <- "closed\n"
			default:
				done <- s.Command(line)
			}
		}()
		select {
		case reply := <-done:
			if reply == "" || !strings.HasSuffix(reply, "\n") || len(reply) > maxReply {
				t.Fatalf("input %q: reply of %d bytes %q", clip(string(input)), len(reply), clip(reply))
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("input %q: no reply within 5s", clip(string(input)))
		}
	})
}
