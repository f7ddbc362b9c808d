package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/pflag"
)

// helpGroup is one topic of --help and the flags under it, in the order shown.
type helpGroup struct {
	title string
	flags []string
}

// helpGroups are the flag table's topics (flagtable.go): every flag is under one.
var helpGroups = func() []helpGroup {
	groups := make([]helpGroup, 0, len(flagTopics))
	for _, t := range flagTopics {
		g := helpGroup{title: t.title}
		for _, s := range t.flags {
			g.flags = append(g.flags, s.name)
		}
		groups = append(groups, g)
	}
	return groups
}()

// writeHelp prints the usage paragraph and every supported flag with its default, by topic (to
// the terminal: a failed write has nowhere to be reported).
func writeHelp(w io.Writer, fs *pflag.FlagSet) {
	_, _ = fmt.Fprint(w, helpIntro)
	for _, g := range helpGroups {
		sub := pflag.NewFlagSet(g.title, pflag.ContinueOnError)
		sub.SortFlags = false
		for _, name := range g.flags {
			if f := fs.Lookup(name); f != nil && !f.Hidden {
				sub.AddFlag(f)
			}
		}
		_, _ = fmt.Fprintf(w, "\n%s:\n%s", g.title, sub.FlagUsagesWrapped(100))
	}
}

// versionText is what --version prints: the version set at build time (script/build:
// -ldflags "-X main.version=$(git describe --tags --always --dirty)"), else the module's version
// when built by go install module@version, else "dev" with the commit Go recorded, if any.
func versionText() string {
	if version != "dev" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		return version
	}
	return fmt.Sprintf("dev (commit %s%s)", rev[:min(12, len(rev))], modified)
}
