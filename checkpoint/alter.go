package checkpoint

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/go-ghostlite/go-ghostlite/internal/sqltok"
	"github.com/go-ghostlite/go-ghostlite/internal/table"
)

// What a record says of the ALTER it is of (Record.Alter): the ALTER normalized, so that the same
// ALTER written another way resumes and any other one is refused, and where each ghost column is
// copied from.

// AlterOf is the Alter a run's records carry: its normalized ALTER (NormalizeAlter) and, for each
// ghost column, the original column it is copied from (names compared without case).
// set are the tables of the set the run belongs to (nil alone), kept sorted.
func AlterOf(normalized string, copiedFrom map[string]string, set []string) *Alter {
	from := make(map[string]string, len(copiedFrom))
	for g, o := range copiedFrom {
		from[strings.ToLower(g)] = strings.ToLower(o)
	}
	return &Alter{Alter: normalized, CopiedFrom: from, Set: sortedSet(set)}
}

// sortedSet is a sorted copy of set (nil when empty).
func sortedSet(set []string) []string {
	if len(set) == 0 {
		return nil
	}
	return slices.Sorted(slices.Values(set))
}

// plainWord is an identifier that needs no quotes.
var plainWord = regexp.MustCompile(`^[A-Z0-9_$]+$`)

// oneLine escapes what would break a line (the normalized ALTER is shown in one-line errors);
// the backslash first, so that the escaping reads back one way only.
var oneLine = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`)

// NormalizeAlter is the ALTER's clauses as the server reads them, one way of writing them: words
// and identifiers (quoted or not) upper-cased (quoted only where they must be), strings quoted
// one way, tokens separated by one space, comments dropped, line breaks escaped. Two ALTERs
// differing only in case, spacing, comments or quoting read the same. body is an ALTER the run
// has already parsed; what it cannot read is an error.
func NormalizeAlter(body string) (string, error) {
	toks, err := sqltok.Tokenize(body, sqltok.Options{})
	if err != nil {
		return "", fmt.Errorf("read the ALTER: %w", err)
	}
	parts := make([]string, len(toks))
	for i, t := range toks {
		if t.Executable {
			return "", errors.New("the ALTER contains an executable comment (/*! ... */): write its content as plain SQL")
		}
		switch t.Kind {
		case sqltok.Word, sqltok.Ident:
			parts[i] = strings.ToUpper(t.Text)
			if !plainWord.MatchString(parts[i]) {
				parts[i] = oneLine.Replace(table.QuoteIdent(parts[i]))
			}
		case sqltok.String:
			parts[i] = "'" + oneLine.Replace(strings.ReplaceAll(t.Text, "'", "''")) + "'"
		default:
			parts[i] = t.Text
		}
	}
	return strings.Join(parts, " "), nil
}
