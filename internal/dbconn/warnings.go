package dbconn

import (
	"fmt"
	"strings"
)

// Warning is one row of SHOW WARNINGS.
type Warning struct {
	Level   string // Note, Warning or Error
	Code    int
	Message string
}

// String is gh-ost's spelling of a warning: "Warning: Duplicate entry 'John' for key 'name' (1062)".
func (w Warning) String() string { return fmt.Sprintf("%s: %s (%d)", w.Level, w.Message, w.Code) }

// WarningsDetected is gh-ost's words for warnings that stop a migration (--panic-on-warnings),
// which scripts grep for: "warnings detected in statement 1 of 2: [Warning: ... (1062)]".
// stmt counts from 1 among the of statements sent together.
func WarningsDetected(stmt, of int, ws []Warning) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.String()
	}
	return fmt.Sprintf("warnings detected in statement %d of %d: [%s]", stmt, of, strings.Join(s, ", "))
}

// OneLine is err with its text on one line (every run of white space, line breaks included, as one
// space: a server's syntax error quotes the statement's lines), still wrapping err, so the
// server's error stays reachable with errors.As.
func OneLine(err error) error { return oneLineError{err} }

type oneLineError struct{ err error }

func (e oneLineError) Error() string { return strings.Join(strings.Fields(e.err.Error()), " ") }
func (e oneLineError) Unwrap() error { return e.err }
