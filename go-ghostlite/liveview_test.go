package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-ghostlite/go-ghostlite/internal/testenv"
)

// tmuxPane is a detached tmux session of its own server (socket), running one command in a pane.
type tmuxPane struct {
	t      *testing.T
	socket string
	name   string
}

// startTmux runs command in a new detached tmux session of width x height.
func startTmux(t *testing.T, name string, width, height int, command string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testenv.Unavailable(t, "tmux not found (script/bootstrap installs it)")
	}
	p := &tmuxPane{t: t, socket: filepath.Join(testenv.ShortTempDir(t), "tmux.sock"), name: name}
	p.run("new-session", "-d", "-s", name, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), command+"; sleep 600")
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", p.socket, "kill-server").Run() })
	return p
}

func (p *tmuxPane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is what a person sees in the pane now, row by row.
func (p *tmuxPane) screen() string { return p.run("capture-pane", "-p", "-t", p.name) }

// text is the pane's text with the lines the terminal wrapped joined again.
func (p *tmuxPane) text() string { return p.run("capture-pane", "-p", "-J", "-t", p.name) }

// resize makes the pane width columns wide.
func (p *tmuxPane) resize(width int) { p.run("resize-window", "-t", p.name, "-x", fmt.Sprint(width)) }

// waitText waits until the pane's text (wrapped lines joined) holds every one of wants, and
// returns the screen.
func (p *tmuxPane) waitText(what string, wants ...string) string {
	p.t.Helper()
	var last string
	testenv.WaitFor(p.t, 60*time.Second, 100*time.Millisecond, what, func() (bool, error) {
		last = p.text()
		for _, w := range wants {
			if !strings.Contains(last, w) {
				return false, nil
			}
		}
		return true, nil
	})
	return p.screen()
}

// waitBlock waits until the screen's last rows are the block drawn for width columns, and returns
// the screen.
func (p *tmuxPane) waitBlock(what string, width int) string {
	p.t.Helper()
	var last string
	err := testenv.Poll(context.Background(), 30*time.Second, 100*time.Millisecond, what, func() (bool, error) {
		last = p.screen()
		return blockProblem(last, width) == "", nil
	})
	if err != nil {
		p.t.Fatalf("%v: %s; screen:\n%s", err, blockProblem(last, width), last)
	}
	return last
}

// The live view in a real terminal, as a person sees it: a migration postponed at its cut-over
// draws the block below its log lines; narrowed to 50 columns the block is redrawn cut to the
// width, once, with nothing left of the wide one; go-ghostlite --attach in a second terminal draws
// the same block; once unpostponed the run ends and the block is gone, its last log lines remain.
func TestLiveViewInATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a migration in tmux")
	}
	db := testenv.Database(t, "gl_liveview")
	testenv.Exec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)", "INSERT INTO t SELECT seq, seq FROM seq_1_to_5000")
	dir := testenv.ShortTempDir(t) // a unix socket goes here
	bin, sock, flag := filepath.Join(dir, "go-ghostlite"), filepath.Join(dir, "s.sock"), filepath.Join(dir, "postpone")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := testenv.PrimaryConfig()
	migrate := fmt.Sprintf("%s --host=%s --port=%d --user=%s --password=%s --database=gl_liveview --table=t --alter='ADD COLUMN c INT NULL' --allow-on-master --execute --replica-server-id=%d --serve-socket-file=%s --postpone-cut-over-flag-file=%s",
		bin, c.Host, c.Port, c.User, c.Password, testenv.NextServerID(), sock, flag)
	run := startTmux(t, "run", 120, 40, migrate)
	run.waitText("the live view, postponed", "Row copy complete", "cut-over  postponed: remove the flag file")
	run.waitBlock("the block at the bottom, 120 columns", 120)

	run.resize(50)
	screen := run.waitBlock("the block redrawn for 50 columns", 50)
	if n := strings.Count(screen, "throttle  none"); n != 1 {
		t.Errorf("after the resize the screen shows the block %d times:\n%s", n, screen)
	}

	watch := startTmux(t, "attach", 100, 10, fmt.Sprintf("%s --attach=%s", bin, sock))
	watch.waitText("the attached view", "postponed [", "applier ", "cut-over  postponed: remove the flag file")

	if err := os.Remove(flag); err != nil {
		t.Fatal(err)
	}
	screen = run.waitText("the run's end", "Done migrating gl_liveview.t")
	if strings.Contains(screen, "throttle  none") {
		t.Errorf("the block stayed after the run ended:\n%s", screen)
	}
	screen = watch.waitText("the attached view's end", "the migration ended: "+sock+" is gone")
	t.Logf("the attached terminal at the end:\n%s", screen)
}

// blockProblem says what keeps the screen's last non-empty rows from being the four rows of the
// block, in order, under the log, with no row wider than width ("" when nothing does).
func blockProblem(screen string, width int) string {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	if len(lines) < 5 {
		return "fewer than five rows"
	}
	block := lines[len(lines)-4:]
	for i, prefix := range []string{"postponed [", "applier ", "throttle ", "cut-over "} {
		if !strings.HasPrefix(block[i], prefix) {
			return fmt.Sprintf("row %d of the block is %q, want it to start with %q", i, block[i], prefix)
		}
	}
	for _, l := range lines {
		if len([]rune(l)) > width {
			return fmt.Sprintf("a row wider than the %d-column terminal: %q", width, l)
		}
	}
	return ""
}
