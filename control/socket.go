package control

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

// listenSocket listens on a unix socket at path, created owner-only (0600): the socket is made in
// a private directory beside path, given its mode there, then linked to path, so it is never
// reachable with a wider mode, and a file that appears at path meanwhile is not replaced.
func (s *Server) listenSocket(path string) (net.Listener, error) {
	// The private directory's socket, <dir of path>/.gls<digits>/s, is at most this much longer.
	if n := len(filepath.Dir(path)) + len("/.gls") + 10 + len("/s"); len(path) > maxSocketPath || n > maxSocketPath {
		return nil, fmt.Errorf("--serve-socket-file %s: too long for a unix socket (%d bytes, %d while it is created; at most %d): give a shorter path",
			path, len(path), n, maxSocketPath)
	}
	if err := s.clearSocketPath(path); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(filepath.Dir(path), ".gls")
	if err != nil {
		return nil, fmt.Errorf("serve on unix socket %s: %w", path, err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	tmp := filepath.Join(dir, "s")
	l, err := net.Listen("unix", tmp)
	if err != nil {
		return nil, fmt.Errorf("serve on unix socket %s: %w", path, err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false) // Close removes path itself
	if err := os.Chmod(tmp, 0o600); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("serve on unix socket %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil {
		_ = l.Close()
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("socket file %s appeared while creating it: another migration of this table? (--initially-drop-socket-file removes it)", path)
		}
		return nil, fmt.Errorf("serve on unix socket %s: %w", path, err)
	}
	return l, nil
}

// maxSocketPath is the longest path a unix socket may have on Linux (sun_path holds 108 bytes,
// the last a NUL).
const maxSocketPath = 107

// clearSocketPath makes sure nothing is at path. A file there is refused when it is not a socket,
// or when a process answers on it (another migration of the same table) unless
// --initially-drop-socket-file says to remove it; a socket nobody answers on is what a killed run
// leaves behind, and is removed with a warning.
func (s *Server) clearSocketPath(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("check socket file %s: %w", path, err)
	case fi.Mode()&os.ModeSocket == 0:
		return fmt.Errorf("%s exists and is not a socket: not serving on it nor removing it; give another --serve-socket-file", path)
	}
	live := false
	if conn, err := net.DialTimeout("unix", path, time.Second); err == nil {
		_ = conn.Close()
		live = true
	}
	switch {
	case live && !s.cfg.InitiallyDropSocketFile:
		return fmt.Errorf("socket file %s exists and a process serves on it (another migration of this table?): refusing to start; --initially-drop-socket-file removes it", path)
	case live:
		s.log.Warn().Str("socket", path).Msg("removing a socket file another process serves on (--initially-drop-socket-file)")
	default:
		s.log.Warn().Str("socket", path).Msg("removing a socket file left by an earlier run that nothing serves on")
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove socket file %s: %w", path, err)
	}
	return nil
}
