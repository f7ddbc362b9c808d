package main

import (
	"sort"
	"strings"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"
)

// gh-ost compatibility (issue 16): a gh-ost command line runs unchanged. gh-ost parses its
// command line with Go's flag package, where a long flag takes one dash or two (-alter=x,
// --alter=x, -chunk-size 500); pflag reads one dash as a cluster of short flags. normalizeArgs
// rewrites the one-dash spelling to two dashes before pflag sees it, with Go's flag package's
// rules: a value argument (the one after a non-boolean flag written without '=') is never
// rewritten, and nothing after "--" is.

// normalizeArgs returns args with every one-dash long flag (-name, -name=value) spelled with two
// dashes. A one-dash word of two letters or more is a long flag, known or not (an unknown one is
// then reported as "unknown flag: --name"); "-h" and "-" stay as they are.
func normalizeArgs(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	takesValue := false // the previous argument was a non-boolean flag without '='
	for i, a := range args {
		if takesValue {
			out = append(out, a)
			takesValue = false
			continue
		}
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			a = "-" + a
		}
		if strings.HasPrefix(a, "--") {
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := fs.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				takesValue = true
			}
		}
		out = append(out, a)
	}
	return out
}

// checkFlagRequested says whether --check-flag is among the (normalized) arguments, before "--".
func checkFlagRequested(args []string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--check-flag" || a == "--check-flag=true" || a == "--check-flag=1":
			return true
		}
	}
	return false
}

// checkFlagError is a parse error under --check-flag: the answer "no such flag" (exit 1).
type checkFlagError struct{ err error }

func (e *checkFlagError) Error() string { return "--check-flag: " + e.err.Error() }
func (e *checkFlagError) Unwrap() error { return e.err }

// warnIgnoredFlags logs one warning line for each flag given that is accepted and ignored (the
// table's ghostIgnored flags whose value goes nowhere), saying why, in name order. The migrator
// warns about --replication-lag-query itself (a Config field).
func warnIgnoredFlags(fs *pflag.FlagSet, logger zerolog.Logger) {
	var given []*flagSpec
	eachFlag(func(s *flagSpec) {
		if s.ghost == ghostIgnored && s.to == nil && fs.Changed(s.name) {
			given = append(given, s)
		}
	})
	sort.Slice(given, func(i, j int) bool { return given[i].name < given[j].name })
	for _, s := range given {
		logger.Warn().Msgf("--%s is ignored: %s", s.name, s.note)
	}
}
