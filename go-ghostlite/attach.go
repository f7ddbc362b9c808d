package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"
)

// attach draws, on out, the live view of the migration serving the unix socket sock (its
// --serve-socket-file): it asks for the view ("view=<width>") every interval and redraws it in
// place until the socket goes away (the migration ended), then leaves the last view on the
// screen. Not on a terminal, it prints the view once.
func attach(sock string, out io.Writer, interval time.Duration) error {
	f, _ := out.(*os.File)
	if !isTerminal(out) {
		view, err := askView(sock, 100)
		if err != nil {
			return err
		}
		_, err = io.WriteString(out, view)
		return err
	}
	v := &liveView{out: out, width: func() int { return terminalWidth(f) }}
	first := true
	for {
		view, err := askView(sock, max(1, v.width()-1))
		switch {
		case err != nil && first:
			return err
		case err != nil: // the migration ended: keep its last view
			_, _ = fmt.Fprintf(out, "\nthe migration ended: %s is gone\n", sock)
			return nil
		}
		first = false
		lines := strings.Split(strings.TrimRight(view, "\n"), "\n")
		v.set(func(int) []string { return lines })
		time.Sleep(interval)
	}
}

// askView sends "view=<width>" on sock and returns the reply.
func askView(sock string, width int) (string, error) {
	conn, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return "", fmt.Errorf("--attach=%s: no migration serves this socket (%v); give the running migration's --serve-socket-file", sock, errors.Unwrap(err))
	}
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(conn, "view=%d\n", width); err != nil {
		return "", fmt.Errorf("--attach=%s: %w", sock, err)
	}
	b, err := io.ReadAll(conn)
	if err != nil {
		return "", fmt.Errorf("--attach=%s: %w", sock, err)
	}
	return string(b), nil
}
