package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/go-ghostlite/go-ghostlite/config"
)

// Every visible flag is in exactly one topic of --help, every name in a topic is a flag, and the
// help shows each topic with its flags and their defaults.
func TestHelpGroupsCoverEveryFlag(t *testing.T) {
	cfg := config.Default()
	var v flagValues
	fs := newFlagSet(&cfg, &v)
	seen := map[string]string{}
	for _, g := range helpGroups {
		for _, name := range g.flags {
			if prev, dup := seen[name]; dup {
				t.Errorf("--%s is under %q and %q", name, prev, g.title)
			}
			seen[name] = g.title
			if fs.Lookup(name) == nil {
				t.Errorf("%q lists --%s, which is no flag", g.title, name)
			}
		}
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if _, ok := seen[f.Name]; !ok && !f.Hidden {
			t.Errorf("--%s is under no topic of --help", f.Name)
		}
	})

	var out bytes.Buffer
	writeHelp(&out, fs)
	help := out.String()
	for _, g := range helpGroups {
		if !strings.Contains(help, "\n"+g.title+":\n") {
			t.Errorf("--help lacks the topic %q", g.title)
		}
	}
	for _, want := range []string{"--port int", "(default 3306)", "--chunk-size int", "(default 1000)", "--cut-over string"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	if strings.Contains(help, "checkpoint-interval-millis") {
		t.Error("--help shows a hidden flag")
	}
	if i, j := strings.Index(help, "\nThrottle:\n"), strings.Index(help, "--max-lag-millis"); i < 0 || j < i {
		t.Error("--max-lag-millis is not under Throttle")
	}
}

// --version prints a version: the one set at build time, or else what Go recorded of the build.
func TestVersionText(t *testing.T) {
	defer func(v string) { version = v }(version)
	version = "v1.2.3-4-gabcdef"
	if got := versionText(); got != "v1.2.3-4-gabcdef" {
		t.Errorf("versionText() = %q with -X main.version", got)
	}
	version = "dev"
	if got := versionText(); !strings.HasPrefix(got, "dev") && !strings.HasPrefix(got, "v") {
		t.Errorf("versionText() = %q without -X main.version", got)
	}
}
