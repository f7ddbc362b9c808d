package control

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-ghostlite/go-ghostlite/status"
)

// helpText is the reply to help: gh-ost's list, with ours added.
const helpText = `available commands:
status                               # Print a detailed status message
sup                                  # Print a short status message
view=<width>                         # Print the live progress view, lines cut to width (what --attach draws)
coordinates                          # Print the currently inspected coordinates
applier                              # Print the hostname of the applier
inspector                            # Print the hostname of the inspector
version                              # Print the go-ghostlite version
chunk-size=<newsize>                 # Set a new chunk-size
dml-batch-size=<newsize>             # Set a new dml-batch-size
nice-ratio=<ratio>                   # Set a new nice-ratio, immediate sleep after each row-copy operation, float (examples: 0 is aggressive, 0.7 adds 70% runtime, 1.0 doubles runtime, 2.0 triples runtime, ...)
critical-load=<load>                 # Set a new set of critical-load thresholds
max-lag-millis=<max-lag>             # Set a new replication lag threshold
max-load=<load>                      # Set a new set of max-load thresholds
throttle-query=<query>               # Set a new throttle-query (no quotes)
throttle-http=<URL>                  # Set a new throttle URL
throttle-control-replicas=<replicas> # Set a new comma delimited list of throttle control replicas
throttle                             # Force throttling
no-throttle                          # End forced throttling (other throttling may still apply)
postpone                             # Postpone the cut-over until unpostpone (the copy goes on)
unpostpone                           # Bail out a cut-over postpone; proceed to cut-over
cut-over                             # Same as unpostpone
panic                                # panic and quit (the original table is left untouched)
help                                 # This message
- use '?' (question mark) as argument to get info rather than set. e.g. "max-load=?" will just print out current max-load.
`

// throttleHint follows the throttle and throttle-query replies, as gh-ost's.
const throttleHint = "# Note: you may only throttle for as long as your binary logs are not purged\n"

// notPostponing is gh-ost's reply to unpostpone when nothing holds the cut-over back, without
// naming gh-ost as the tool.
const notPostponing = "You may only invoke this when the migration is actively postponing its cut-over. At this time it is not.\n"

// settings are gh-ost's live settings; each goes through Controls.Get/Set (a setting the
// migration does not have replies with the unknown-setting error).
var settings = []string{"chunk-size", "dml-batch-size", "max-lag-millis", "max-load", "critical-load",
	"nice-ratio", "throttle-query", "throttle-http", "throttle-control-replicas"}

// Command runs one command line and returns its reply (one or more lines, each ending in a
// newline). It is what a connection gets; it never blocks on the migration.
func (s *Server) Command(line string) string { return s.command(line, false) }

// socketOnly are the settings that make the tool run SQL or contact a URL with its credentials:
// --serve-tcp-port has no authentication (any local user can connect), so over TCP they can be
// read but not changed; the socket is owner-only.
var socketOnly = []string{"throttle-query", "throttle-http"}

// command runs one command line received over TCP (overTCP) or the socket.
func (s *Server) command(line string, overTCP bool) string {
	line = strings.TrimSpace(line)
	if line == "" {
		return "Empty command; try help\n"
	}
	if !isPrintable(line) {
		return "Malformed command: only printable text is accepted\n"
	}
	name, arg, hasArg := strings.Cut(line, "=")
	name, arg = strings.TrimSpace(name), strings.TrimSpace(arg)
	if unquoted, err := strconv.Unquote(arg); err == nil {
		arg = unquoted
	}
	if !hasArg && strings.HasSuffix(name, "?") { // "chunk-size?" reads, as "chunk-size=?"
		name, arg = strings.TrimSpace(strings.TrimSuffix(name, "?")), "?"
	}
	if name == "view" { // polled by --attach twice a second: neither logged nor a hook's business
		reply, err := s.run(name, arg)
		if err != nil {
			return err.Error() + "\n"
		}
		return reply
	}
	s.log.Info().Str("command", clip(line)).Msg("interactive command")
	if overTCP && slices.Contains(socketOnly, name) && arg != "?" {
		return fmt.Sprintf("%s cannot be changed over TCP (--serve-tcp-port has no authentication): send it to the unix socket %s\n", name, s.cfg.SocketFile)
	}
	if s.OnCommand != nil {
		if err := s.OnCommand(line); err != nil {
			return err.Error() + "\n"
		}
	}
	reply, err := s.run(name, arg)
	if err != nil {
		return err.Error() + "\n"
	}
	return reply
}

// run executes the parsed command name=arg.
func (s *Server) run(name, arg string) (string, error) {
	c := s.controls
	switch name {
	case "help":
		return helpText, nil
	case "version":
		return s.cfg.Version + "\n", nil
	case "sup":
		return c.Status().Line() + "\n", nil
	case "status", "info":
		return s.statusReply(), nil
	case "view":
		width, err := strconv.Atoi(arg)
		if arg == "" || arg == "?" {
			width, err = 100, nil
		}
		if err != nil || width < 1 || width > 1000 {
			return "", fmt.Errorf("view=%s: give the terminal's width, 1 to 1000", clip(arg))
		}
		return strings.Join(c.Status().View(width), "\n") + "\n", nil
	case "coordinates":
		if arg != "" && arg != "?" {
			return "", errors.New("coordinates are read-only")
		}
		return c.Status().AppliedPos + "\n", nil
	case "applier", "inspector":
		return hostReply(c.Status(), name == "applier"), nil
	case "throttle", "pause", "suspend":
		if err := s.checkTable("throttle", arg); err != nil {
			return "", err
		}
		c.Throttle(true)
		return throttleHint + s.statusReply(), nil
	case "no-throttle", "unthrottle", "resume", "continue":
		if err := s.checkTable("no-throttle", arg); err != nil {
			return "", err
		}
		c.Throttle(false)
		return s.statusReply(), nil
	case "postpone":
		return s.postpone(arg, true)
	case "unpostpone", "no-postpone", "cut-over":
		return s.postpone(arg, false)
	case "panic":
		return s.panic(arg)
	}
	if slices.Contains(settings, name) || slices.Contains(c.Knobs(), name) {
		return s.setting(name, arg)
	}
	return "", fmt.Errorf("Unknown command: %s", clip(name)) //nolint:staticcheck // gh-ost's reply, capitalised
}

// setting reads (arg "?") or changes a setting by its gh-ost name.
func (s *Server) setting(name, arg string) (string, error) {
	c := s.controls
	if arg == "?" {
		v, err := c.Get(name)
		if err != nil {
			return "", err
		}
		return v + "\n", nil
	}
	if err := c.Set(name, arg); err != nil {
		return "", err
	}
	switch name {
	case "throttle-query":
		return throttleHint + s.statusReply(), nil
	case "throttle-control-replicas":
		v, _ := c.Get(name)
		return v + "\n" + s.statusReply(), nil
	}
	return s.statusReply(), nil
}

// postpone holds the cut-over back (on) or releases it (unpostpone, cut-over).
func (s *Server) postpone(arg string, on bool) (string, error) {
	c := s.controls
	if on {
		if err := s.checkTable("postpone", arg); err != nil {
			return "", err
		}
		if err := c.Postpone(true); err != nil {
			return "", err
		}
		return "Postponed\n" + s.statusReply(), nil
	}
	if arg == "" && s.cfg.ForceNamedCutOver {
		return "", errors.New("User commanded 'unpostpone' without specifying table name, but --force-named-cut-over is set") //nolint:staticcheck // gh-ost's reply
	}
	if err := s.checkTable("unpostpone", arg); err != nil {
		return "", err
	}
	if st := c.Status(); !st.Postponed && st.Phase != status.PhasePostponed {
		return notPostponing, nil
	}
	if err := c.Postpone(false); err != nil {
		return "", err
	}
	return "Unpostponed\n" + s.statusReply(), nil
}

// panic aborts the migration; the original table is left untouched.
func (s *Server) panic(arg string) (string, error) {
	if arg == "" && s.cfg.ForceNamedPanic {
		return "", errors.New("User commanded 'panic' without specifying table name, but --force-named-panic is set") //nolint:staticcheck // gh-ost's reply
	}
	if err := s.checkTable("panic", arg); err != nil {
		return "", err
	}
	s.controls.Panic("user commanded 'panic' on the interactive interface")
	return "User commanded 'panic'. The migration will be aborted; the original table is left untouched.\n", nil
}

// checkTable refuses a command naming another table than the one migrated (gh-ost's courtesy
// check); a command without a name passes.
func (s *Server) checkTable(command, arg string) error {
	if arg != "" && arg != s.cfg.Table {
		return fmt.Errorf("User commanded '%s' on %s, but migrated table is %s; ignoring request.", command, clip(arg), s.cfg.Table) //nolint:staticcheck // gh-ost's reply
	}
	return nil
}

// statusReply is the hint block and the status line (gh-ost's status reply).
func (s *Server) statusReply() string {
	st := s.controls.Status()
	var b strings.Builder
	fmt.Fprintf(&b, "# Migrating `%s`.`%s`; Ghost table is `%s`.`%s`\n", s.cfg.Database, s.cfg.Table, s.cfg.Database, orNA(st.GhostTable))
	host, _ := os.Hostname()
	fmt.Fprintf(&b, "# Migrating %s; inspecting %s; executing on %s\n", orNA(st.PrimaryHost), orNA(st.InspectedHost), host)
	if !st.Started.IsZero() {
		fmt.Fprintf(&b, "# Migration started at %s\n", st.Started.Format(time.RubyDate))
	}
	b.WriteString("# " + s.knobsLine() + "\n")
	for _, f := range []struct{ name, path string }{{"postpone-cut-over-flag-file", s.cfg.PostponeFlagFile}, {"panic-flag-file", s.cfg.PanicFlagFile}} {
		if f.path == "" {
			continue
		}
		set := ""
		if _, err := os.Stat(f.path); err == nil {
			set = " [set]"
		}
		fmt.Fprintf(&b, "# %s: %s%s\n", f.name, f.path, set)
	}
	if s.cfg.SocketFile != "" {
		fmt.Fprintf(&b, "# Serving on unix socket: %s\n", s.cfg.SocketFile)
	}
	if s.cfg.TCPPort != 0 {
		fmt.Fprintf(&b, "# Serving on TCP port: %d\n", s.cfg.TCPPort)
	}
	if set, ok := s.controls.(TableSet); ok { // several tables: each one's line, then the total
		for _, t := range set.TableStatuses() {
			fmt.Fprintf(&b, "# %s: %s\n", t.Table, t.Line())
		}
	}
	b.WriteString(st.Line() + "\n")
	return b.String()
}

// TableSet is what the Controls of a set of tables migrated together add: each table's status
// (Status is the set's in total). The status reply shows each table's line before the total.
type TableSet interface {
	TableStatuses() []status.Status
}

// knobsLine lists the settings the migration has, gh-ost's first, in gh-ost's order:
// "chunk-size: 1000; max-lag-millis: 1500ms; dml-batch-size: 10; ...".
func (s *Server) knobsLine() string {
	have := s.controls.Knobs()
	order := append(slices.Clone(settings), have...)
	var parts []string
	seen := map[string]bool{}
	for _, name := range order {
		if seen[name] || !slices.Contains(have, name) {
			continue
		}
		seen[name] = true
		v, err := s.controls.Get(name)
		if err != nil {
			continue
		}
		if name == "max-lag-millis" {
			v += "ms"
		}
		parts = append(parts, name+": "+v)
	}
	return strings.Join(parts, "; ")
}

// hostReply is gh-ost's "Host: h:p, Version: v" for the applier (primary) or inspector.
func hostReply(st status.Status, applier bool) string {
	host := st.InspectedHost
	if applier {
		host = st.PrimaryHost
	}
	if host == "" {
		return "Not connected yet\n"
	}
	if applier && host != st.InspectedHost { // the version read is the inspected server's
		return fmt.Sprintf("Host: %s\n", host)
	}
	return fmt.Sprintf("Host: %s, Version: %s\n", host, st.ServerVersion)
}

func orNA(s string) string {
	if s == "" {
		return "n/a"
	}
	return s
}

// clip shortens what the client sent for a log line or a reply.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// isPrintable reports whether line is text without control characters (tabs allowed).
func isPrintable(line string) bool {
	for _, r := range line {
		if r == '\uFFFD' || (r < ' ' && r != '\t') || r == 0x7f {
			return false
		}
	}
	return true
}
