package control

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// doc/interactive-commands.md matches the socket: every command and alias of its table is one the
// server runs (not "Unknown command"), and every command of the help reply is in its table.
func TestDocMatchesCommands(t *testing.T) {
	doc, err := os.ReadFile("../doc/interactive-commands.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	start, end := strings.Index(section, "## Commands"), strings.Index(section, "## The status reply")
	if start < 0 || end < start {
		t.Fatal("doc/interactive-commands.md lacks its Commands section")
	}
	section = section[start:end]
	s := New(Config{Table: "t"}, newFake())
	documented := map[string]bool{}
	name := regexp.MustCompile("`([a-z-]+)[=`]")
	for _, row := range strings.Split(section, "\n") {
		cells := strings.Split(row, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1]+" "+cells[2], -1) {
			cmd := m[1]
			documented[cmd] = true
			if cmd == "panic" {
				continue // it would panic the fake: its reply is checked in TestCommandReplies
			}
			if got := s.Command(cmd + "=?"); strings.HasPrefix(got, "Unknown command") {
				t.Errorf("the doc lists %q, the server answers %q", cmd, got)
			}
		}
	}
	for _, line := range strings.Split(helpText, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] == "-" {
			continue
		}
		cmd, _, _ := strings.Cut(f[0], "=")
		if !documented[cmd] {
			t.Errorf("help lists %q, the doc's table does not", cmd)
		}
	}
}
