package dbconn

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// A server that accepts the connection and never sends its handshake fails Open within the
// timeout (the driver's own timeout bounds the TCP connect only), once, with the cause.
func TestOpenBoundsTheHandshake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	accepted := make(chan int, 16)
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
			accepted <- len(held)
		}
	}()
	addr := ln.Addr().(*net.TCPAddr)
	c := Config{Host: "127.0.0.1", Port: addr.Port, User: "u", Password: "p", Timeout: 300 * time.Millisecond}
	began := time.Now()
	_, err = Open(context.Background(), c, "")
	took := time.Since(began)
	if err == nil || !errors.Is(err, ErrConnectTimeout) || !strings.Contains(err.Error(), "connect to "+c.Addr()+" as u: no MySQL handshake in time (300ms, --mysql-timeout)") {
		t.Fatalf("got %v, want the handshake timeout naming %s", err, c.Addr())
	}
	if took > 2*time.Second {
		t.Errorf("Open took %s with a 300ms timeout", took)
	}
	if n := len(accepted); n != 1 {
		t.Errorf("%d connections tried, want 1 (no retry of a timed-out handshake)", n)
	}
}

// A port nothing listens on: one line naming the address and the cause, not the address twice.
func TestOpenRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	c := Config{Host: "127.0.0.1", Port: port, User: "u", Timeout: time.Second}
	_, err = Open(context.Background(), c, "")
	want := "connect to " + c.Addr() + " as u: connection refused: nothing listens on that port; check --host and --port"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}
