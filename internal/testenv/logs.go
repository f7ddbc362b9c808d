package testenv

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
)

// LogBuffer collects log output written from any goroutine, so a test can assert on what was
// logged. It is the sink of a zerolog.Logger (see Logger).
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p; it is safe for concurrent use.
func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Contains reports whether sub was logged.
func (l *LogBuffer) Contains(sub string) bool { return strings.Contains(l.String(), sub) }

// Logger is a logger writing to the test's log and, when logs is not nil, to logs as well. It
// has no level of its own: the caller sets one when the test's log would be too long.
func Logger(t testing.TB, logs *LogBuffer) zerolog.Logger {
	w := zerolog.NewTestWriter(t)
	if logs == nil {
		return zerolog.New(w)
	}
	return zerolog.New(zerolog.MultiLevelWriter(w, logs))
}

// InOrder returns the first of subs that the log lacks after the previous one was found ("" when
// each appears, in the order given).
func (l *LogBuffer) InOrder(subs ...string) string {
	s := l.String()
	for _, sub := range subs {
		i := strings.Index(s, sub)
		if i < 0 {
			return sub
		}
		s = s[i+len(sub):]
	}
	return ""
}
