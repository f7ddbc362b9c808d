package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/config"
)

// doc/flags.md and the flag table (flagtable.go) agree: the gh-ost table is generated from the
// flag table (GHOSTLITE_FLAGS_DOC=1 go test -run TestFlagsDocGhostTable ./go-ghostlite/ rewrites
// it), and every other table of the page has a row for each flag with the flag's default.

const (
	ghostDocBegin = "<!-- gh-ost flags: generated from the flag table by go-ghostlite/flagsdoc_test.go, do not edit -->"
	ghostDocEnd   = "<!-- end of the generated gh-ost flags -->"
	flagsDocPath  = "../doc/flags.md"
)

// ghostWords are the gh-ost table's words for each mapping.
var ghostWords = map[ghostMapping]string{ghostSame: "as in gh-ost", ghostDiffers: "with a difference", ghostIgnored: "accepted, ignored"}

// ghostDocTable is the generated part of doc/flags.md: the counts, then one row per gh-ost flag.
func ghostDocTable() string {
	var rows []string
	counts := map[ghostMapping]int{}
	eachFlag(func(s *flagSpec) {
		if s.ghost == ours {
			return
		}
		counts[s.ghost]++
		rows = append(rows, fmt.Sprintf("| `--%s` | %s | %s |", s.name, ghostWords[s.ghost], s.note))
	})
	sort.Strings(rows)
	var b strings.Builder
	fmt.Fprintf(&b, "\nCounts: %d as in gh-ost, %d with a difference, %d accepted and ignored.\n\n",
		counts[ghostSame], counts[ghostDiffers], counts[ghostIgnored])
	b.WriteString("| gh-ost flag | in go-ghostlite | difference, or why it is ignored |\n| --- | --- | --- |\n")
	b.WriteString(strings.Join(rows, "\n") + "\n")
	return b.String()
}

func TestFlagsDocGhostTable(t *testing.T) {
	b, err := os.ReadFile(flagsDocPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, ghostDocBegin), strings.Index(doc, ghostDocEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: the markers of the generated gh-ost table are missing", flagsDocPath)
	}
	want := doc[:i] + ghostDocBegin + "\n" + ghostDocTable() + doc[j:]
	if want == doc {
		return
	}
	if os.Getenv("GHOSTLITE_FLAGS_DOC") != "" {
		if err := os.WriteFile(flagsDocPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the gh-ost table differs from the flag table: rewrite it with GHOSTLITE_FLAGS_DOC=1 go test -run TestFlagsDocGhostTable ./go-ghostlite/", filepath.Base(flagsDocPath))
}

// docRow is one row of doc/flags.md's tables: its flags (first cell) and its default (second).
var docRow = regexp.MustCompile("(?m)^\\| (`--[^|]*)\\|([^|]*)\\|")

// Every flag has a row in one of the page's tables (besides the gh-ost table), and a row of one
// flag gives the flag's default, as --help does.
func TestFlagsDocDefaults(t *testing.T) {
	b, err := os.ReadFile(flagsDocPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if i, j := strings.Index(doc, ghostDocBegin), strings.Index(doc, ghostDocEnd); i >= 0 && j > i {
		doc = doc[:i] + doc[j:]
	}
	cfg := config.Default()
	fs := newFlagSet(&cfg, &flagValues{})
	rowed := map[string]bool{}
	for _, m := range docRow.FindAllStringSubmatch(doc, -1) {
		names := regexp.MustCompile("`--([a-z0-9-]+)`").FindAllStringSubmatch(m[1], -1)
		for _, n := range names {
			rowed[n[1]] = true
		}
		if len(names) != 1 {
			continue
		}
		name, got := names[0][1], strings.Trim(strings.TrimSpace(m[2]), "`")
		f := fs.Lookup(name)
		if f == nil {
			t.Errorf("doc/flags.md has a row for --%s, which is no flag", name)
			continue
		}
		if want := docDefault(name, f); got != want && !(got == `""` && want == "") {
			t.Errorf("doc/flags.md gives --%s the default %q; the flag table's is %q", name, got, want)
		}
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if !rowed[f.Name] {
			t.Errorf("doc/flags.md has no row for --%s", f.Name)
		}
	})
}

// docDefault is the default doc/flags.md gives the flag: the table's docDefault, or --help's.
func docDefault(name string, f *pflag.Flag) string {
	var d string
	eachFlag(func(s *flagSpec) {
		if s.name == name {
			d = s.docDefault
		}
	})
	switch {
	case d != "":
		return d
	case f.DefValue == "[]":
		return ""
	}
	return f.DefValue
}
