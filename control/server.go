// Package control serves gh-ost's interactive commands (help, status, sup, chunk-size=, throttle,
// unpostpone, panic, ...) on a unix socket (--serve-socket-file) and optionally a TCP port on
// 127.0.0.1 (--serve-tcp-port), steering a migration through observe.Controls.
//
// Invariants:
//   - one command per connection: a line, answered in text, then the connection is closed;
//   - no input stops or blocks the migration: a line is at most MaxLineBytes long, a connection
//     gets ConnTimeout to send it and read the reply, at most MaxConnections are served at once,
//     and every malformed or oversized line is answered with an error line;
//   - the socket file is created owner-only (0600) and removed when the server closes; a file
//     already at its path is refused while a process serves on it or when it is not a socket;
//   - the server only calls observe.Controls: it never reaches into the migration.
package control

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/go-ghostlite/go-ghostlite/observe"
)

// Limits on what one connection may send and take.
const (
	MaxLineBytes   = 16 << 10         // longest command line accepted
	ConnTimeout    = 10 * time.Second // to send the command and read the reply
	MaxConnections = 8                // served at once; more are told to retry
)

// Config says where to serve and what the commands need to know.
type Config struct {
	// SocketFile is the unix socket's path ("" for none); DefaultSocketFile gives gh-ost's.
	SocketFile string
	// InitiallyDropSocketFile removes a socket left at SocketFile (--initially-drop-socket-file).
	InitiallyDropSocketFile bool
	// TCPPort serves on 127.0.0.1:TCPPort too (0: not at all).
	TCPPort int

	Database, Table string // the migrated table: named commands (cut-over=<table>) compare with Table
	// ForceNamedCutOver and ForceNamedPanic make unpostpone/cut-over and panic need the table's
	// name (--force-named-cut-over, --force-named-panic).
	ForceNamedCutOver, ForceNamedPanic bool
	// PostponeFlagFile and PanicFlagFile are shown in the status hint block.
	PostponeFlagFile, PanicFlagFile string

	Version string // the version command's reply
	Logger  zerolog.Logger
}

// DefaultSocketFile is gh-ost's socket path for a table: /tmp/gh-ost.<database>.<table>.sock. A
// '/' in a name (legal in a quoted MariaDB/MySQL identifier) is written @002f, as the server names
// its files, so the socket stays in the temporary directory.
func DefaultSocketFile(database, table string) string {
	esc := strings.NewReplacer("/", "@002f")
	return filepath.Join(os.TempDir(), fmt.Sprintf("gh-ost.%s.%s.sock", esc.Replace(database), esc.Replace(table)))
}

// Server answers interactive commands. Start it, then Close it when the migration ends.
type Server struct {
	cfg      Config
	controls observe.Controls
	log      zerolog.Logger

	// OnCommand, when set, runs before each command with the command line as received (trimmed):
	// an error rejects the command and is its reply (gh-ost's gh-ost-on-interactive-command hook).
	// Set it before Start.
	OnCommand func(command string) error

	timeout time.Duration // ConnTimeout; tests shorten it

	listeners []net.Listener
	slots     chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
	socket    string      // the socket file this server created, removed by Close
	socketID  os.FileInfo // its identity: a file put there since by another process is left alone
}

// New returns a server for cfg steering c; nothing is served before Start.
func New(cfg Config, c observe.Controls) *Server {
	return &Server{cfg: cfg, controls: c, slots: make(chan struct{}, MaxConnections), timeout: ConnTimeout,
		log: cfg.Logger.With().Str("component", "control").Logger()}
}

// Start listens on the socket file and the TCP port and serves until Close.
func (s *Server) Start() error {
	if s.cfg.SocketFile != "" {
		l, err := s.listenSocket(s.cfg.SocketFile)
		if err != nil {
			return err
		}
		s.socket = s.cfg.SocketFile
		s.socketID, _ = os.Lstat(s.socket)
		s.serve(l)
		s.log.Info().Str("socket", s.cfg.SocketFile).Msg("serving interactive commands on unix socket")
	}
	if s.cfg.TCPPort != 0 {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(s.cfg.TCPPort))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			_ = s.Close()
			return fmt.Errorf("serve interactive commands on TCP %s: %w", addr, err)
		}
		s.serve(l)
		s.log.Info().Str("address", addr).Msg("serving interactive commands on TCP")
	}
	return nil
}

// Close stops serving, waits for the connections being answered and removes the socket file.
func (s *Server) Close() error {
	var err error
	s.closeOnce.Do(func() {
		for _, l := range s.listeners {
			_ = l.Close()
		}
		s.wg.Wait()
		if fi, statErr := os.Lstat(s.socket); s.socket != "" && statErr == nil && os.SameFile(fi, s.socketID) {
			if rmErr := os.Remove(s.socket); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
				err = fmt.Errorf("remove socket file: %w", rmErr)
			}
		}
	})
	return err
}

// serve accepts connections on l until it is closed.
func (s *Server) serve(l net.Listener) {
	s.listeners = append(s.listeners, l)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			conn, err := l.Accept()
			if err != nil {
				if !errors.Is(err, net.ErrClosed) {
					s.log.Warn().Err(err).Msg("accept failed; no longer serving on this listener")
				}
				return
			}
			select {
			case s.slots <- struct{}{}:
			default:
				refuse(conn, "Too many connections; try again")
				continue
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer func() { <-s.slots }()
				s.handle(conn)
			}()
		}
	}()
}

// refuse answers conn with msg at once and closes it.
func refuse(conn net.Conn, msg string) {
	_ = conn.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = io.WriteString(conn, msg+"\n")
	_ = conn.Close()
}

// handle reads one command line from conn and writes its reply.
func (s *Server) handle(conn net.Conn) {
	defer func() { _ = conn.Close() }()
	_ = conn.SetDeadline(time.Now().Add(s.timeout))
	line, err := readLine(conn)
	var reply string
	switch {
	case errors.Is(err, errLineTooLong):
		drain(conn)
		reply = fmt.Sprintf("Command too long: more than %d bytes; ignored\n", MaxLineBytes)
	case errors.Is(err, os.ErrDeadlineExceeded):
		reply = fmt.Sprintf("No command received within %s\n", s.timeout)
	case err != nil && line == "":
		return // closed without a command: nothing to answer
	default:
		_, overTCP := conn.LocalAddr().(*net.TCPAddr)
		reply = s.command(line, overTCP)
	}
	if reply == "" {
		return
	}
	_ = conn.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := io.WriteString(conn, reply); err != nil {
		s.log.Debug().Err(err).Msg("could not write the reply")
	}
}

var errLineTooLong = errors.New("line too long")

// drain reads and drops what the client still sends, for a short while and at most 4 MiB, so
// that the reply is not lost to a reset when the connection closes with unread input.
func drain(conn net.Conn) {
	_ = conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	_, _ = io.CopyN(io.Discard, conn, 4<<20)
}

// readLine reads up to the first newline (or the end of the input), at most MaxLineBytes.
func readLine(r io.Reader) (string, error) {
	br := bufio.NewReader(io.LimitReader(r, MaxLineBytes+1))
	line, err := br.ReadString('\n')
	if strings.HasSuffix(line, "\n") {
		return strings.TrimRight(line, "\r\n"), nil
	}
	if len(line) > MaxLineBytes {
		return "", errLineTooLong
	}
	if errors.Is(err, io.EOF) && line != "" {
		return line, nil // the last line needs no newline
	}
	return line, err
}
