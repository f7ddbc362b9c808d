package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/go-ghostlite/go-ghostlite/internal/dbconn"
	"github.com/rs/zerolog"
)

// logFormatOf is the --log-format the command line asks for ("console" unless it says "json"),
// read without parsing it: an error in the command line itself is printed in that format too.
func logFormatOf(args []string) string {
	format := "console"
	for i, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "log-format" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		format = value
	}
	if format != "json" {
		return "console"
	}
	return format
}

// fatalReporter returns the function that prints the error ending the run on w, as one line in
// format, and returns the exit code it is given. Console: "FATAL <message>" (gh-ost's level word,
// which wrappers grep for). JSON: {"level":"fatal","time":...,"message":"<message>"}. With stack,
// every error wrapped in it follows (console: one per line, indented; JSON: the "chain" field).
// w is stderr: a failed write has nowhere to be reported, the exit code still tells.
func fatalReporter(w io.Writer, format string) func(err error, stack bool, code int) int {
	return func(err error, stack bool, code int) int {
		msg := fatalText(err)
		var chain []string
		if stack {
			chain = errorChain(err, "")
		}
		if format == "json" {
			l := zerolog.New(w)
			ev := l.WithLevel(zerolog.FatalLevel).Timestamp()
			if stack {
				ev = ev.Strs("chain", chain)
			}
			ev.Msg(msg)
			return code
		}
		_, _ = fmt.Fprintf(w, "FATAL %s\n", msg)
		for _, l := range chain {
			_, _ = fmt.Fprintf(w, "  %s\n", l)
		}
		return code
	}
}

// fatalText is the FATAL line's message: err's text on one line, and when a server error caused
// it, the server's own text first, as gh-ost prints it ("Error 1067 (42000): Invalid default value
// for 'dt'"), so that a wrapper's grep "FATAL Error 1067" matches; the tool's context follows in
// parentheses.
func fatalText(err error) string {
	msg := dbconn.OneLine(err).Error()
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return msg
	}
	server := dbconn.OneLine(me).Error()
	switch {
	case msg == server:
		return msg
	case strings.HasSuffix(msg, ": "+server):
		return server + " (" + strings.TrimSuffix(msg, ": "+server) + ")"
	default:
		return server + " (" + msg + ")"
	}
}

// warnLine prints a warning found before the logger exists, in format.
func warnLine(w io.Writer, format, msg string) {
	if format == "json" {
		l := zerolog.New(w)
		l.Warn().Timestamp().Msg(msg)
		return
	}
	_, _ = fmt.Fprintf(w, "WARNING %s\n", msg)
}

// errorChain is every error wrapped in err, one per entry, indented by its depth.
func errorChain(err error, indent string) []string {
	out := []string{fmt.Sprintf("%s%T: %+v", indent, err, err)}
	switch e := err.(type) {
	case interface{ Unwrap() error }:
		if inner := e.Unwrap(); inner != nil {
			out = append(out, errorChain(inner, indent+"  ")...)
		}
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			out = append(out, errorChain(inner, indent+"  ")...)
		}
	}
	return out
}

// driverLog takes the MySQL driver's own log lines ("[mysql] packets.go:58 unexpected EOF"): the
// error they tell of reaches the tool as an error anyway, so they are debug lines of the tool's
// log, in its format, instead of text of their own on stderr.
type driverLog struct{ log zerolog.Logger }

func (d driverLog) Print(v ...any) {
	d.log.Debug().Msg(strings.TrimSpace(fmt.Sprint(v...)))
}

// routeLibraryLogs sends the libraries' own log lines to log, in its format: the MySQL driver's
// at debug level, and whatever logs through log/slog's or the log package's default logger
// (go-mysql's package-level warnings, "out of order binlog") at its own level.
func routeLibraryLogs(log zerolog.Logger) {
	_ = mysql.SetLogger(driverLog{log: log.With().Str("component", "mysql-driver").Logger()})
	slog.SetDefault(slog.New(zerolog.NewSlogHandler(log.With().Str("lib", "go-mysql").Logger())))
}
