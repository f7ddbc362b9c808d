package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Secrets on the command line. /proc/<pid>/cmdline is readable by every user of the machine, so a
// password given as --password or --master-password must not stay there for the hours a
// migration runs. hidePasswordArgs moves such values into the environment (GHOSTLITE_PASSWORD,
// GHOSTLITE_MASTER_PASSWORD; /proc/<pid>/environ is readable by the owner only) and re-executes
// the program in place (same pid, same stdio, signals and exit code unchanged) without them. The
// password can still be seen by others during the few milliseconds before the re-exec: the only
// way to avoid even that is --ask-pass, --conf or the environment variable.

// passwordArgs maps each secret flag to the variable that carries it across the re-exec.
var passwordArgs = map[string]string{"password": passwordEnv, "master-password": masterPasswordEnv}

// secretArg tells whether argument a is a secret flag ("--password=x", "--password", and the same
// with gh-ost's one dash): the variable that carries its value across the re-exec, and its value
// when a holds it (hasValue; otherwise the value is the next argument).
func secretArg(a string) (variable, value string, hasValue, secret bool) {
	flag, dashed := strings.CutPrefix(a, "-")
	flag = strings.TrimPrefix(flag, "-")
	name, value, hasValue := strings.Cut(flag, "=")
	variable, secret = passwordArgs[name]
	return variable, value, hasValue, dashed && secret
}

// splitPasswordArgs returns args without the secret flags, and the environment entries that carry
// their values. Arguments after "--" are left alone.
func splitPasswordArgs(args []string) (kept, env []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(kept, args[i:]...), env
		}
		variable, value, hasValue, secret := secretArg(a)
		if !secret {
			kept = append(kept, a)
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		env = append(env, variable+"="+value)
	}
	return kept, env
}

// maskPasswordArgs is args with the value of every secret flag as "***", in place. Arguments after
// "--" are left alone.
func maskPasswordArgs(args []string) []string {
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		if out[i] == "--" {
			break
		}
		_, _, hasValue, secret := secretArg(out[i])
		switch {
		case !secret:
		case hasValue:
			name, _, _ := strings.Cut(out[i], "=")
			out[i] = name + "=***"
		case i+1 < len(out):
			i++
			out[i] = "***"
		}
	}
	return out
}

// hidePasswordArgs re-executes the program without its secret arguments when it has some. It
// returns only when there is nothing to hide, or the re-exec failed (err says why; the run goes on
// with the password visible, and says so).
func hidePasswordArgs(args []string) error {
	kept, env := splitPasswordArgs(args)
	if len(env) == 0 {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the executable to hide the password from the process list: %w", err)
	}
	argv := append([]string{os.Args[0]}, kept...)
	return syscall.Exec(exe, argv, withEnv(os.Environ(), env)) // returns only on failure
}

// withEnv is environ with the entries of set replacing any of the same names (Go reads the first
// of duplicate entries: an exported GHOSTLITE_PASSWORD would otherwise beat --password).
func withEnv(environ, set []string) []string {
	out := make([]string, 0, len(environ)+len(set))
	for _, e := range environ {
		name, _, _ := strings.Cut(e, "=")
		if !slices.ContainsFunc(set, func(s string) bool { return strings.HasPrefix(s, name+"=") }) {
			out = append(out, e)
		}
	}
	return append(out, set...)
}

// askPassword prompts on prompt and reads one line from in; when in is a terminal its echo is
// turned off meanwhile (termios through golang.org/x/sys/unix, already a dependency, rather than
// adding golang.org/x/term for two ioctls).
func askPassword(in io.Reader, prompt io.Writer) (string, error) {
	_, _ = fmt.Fprint(prompt, "Password: ")
	if f, ok := in.(*os.File); ok {
		if restore, err := echoOff(int(f.Fd())); err == nil {
			defer restore()
			defer fmt.Fprintln(prompt) //nolint:errcheck // the newline the user typed was not echoed
		}
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", fmt.Errorf("--ask-pass: no password read from standard input: type it, or pipe it in")
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// echoOff turns off the echo of the terminal fd and returns what restores it; an error means fd
// is not a terminal.
func echoOff(fd int) (restore func(), err error) {
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, old) }, nil
}
